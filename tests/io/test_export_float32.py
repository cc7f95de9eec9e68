"""glTF and USD store 32-bit floats: a value beyond their range is refused with the output
file, the field and the value named, and nothing is written (issue 26, extreme input)."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.io.float32 import as_float32

HIERARCHY = """HIERARCHY
ROOT Hips
{
OFFSET 0 0 0
CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
JOINT Spine
{
OFFSET 0 OFFSET_Y 0
CHANNELS 3 Zrotation Xrotation Yrotation
End Site
{
OFFSET 0 10 0
}
}
}
MOTION
"""


def clip_text(frames: int, huge_frame: int | None, offset: str = "10") -> str:
    rows = []
    for f in range(frames):
        y = "1e300" if f == huge_frame else "90"
        rows.append(f"0 {y} 0 0 0 0 0 {f} 0")
    return HIERARCHY.replace("OFFSET_Y", offset) + f"Frames: {frames}\nFrame Time: 0.0333333\n" + "\n".join(rows) + "\n"


def outputs():
    out = [".glb", ".gltf"]
    try:
        import pxr  # noqa: F401

        out.append(".usda")
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("suffix", outputs())
def test_a_value_past_float32_in_the_motion_is_refused(suffix, tmp_path, capsys):
    frames = 12
    huge = int(np.random.default_rng().integers(frames))
    src = tmp_path / "huge.bvh"
    src.write_text(clip_text(frames, huge))
    out = tmp_path / f"out{suffix}"
    assert main(["export", str(src), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: ") and "translation" in err and f"at frame {huge}" in err and "'Hips'" in err
    assert "Inf" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == [src]  # nothing written, no temporary file left


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_an_offset_past_float32_is_refused(suffix, tmp_path, capsys):
    src = tmp_path / "huge.bvh"
    src.write_text(clip_text(3, None, offset="1e300"))
    out = tmp_path / f"out{suffix}"
    assert main(["export", str(src), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: ") and "'Spine'" in err and "Traceback" not in err
    assert not out.exists()


def test_values_in_range_pass_and_the_message_names_the_place():
    ok = np.array([[1.0, -3e38], [0.0, 2.0]])
    assert as_float32(ok, "f.glb", "x", "frame").dtype == np.float32
    with pytest.raises(ValueError, match=r"f\.glb: x at frame 1 of 'b': nan"):
        as_float32(np.array([[[0.0], [0.0]], [[0.0], [np.nan]]]), "f.glb", "x", "frame", ["a", "b"])
