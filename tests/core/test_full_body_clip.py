"""Full-body IK over a clip (issue 16): the animated pose is what full body starts from and
blends with, frame by frame, and joints no chain solves follow the clip."""
from __future__ import annotations

import numpy as np

from rigedit.core import scalar_quat as sq
from rigedit.core.clip import Clip
from tests.core.full_body_cases import humanoid


def _with_clip(frames: int = 5):
    rig = humanoid()
    rest = rig.skeleton.rest_pose()
    rot = np.tile(rest.rotations, (frames, 1, 1))
    trans = np.tile(rest.translations, (frames, 1, 1))
    names = list(rig.skeleton.names)
    shoulder = names.index("LeftShoulder")
    for f in range(frames):
        a = 0.1 * f  # the clavicle lifts over the clip: no chain solves it
        rot[f, shoulder] = sq.qmul((np.sin(a / 2), 0.0, 0.0, np.cos(a / 2)), tuple(rot[f, shoulder]))
        trans[f, 0, 2] += 0.02 * f  # the hips walk forward
    rig.clip = Clip(rot, trans, 0.1)
    rig.full_body = True
    return rig, names


def test_weight_zero_over_a_clip_is_the_clip_exactly():
    rig, _ = _with_clip()
    for name in rig.chain_names:
        rig.chain(name).weight = 0.0
    for t in (0.0, 0.1, 0.25, 0.4):
        rig.time = t
        rig.solve()
        want = rig.clip.pose_at(t)
        assert np.array_equal(rig.pose.rotations, want.rotations)
        assert np.array_equal(rig.pose.translations, rig.animated_pose().translations)


def test_unsolved_joints_follow_the_clip_under_full_body():
    rig, names = _with_clip()
    shoulder = names.index("LeftShoulder")
    goal = rig.world_position("LeftArm") + np.array([0.0, -0.35, 0.6])
    rig.chain("left_arm").target = goal
    for t in (0.0, 0.1, 0.2, 0.3, 0.4):
        rig.time = t
        assert rig.solve()["left_arm"].reached
        np.testing.assert_allclose(rig.pose.rotations[shoulder], rig.clip.pose_at(t).rotations[shoulder], atol=1e-15)
        assert np.linalg.norm(rig.world_position("LeftHand") - goal) <= rig.chain("left_arm").tolerance
