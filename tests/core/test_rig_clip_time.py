"""Rig.clip and Rig.time, public: the clip under the IK with where it came from, and the
time it is taken at (issue 14 item 1; saving them is tests/io/test_clip_file.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip, ClipSource
from rigedit.core.rig import Rig

from .helpers import chain_skeleton


def rig_with_clip(frames: int = 9) -> Rig:
    sk = chain_skeleton([(0, 1, 0), (0, 0.5, 0), (0, 0.5, 0)])
    rot = np.tile(sk.rest_rotations, (frames, 1, 1))
    angles = np.linspace(0.0, 1.0, frames)
    rot[:, 1] = np.stack([np.zeros(frames), np.zeros(frames), np.sin(angles / 2), np.cos(angles / 2)], axis=1)
    trans = np.tile(sk.offsets, (frames, 1, 1))
    trans[:, 0, 0] = np.linspace(0.0, 0.8, frames)
    src = ClipSource("take_01.bvh", "+z", 0.01, None)
    return Rig(sk, clip=Clip(rot, trans, 0.1, src))


@settings(max_examples=30, deadline=None)
@given(t=st.floats(-1.0, 2.0, allow_nan=False))
def test_the_animated_pose_is_the_clip_at_the_time(t):
    rig = rig_with_clip()
    rig.time = t
    assert rig.time == t
    want = rig.clip.pose_at(t)
    got = rig.animated_pose()
    np.testing.assert_allclose(got.rotations, want.rotations, atol=1e-12)
    np.testing.assert_allclose(got.translations, want.translations, atol=1e-12)
    rig.reset()
    np.testing.assert_allclose(rig.world_positions(), rig.skeleton.fk_matrices(want)[0], atol=1e-12)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "soon"])
def test_a_time_that_is_no_number_is_refused(bad):
    rig = rig_with_clip()
    with pytest.raises((ValueError, TypeError), match="time"):
        rig.time = bad
    assert rig.time == 0.0


def test_the_source_travels_with_the_clip():
    rig = rig_with_clip()
    assert rig.copy().clip.source == rig.clip.source
    rig.clip = rig.clip  # re-assigned (the editor does so when the body moves): still its source
    assert rig.clip.source.file == "take_01.bvh"
    text = rig.clip.describe()
    assert text.startswith("9 frames at 10 fps") and "take_01.bvh (up +z, scale 0.01 m/unit)" in text
    assert ClipSource("a.glb", "+y", None, "Walk").describe() == "a.glb (animation Walk, up +y)"
    assert Clip(rig.clip.rotations, rig.clip.translations, 0.1).source is None
