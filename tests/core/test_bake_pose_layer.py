"""The bake includes the pose layer (issue 25): a rig with a keyed layer over a clip bakes
to frames that show the layer's rotations on the clip's; with no clip, the keyed layer is
baked over the timeline's range; the export writes it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from rigedit.core.bake import bake
from rigedit.core.rig import Rig
from rigedit.core.transforms import quat_mul, quat_normalize
from rigedit.io.bvh import read_bvh
from rigedit.io.export import result_clip

DATA = Path("/work/shared/data")


def same_rotations(a, b, tol=1e-9) -> bool:
    return bool(np.all(np.abs(np.abs(np.sum(a * b, axis=-1)) - 1.0) < tol))


@pytest.fixture(scope="module")
def walk():
    return read_bvh(DATA / "cmu_12_01_walk.bvh")


def test_baked_frames_show_the_keyed_layer_on_the_clip(walk):
    rig = Rig(walk.skeleton, clip=walk.clip)
    rig.add_chain("left_arm", ["LeftArm", "LeftForeArm", "LeftHand"], solver="two_bone")  # weight 1: overrules its joints
    sk = rig.skeleton
    head, arm = sk.index("Head"), sk.index("LeftForeArm")
    d0 = quat_normalize(np.array([0.2, 0.0, 0.0, 1.0]))
    d1 = quat_normalize(np.array([0.0, 0.0, 0.4, 1.0]))
    rig.set_rotation("Head", quat_mul(walk.clip.rotations[0, head], d0))
    rig.key_pose(["Head"], time=0.0)
    t1 = walk.clip.duration / 2
    rig.time = t1
    rig.set_rotation("Head", quat_mul(rig.clip.pose_at(t1).rotations[head], d1))
    rig.key_pose(["Head"])
    rig.set_pose_key_interpolation(0.0, "linear")
    out = bake(rig).clip
    times = np.arange(walk.clip.n_frames) * walk.clip.frame_time
    u = np.clip(times / t1, 0.0, 1.0)
    deltas = Slerp([0.0, 1.0], Rotation.from_quat([rig.pose_layer.rotation_at("Head", 0.0), rig.pose_layer.rotation_at("Head", t1)]))(u).as_quat()
    want = quat_mul(walk.clip.rotations[:, head], deltas)
    assert same_rotations(out.rotations[:, head], want)
    assert not same_rotations(out.rotations[:, head], walk.clip.rotations[:, head], 1e-6)
    # Every frame equals the live solve at its time, from the animated pose (the bake's rule).
    f = int(np.random.default_rng(25).integers(1, walk.clip.n_frames - 1))
    rig.time = times[f]
    rig.reset()
    rig.solve()
    assert same_rotations(out.rotations[f], rig.pose.rotations)
    assert not same_rotations(out.rotations[:, arm], walk.clip.rotations[:, arm], 1e-6)  # the IK did turn the arm


def test_without_a_clip_the_keyed_layer_is_baked_over_the_timeline_and_exported():
    rig = Rig.default()
    for ch in rig.chains:
        ch.weight = 0.0
    q0 = quat_normalize(np.array([0.0, 0.0, 0.0, 1.0]))
    q1 = quat_normalize(np.array([0.0, 0.5, 0.0, 0.8]))
    rig.set_rotation("Head", q0)
    rig.key_pose(time=0.0)
    rig.time = 1.0
    rig.set_rotation("Head", q1)
    rig.key_pose()
    rig.timeline.set_range(0.0, 1.0)
    out = result_clip(rig)
    fps = rig.timeline.frame_rate
    assert out.n_frames == int(round(fps)) + 1
    head = rig.skeleton.index("Head")
    half = int(round(fps / 2))
    want = Slerp([0.0, 1.0], Rotation.from_quat([q0, q1]))([0.5]).as_quat()[0]  # eased: 0.5 maps to 0.5
    assert same_rotations(out.rotations[half, head], want)
    assert same_rotations(out.rotations[-1, head], q1)
