"""Shared test helpers: a small chain builder and pose comparison.

    from tests.core.helpers import chain_points, chain_skeleton, assert_pose
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


def assert_pose(actual, expected, eps: float, what: str = "pose") -> None:
    """Fail with the worst joint named unless `actual` matches `expected` within `eps`.

    Arrays (..., 3) are compared as positions (max distance per joint). Pose objects are
    compared by rotation (angle between quaternions, sign-blind, radians) and translation.
    """
    if isinstance(actual, Pose) or isinstance(expected, Pose):
        _assert_quats(actual.rotations, expected.rotations, eps, f"{what} rotations")
        assert_pose(actual.translations, expected.translations, eps, f"{what} translations")
        return
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
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
