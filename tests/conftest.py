import os

# Tests never read the user's settings or recovery files.
os.environ.setdefault("RIGEDIT_CONFIG_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "rigedit-config"))
