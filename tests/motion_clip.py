"""A humanoid with motion under its IK, for the onion skin and motion trail tests: a made-up
walk cycle (the hips moving on and bobbing, legs, arms and spine swinging) as its clip, and
the left arm's IK goal keyed along an arc, so the frames drawn need the clip, the timeline's
keys and a solve."""
from __future__ import annotations

import numpy as np

from rigedit import Rig
from rigedit.core.clip import Clip
from rigedit.core.transforms import quat_from_axis_angle, quat_mul

FPS = 30.0
SECONDS = 3.0
STRIDE_HZ = 0.9
SWINGS = {  # joint: (axis, amplitude in radians, phase in cycles)
    "LeftUpLeg": ((1, 0, 0), 0.45, 0.0), "RightUpLeg": ((1, 0, 0), 0.45, 0.5),
    "LeftLeg": ((1, 0, 0), 0.35, 0.25), "RightLeg": ((1, 0, 0), 0.35, 0.75),
    "LeftArm": ((1, 0, 0), 0.35, 0.5), "RightArm": ((1, 0, 0), 0.35, 0.0),
    "Spine": ((0, 1, 0), 0.12, 0.0), "Neck": ((1, 0, 0), 0.08, 0.25),
}


def walk_clip(rig: Rig, seconds: float = SECONDS, fps: float = FPS) -> Clip:
    sk = rig.skeleton
    n = int(round(seconds * fps)) + 1
    t = np.arange(n) / fps
    rest = sk.rest_pose()
    rot = np.broadcast_to(rest.rotations, (n,) + rest.rotations.shape).copy()
    trans = np.broadcast_to(rest.translations, (n,) + rest.translations.shape).copy()
    for name, (axis, amp, phase) in SWINGS.items():
        j = sk.index(name)
        angle = amp * np.sin(2 * np.pi * (STRIDE_HZ * t + phase))
        swing = quat_from_axis_angle(np.broadcast_to(np.asarray(axis, dtype=np.float64), (n, 3)), angle)
        rot[:, j] = quat_mul(rot[:, j], swing)
    trans[:, 0, 2] += 0.9 * t  # on along +z (the character's front)
    trans[:, 0, 1] += 0.025 * np.cos(4 * np.pi * STRIDE_HZ * t)
    return Clip(rot, trans, 1.0 / fps)


def humanoid_with_clip() -> Rig:
    """The bundled humanoid walking; its IK off except the left arm, whose goal is keyed on
    an arc ahead of the chest, so the hand leaves the clip's swing."""
    rig = Rig.default()
    rig.clip = walk_clip(rig)
    tl = rig.timeline
    tl.frame_rate = FPS
    tl.set_range(0.0, SECONDS)
    for name in rig.chain_names:
        rig.chain(name).weight = 0.0
    tl.add_key("left_arm", "weight", 0.0, 1.0)
    for k, time in enumerate(np.linspace(0.0, SECONDS, 4)):
        a = 0.8 * k
        tl.key_target("left_arm", float(time), (0.35 + 0.1 * np.cos(a), 1.25 + 0.15 * np.sin(a), 0.3 + 0.9 * time))
    rig.time = 1.0
    rig.solve()
    return rig
