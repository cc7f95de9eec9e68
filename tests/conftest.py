import os

from hypothesis import settings

# Tests never read the user's settings or recovery files.
os.environ.setdefault("RIGEDIT_CONFIG_DIR", os.path.join(os.path.dirname(__file__), "..", ".pytest_cache", "rigedit-config"))

# CI replays the same examples every run, so a red build is about the change being tested,
# not about which random cases came up; local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
