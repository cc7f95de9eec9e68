"""`rigedit export` on the command line: formats by suffix, messages, exit codes."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.io.bvh import read_bvh
from rigedit.io.figure import figure_size, world_positions

from .export_checks import DATA


@pytest.mark.parametrize("suffix", [".glb", ".gltf", ".bvh", ".usda"])
def test_export_writes_the_format_its_suffix_names(suffix, tmp_path, capsys):
    if suffix == ".usda":
        pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    out = tmp_path / f"walk{suffix}"
    assert main(["export", str(DATA / "cmu_12_01_walk.bvh"), "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"wrote {out}" in captured.out and "524 frames at 120 fps" in captured.out
    assert "100%" in captured.err  # the progress bar ends full
    assert out.stat().st_size > 0


def test_quiet_has_no_progress_bar(tmp_path, capsys):
    out = tmp_path / "w.bvh"
    assert main(["export", str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""
    a, b = read_bvh(DATA / "pybvh_bvh_test1.bvh"), read_bvh(out)
    pa, pb = world_positions(a.skeleton, a.clip), world_positions(b.skeleton, b.clip)
    np.testing.assert_allclose(pb, pa, atol=1e-6 * figure_size(a.skeleton, a.clip))


def test_a_preset_without_a_clip_exports_its_pose(tmp_path, capsys):
    from rigedit.core.rig import BUNDLED_PRESETS

    preset = BUNDLED_PRESETS / "humanoid.json"  # no clip (an import's preset keeps its clip)
    out = tmp_path / "pose.glb"
    assert main(["export", str(preset), "-o", str(out), "-q"]) == 0
    assert "1 frame at" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["{data}/cmu_12_01_walk.bvh", "-o", "{tmp}/out.fbx"], "cannot tell the format from '.fbx'"),
        (["{tmp}/missing.bvh", "-o", "{tmp}/out.glb"], "missing.bvh"),
        (["{data}/CesiumMan.glb", "--animation", "nope", "-o", "{tmp}/o.glb"], "no animation named 'nope'"),
        (["{data}/cmu_12_01_walk.bvh", "--animation", "x", "-o", "{tmp}/o.glb"], "a BVH file holds one motion"),
        (["{data}/SOURCES.md", "-o", "{tmp}/o.glb"], "rigedit exports from a preset"),
    ],
)
def test_errors_name_the_file_and_the_problem(args, message, tmp_path, capsys):
    argv = ["export"] + [a.format(data=DATA, tmp=tmp_path) for a in args]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert not any(p.name.startswith("o") for p in tmp_path.iterdir())
