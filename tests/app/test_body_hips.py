"""The body handle sits on the hips (where the legs branch), not on a root joint far from the
figure; dragging it still moves the root, by as much as the handle moves."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from rigedit.app.document import Document
from rigedit.core.rig import Rig
from rigedit.io.bvh import read_bvh

DATA = Path("/work/shared/data")


def bandai() -> Rig:
    imp = read_bvh(DATA / "dataset-1_walk-right_normal_001.bvh")
    return Rig(imp.skeleton, clip=imp.clip, name="walk")


def test_bandai_body_handle_is_on_the_hips_not_the_zero_root():
    rig = bandai()
    doc = Document(rig)
    for t in (0.0, 1.0):
        doc.set_time(t)
        pos = rig.skeleton.fk_matrices(rig.animated_pose())[0]
        hips = pos[rig.skeleton.index("Hips")]
        np.testing.assert_allclose(doc.body_position(), hips, atol=1e-9)
        # joint_Root stays at the origin while the walk carries the hips away from it.
        assert np.linalg.norm(pos[rig.skeleton.index("joint_Root")]) < 1e-9
    assert np.linalg.norm(doc.body_position()[[0, 2]]) > 0.5


def test_moving_the_body_moves_the_handle_by_as_much():
    rig = bandai()
    doc = Document(rig)
    start, state = doc.body_position(), doc.body_state()
    doc.set_body_live(state, (0.3, 0.0, -0.2))
    np.testing.assert_allclose(doc.body_position() - start, (0.3, 0.0, -0.2), atol=1e-9)


def test_a_rig_whose_root_is_the_hips_keeps_the_root_translation():
    rig = Rig.default()
    doc = Document(rig)
    root = next(j for j, p in enumerate(rig.skeleton.parents) if p < 0)
    np.testing.assert_array_equal(doc.body_position(), rig.skeleton.offsets[root])
