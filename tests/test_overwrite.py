"""Every command that writes keeps an existing output, and the file its format writes beside
it, unless --force (io/overwrite.py: one rule; issue 26, extreme input)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rigedit.cli import main
from rigedit.io.bvh_format import parse_bvh

DATA = Path("/work/shared/data")
CLIP = DATA / "pybvh_bvh_test1.bvh"


def _preset(tmp_path: Path) -> Path:
    preset = tmp_path / "rig.json"
    assert main(["import", str(CLIP), "-o", str(preset)]) == 0
    return preset


COMMANDS = {
    "export .bvh": lambda tmp, out: ["export", str(CLIP), "-o", str(out), "-q"],
    "export .glb": lambda tmp, out: ["export", str(CLIP), "-o", str(out), "-q"],
    "import": lambda tmp, out: ["import", str(CLIP), "-o", str(out)],
    "bake": lambda tmp, out: ["bake", str(_preset(tmp)), "-o", str(out), "-q"],
    "lint --fix": lambda tmp, out: ["lint", str(CLIP), "--fix", "-o", str(out)],
}
OUT = {"export .bvh": "o.bvh", "export .glb": "o.glb", "import": "o.json", "bake": "o.bvh", "lint --fix": "o.bvh"}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_existing_output_is_kept_unless_force(command, tmp_path, capsys):
    out = tmp_path / OUT[command]
    out.write_bytes(b"keep me")
    argv = COMMANDS[command](tmp_path, out)
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: already exists (--force overwrites it)") and "Traceback" not in err
    assert out.read_bytes() == b"keep me"
    assert main(argv + ["--force"]) == 0
    assert out.read_bytes() != b"keep me"


def _unsafe_names_bvh(path: Path) -> None:
    """A small take whose joint names need the BVH writer's mapping file (a Mixamo prefix)."""
    text = CLIP.read_text()
    raw = parse_bvh(text)
    for j in raw.joints:
        if not j.end_site:
            text = text.replace(f" {j.name}\n", f" mixamorig:{j.name}\n", 1)
    path.write_text(text)


def test_the_names_file_beside_a_bvh_is_kept_unless_force(tmp_path, capsys):
    src = tmp_path / "mixamo.bvh"
    _unsafe_names_bvh(src)
    out = tmp_path / "o.bvh"
    side = tmp_path / "o.bvh.names.json"
    assert main(["export", str(src), "-o", str(out), "-q"]) == 0
    assert side.is_file()
    out.unlink()  # the BVH gone, its names file left: another export would replace it
    before = side.read_text()
    capsys.readouterr()
    assert main(["export", str(CLIP), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: {side} is there beside it") and "--force" in err
    assert side.read_text() == before and not out.exists()
    assert main(["export", str(CLIP), "-o", str(out), "-q", "--force"]) == 0
    assert not side.exists()  # these names needed no mapping: the stale one is gone
