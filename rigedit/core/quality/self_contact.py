"""Self-penetration: frames in which a hand, forearm, shin or foot is inside the torso or the
other leg, from capsules fitted to the bones (capsules.py).

Limb points: SAMPLES points along the forearm (elbow to wrist) and the shin (knee to ankle),
the hand's joints (wrist and the distinct joints below it), and points along the foot's bones
(ankle to toe to toe end). An arm's points are tested against the torso and both legs, a leg's
against the torso and the other leg. A point counts once it is more than INSIDE_TOLERANCE (of
the height) inside. Reported: the share of frames with any point inside, the share of limb
points inside over all frames, the deepest, and the share of frames per part.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .body import Body
from .capsules import Capsule, along, body_capsules, depth_inside

SAMPLES = 5
INSIDE_TOLERANCE = 0.005  # of the height (9 mm on 1.75 m): a hand resting on a thigh touches, it is not inside
PARTS = ("hand", "forearm", "shin", "foot")


@dataclass
class SelfPenetration:
    frame_share: float  # frames with a limb point inside / frames of motion
    point_share: float  # limb points inside / limb points, over the frames of motion
    deepest: float  # height units (0 when none)
    deepest_frame: int | None
    depth: np.ndarray  # (frames,) the deepest limb point inside, height units (0 when none)
    parts: dict[str, float]  # part -> share of frames it is inside
    deepest_joint: int | None = None  # the limb joint nearest the deepest point, on deepest_frame (None when none)


def _limb_points(body: Body) -> dict[str, tuple[np.ndarray, str]]:
    """part name ("left_hand"...) -> ((frames, points, 3), the limb's side and kind)."""
    pos, out = body.pos, {}
    for side, arm in body.arms.items():
        out[f"{side}_forearm"] = (along(pos, arm[-2], arm[-1], SAMPLES), f"{side}_arm")
        out[f"{side}_hand"] = (pos[:, body.hands[side]], f"{side}_arm")
    for side, leg in body.legs.items():
        out[f"{side}_shin"] = (along(pos, leg[-2], leg[-1], SAMPLES), f"{side}_leg")
        foot = body.feet[side]
        chain = [pos[:, [foot[0]]]] + [along(pos, int(body.skeleton.parents[j]), j, SAMPLES) for j in foot[1:]]
        out[f"{side}_foot"] = (np.concatenate(chain, axis=1), f"{side}_leg")
    return out


def _obstacles(capsules: list[Capsule], limb: str) -> list[Capsule]:
    # An arm meets the torso and both legs; a leg the torso and the other leg (its own thigh
    # holds its shin).
    return [c for c in capsules if c.part != limb]


def _limb_joints(body: Body, limb: str) -> list[int]:
    """The joints of a limb ("left_arm") and of its hand or foot: where a point of it is marked."""
    side, kind = limb.split("_")
    return (body.arms[side] + body.hands[side]) if kind == "arm" else (body.legs[side] + body.feet[side])


def self_penetration(body: Body) -> SelfPenetration:
    n, s = body.n_frames, body.first
    capsules = body_capsules(body.spine, body.legs, body.height)
    depth = np.zeros(n)
    at = np.zeros((n, 3))  # the deepest limb point inside on each frame
    joint = np.full(n, -1)  # the limb joint nearest it
    inside_points, total_points = 0, 0
    part_frames = {p: np.zeros(n, bool) for p in PARTS}
    for name, (points, limb) in _limb_points(body).items():
        d = depth_inside(points, body.pos, _obstacles(capsules, limb)) / body.height
        d[:s] = -np.inf
        inside = d > INSIDE_TOLERANCE
        inside_points += int(inside[s:].sum())
        total_points += inside[s:].size
        part_frames[name.split("_", 1)[1]] |= inside.any(axis=1)
        d_in = np.where(inside, d, 0.0)
        k = d_in.argmax(axis=1)
        deeper = d_in[np.arange(n), k] > depth
        if deeper.any():
            p = points[np.arange(n), k][deeper]
            joints = _limb_joints(body, limb)
            near = np.linalg.norm(body.pos[deeper][:, joints] - p[:, None], axis=-1).argmin(axis=1)
            at[deeper], joint[deeper] = p, np.asarray(joints)[near]
        depth = np.maximum(depth, d_in.max(axis=1))
    moving = max(n - s, 1)
    any_inside = depth > 0.0
    f = int(np.argmax(depth)) if any_inside.any() else None
    return SelfPenetration(float(any_inside.sum()) / moving, inside_points / total_points if total_points else 0.0,
                           float(depth.max(initial=0.0)), f, depth,
                           {p: float(m.sum()) / moving for p, m in part_frames.items()},
                           None if f is None else int(joint[f]))
