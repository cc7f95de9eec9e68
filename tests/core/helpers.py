"""Shared test helpers: a small chain builder and pose comparison.

    from tests.core.helpers import chain_points, chain_skeleton, humanoid60, assert_pose
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from rigedit.core.skeleton import Pose, Skeleton


def chain_points(lengths: Sequence[float], directions=None, origin=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Joint positions (n + 1, 3) of a chain with these bone lengths.

    `directions` (n, 3) gives each bone's direction (normalised here; a zero row keeps the
    bone zero-length-safe by pointing it along +X); by default the chain runs along +X.
    """
    lengths = np.asarray(lengths, dtype=np.float64)
    if directions is None:
        directions = np.tile([1.0, 0.0, 0.0], (len(lengths), 1))
    d = np.asarray(directions, dtype=np.float64).reshape(len(lengths), 3)
    n = np.linalg.norm(d, axis=1, keepdims=True)
    d = np.where(n > 0, d / np.where(n > 0, n, 1.0), [1.0, 0.0, 0.0])
    steps = d * lengths[:, None]
    return np.asarray(origin, dtype=np.float64) + np.concatenate(([[0.0, 0.0, 0.0]], np.cumsum(steps, axis=0)))


def chain_skeleton(offsets: Sequence[Sequence[float]], names: Sequence[str] | None = None) -> Skeleton:
    """A single-chain skeleton: joint i is the child of joint i - 1, with these local offsets."""
    offsets = [tuple(map(float, o)) for o in offsets]
    names = list(names) if names is not None else [f"j{i}" for i in range(len(offsets))]
    return Skeleton.from_joints([(n, None if i == 0 else names[i - 1], o) for i, (n, o) in enumerate(zip(names, offsets))])


def humanoid60() -> Skeleton:
    """A humanoid-like 60-joint tree, depth 11 (hips to finger tips): spine, neck, head,
    eyes and jaw, arms with twist bones and five three-joint fingers, legs with toes.
    The size the FK benchmark targets (benchmarks/bench_ik.py uses it too)."""
    joints = []

    def add(name, parent, offset):
        joints.append((name, parent, offset))

    add("Hips", None, (0, 1.0, 0))
    add("Spine", "Hips", (0, 0.1, 0))
    add("Spine1", "Spine", (0, 0.12, 0))
    add("Spine2", "Spine1", (0, 0.12, 0))
    add("Neck", "Spine2", (0, 0.15, 0))
    add("Head", "Neck", (0, 0.1, 0))
    add("HeadEnd", "Head", (0, 0.18, 0))
    add("Jaw", "Head", (0, -0.02, 0.05))
    add("LeftEye", "Head", (0.03, 0.06, 0.08))
    add("RightEye", "Head", (-0.03, 0.06, 0.08))
    for side, sx in (("Left", 1), ("Right", -1)):
        add(f"{side}Shoulder", "Spine2", (sx * 0.05, 0.12, 0))
        add(f"{side}Arm", f"{side}Shoulder", (sx * 0.12, 0, 0))
        add(f"{side}ArmTwist", f"{side}Arm", (sx * 0.14, 0, 0))
        add(f"{side}ForeArm", f"{side}Arm", (sx * 0.28, 0, 0))
        add(f"{side}Hand", f"{side}ForeArm", (sx * 0.25, 0, 0))
        for f, finger in enumerate(("Thumb", "Index", "Middle", "Ring", "Pinky")):
            parent = f"{side}Hand"
            for k in range(3):
                name = f"{side}{finger}{k + 1}"
                add(name, parent, (sx * (0.04 if k == 0 else 0.03), 0, 0.02 * (f - 2) if k == 0 else 0))
                parent = name
        add(f"{side}UpLeg", "Hips", (sx * 0.1, -0.05, 0))
        add(f"{side}Leg", f"{side}UpLeg", (0, -0.42, 0))
        add(f"{side}Foot", f"{side}Leg", (0, -0.42, 0))
        add(f"{side}ToeBase", f"{side}Foot", (0, -0.05, 0.12))
        add(f"{side}ToeEnd", f"{side}ToeBase", (0, 0, 0.06))
    return Skeleton.from_joints(joints)


def assert_pose(actual, expected, eps: float, what: str = "pose") -> None:
    """Fail with the worst joint named unless `actual` matches `expected` within `eps`.

    Arrays (..., 3) are compared as positions (max distance per joint), arrays (..., 4) as
    quaternions (rotation angle between them, sign-blind, radians). Pose objects are
    compared by rotation and translation.
    """
    if isinstance(actual, Pose) or isinstance(expected, Pose):
        _assert_quats(actual.rotations, expected.rotations, eps, f"{what} rotations")
        assert_pose(actual.translations, expected.translations, eps, f"{what} translations")
        return
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape[-1:] == (4,):
        _assert_quats(a, e, eps, what)
        return
    assert a.shape == e.shape, f"{what}: shape {a.shape} != expected {e.shape}"
    assert np.all(np.isfinite(a)), f"{what}: non-finite values {a}"
    dist = np.linalg.norm((a - e).reshape(-1, 3), axis=1)
    worst = int(np.argmax(dist)) if dist.size else 0
    assert dist.size == 0 or dist[worst] <= eps, (
        f"{what}: joint {worst} off by {dist[worst]:.3g} > {eps:.3g}: got {a.reshape(-1, 3)[worst]}, "
        f"expected {e.reshape(-1, 3)[worst]}"
    )


def _assert_quats(actual, expected, eps: float, what: str) -> None:
    a = np.asarray(actual, dtype=np.float64).reshape(-1, 4)
    e = np.asarray(expected, dtype=np.float64).reshape(-1, 4)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != expected {e.shape}"
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    e = e / np.linalg.norm(e, axis=1, keepdims=True)
    e = np.where(np.sum(a * e, axis=1, keepdims=True) < 0.0, -e, e)  # q and -q are one rotation
    # Rotation angle between them; atan2 stays accurate for tiny angles where acos does not.
    angle = 4.0 * np.arctan2(np.linalg.norm(a - e, axis=1), np.linalg.norm(a + e, axis=1))
    worst = int(np.argmax(angle)) if angle.size else 0
    assert angle.size == 0 or angle[worst] <= eps, (
        f"{what}: joint {worst} off by {angle[worst]:.3g} rad > {eps:.3g}: got {a[worst]}, expected {e[worst]}"
    )
