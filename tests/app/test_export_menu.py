"""File > Export (issue 15): glTF, USD or BVH by the file name's suffix, the imported file's
document kept in a glTF export."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib
import pytest

from rigedit.app.import_actions import install_import_actions
from rigedit.core.autochains import propose_chains
from rigedit.core.rig import Rig
from rigedit.io.export import result_clip
from rigedit.io.figure import figure_size, world_positions
from rigedit.io.gltf import read_gltf

DATA = Path("/work/shared/data")
CESIUM = DATA / "CesiumMan.glb"


@pytest.fixture
def cesium_window(make_window):
    """A window already showing CesiumMan's skeleton (see test_import.walk_window for why)."""
    skeleton = read_gltf(CESIUM).skeleton
    rig = Rig(skeleton)
    p = propose_chains(skeleton)[0]
    rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)  # something to solve
    window = make_window(rig)
    if not hasattr(window, "importer"):
        install_import_actions(window)
    return window


def test_export_of_an_imported_gltf_keeps_its_document(cesium_window, tmp_path, errors):
    window = cesium_window
    assert window.importer.import_file(CESIUM, ask=False)
    rig = window.rig
    # Imported goals follow the clip; a goal moved mid-clip keys an offset the IK then adds.
    rig.time = rig.clip.n_frames * rig.clip.frame_time / 2
    arm = rig.chain("left_arm")
    arm.target = np.asarray(arm.target) + [0.0, 0.05, 0.0]
    out = tmp_path / "cesium.glb"
    assert window.importer.export_file(out)
    assert errors == []
    before, after = pygltflib.GLTF2().load(str(CESIUM)), pygltflib.GLTF2().load(str(out))
    assert len(after.meshes) == len(before.meshes) and [s.joints for s in after.skins] == [s.joints for s in before.skins]
    assert len(after.animations) == len(before.animations) + 1
    # The first animation is the rig's result (its chains' IK over the clip): re-imported, it
    # is that result, and differs from the clip as recorded where the IK moved limbs.
    result = result_clip(rig)
    again = read_gltf(out)
    expected = world_positions(rig.skeleton, result)
    index = [again.skeleton.index(n) for n in rig.skeleton.names]
    got = world_positions(again.skeleton, again.clip)[:, index]
    np.testing.assert_allclose(got, expected, atol=1e-5 * figure_size(rig.skeleton, result))
    assert np.abs(world_positions(rig.skeleton, rig.clip) - expected).max() > 1e-3
    assert "glTF" in window.statusBar().currentMessage()


def test_an_unknown_suffix_is_refused_in_the_error_dialog(cesium_window, tmp_path, errors):
    out = tmp_path / "x.fbx"
    assert not cesium_window.importer.export_file(out)
    (title, text), = errors
    assert title == "Cannot export" and "cannot tell the format" in text and not out.exists()
