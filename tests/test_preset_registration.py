"""Rig.load / Rig.save find the io layer's preset reader and writer through plain
registration (core/persistence.py), with no hook on Python's import machinery."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


def test_core_rig_loads_and_saves_without_importing_io_first(tmp_path):
    out = tmp_path / "copy.json"
    code = (
        "import sys\n"
        "finders = list(sys.meta_path)\n"
        "import rigedit\n"
        "assert sys.meta_path == finders, 'rigedit installed an import hook'\n"
        "from rigedit.core.rig import Rig\n"
        "assert 'rigedit.io.preset' not in sys.modules\n"
        "rig = Rig.default()\n"
        f"rig.save({str(out)!r})\n"
        f"back = Rig.load({str(out)!r})\n"
        "assert back.chain_names == rig.chain_names\n"
        "from rigedit.core import persistence\n"
        "from rigedit.io.preset import load_preset, save_preset\n"
        "assert persistence.reader() is load_preset and persistence.writer() is save_preset\n"
        "print('ok')\n"
    )
    assert _run(code) == "ok"


def test_import_rigedit_stays_light():
    code = (
        "import sys, rigedit\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'numba', 'scipy', 'pydantic'}))\n"
    )
    assert _run(code) == "[]"


def test_a_missing_registration_says_what_to_do():
    code = (
        "import rigedit\n"
        "from rigedit.core import persistence\n"
        "persistence._reader = persistence._writer = None\n"
        "from rigedit.core.rig import Rig\n"
        "try:\n"
        "    Rig.default()\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
    )
    assert "no preset reader registered" in _run(code)
