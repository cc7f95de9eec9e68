"""Export round trips (issue 15, item 3): export, import again, same joint positions on every
frame to 1e-6 of the figure, for each shared file and each format."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.io import formats
from rigedit.io.export import export_rig
from rigedit.io.figure import world_positions
from rigedit.io.loaded import load

from .export_checks import DATA, ROUND_TRIP_RTOL, SHARED, Result

FORMATS = [".glb", ".gltf", ".bvh", ".usda", ".usdc"]


def _import(path):
    """(joint names, positions (frames, joints, 3)) as rigedit's import reads the file."""
    if formats.USD.matches(path):
        pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    imp = load(path)
    return imp.skeleton.names, world_positions(imp.skeleton, imp.clip)


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("name", SHARED)
def test_export_then_import_gives_the_same_joint_positions(name, suffix, exports):
    result, out = exports.result(name), exports.file(name, suffix, only_result=True)
    names, positions = _import(out)
    index = {n: i for i, n in enumerate(names)}
    got = positions[:, [index[n] for n in result.names]]
    assert got.shape == result.positions.shape
    np.testing.assert_allclose(got, result.positions, rtol=0, atol=ROUND_TRIP_RTOL * result.size)


def test_a_preset_with_its_clip_round_trips(tmp_path):
    from rigedit.io.preset import save_preset

    result = Result(DATA / "pybvh_bvh_test1.bvh")
    rig = result.rig
    rig.clip_in_preset = True
    preset = tmp_path / "rig.json"
    save_preset(rig, preset)
    again = Result(preset)
    assert again.clip.n_frames == result.clip.n_frames
    for suffix in (".glb", ".bvh"):
        out = tmp_path / f"p{suffix}"
        export_rig(again.rig, out, again.source)
        names, positions = _import(out)
        index = {n: i for i, n in enumerate(names)}
        np.testing.assert_allclose(positions[:, [index[n] for n in again.names]], result.positions, rtol=0,
                                   atol=ROUND_TRIP_RTOL * result.size)
