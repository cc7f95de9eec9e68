"""Repairs of a span turned away (a pole flip, a joint turned away and back): every frame of
the span, its first and last included, gets the turn the frames either side of it agree on.

- A limb (pole_flip): the limb is turned about its root -> end line, so the end stays where it
  was, by the part of the root joint's rotation about that line that differs from the
  rotation slerped across the span from the frame before it to the frame after it. That
  works on a straight limb too (its knee has no side, but its foot points the wrong way) and
  joins both neighbours without a step: the span blends from the one into the other. When the
  span turned the root about another line too (SWING_DEG or more), the end moved with it:
  the root gets the slerped rotation outright. A middle joint turned away (cause turned_mid)
  gets its own slerped rotation.
- Any other joint (a discontinuity with cause turned_span): its rotation on the span is the
  one slerped across it.
A span at the clip's start or end has one neighbour: its rotation is held.
"""
from __future__ import annotations

import numpy as np

from ..transforms import quat_angle, quat_conj, quat_mul, quat_normalize, quat_rotate, quat_slerp

SWING_DEG = 15.0


def across(rot: np.ndarray, joint: int, a: int, b: int, f: int, first: int) -> np.ndarray:
    """The joint's local rotation at f slerped from frame a - 1 to b + 1."""
    n = len(rot)
    before, after = a - 1, b + 1
    if before < first and after >= n:
        return rot[f, joint]
    if before < first:
        return rot[after, joint]
    if after >= n:
        return rot[before, joint]
    return quat_slerp(rot[before, joint], rot[after, joint], (f - before) / (after - before))


def untwist(work, limb, a: int, b: int) -> None:
    """Turn the limb on frames a..b about its root -> end line back onto its neighbours' turn;
    when the span turned the limb's root about another line too (SWING_DEG or more: a popped
    thigh, not a flipped knee), give the root its neighbours' rotation outright."""
    first = work.m.first
    turns = []
    for f in range(a, b + 1):
        pos, q = work.fk(f)
        axis = quat_rotate(quat_conj(work.parent_q(q, limb)), pos[limb.end] - pos[limb.root])
        length = float(np.linalg.norm(axis))
        want = across(work.rot, limb.root, a, b, f, first)
        d = quat_mul(work.rot[f, limb.root], quat_conj(want))  # what the span adds, in the parent frame
        twist = np.concatenate([(d[:3] @ axis) * axis / max(length, 1e-300) ** 2, d[3:]])
        norm = float(np.linalg.norm(twist))
        turns.append((f, want, twist / norm if norm > 1e-12 and length > 1e-12 else None, d))
    swing = max(float(np.degrees(quat_angle(quat_mul(d, quat_conj(t))))) if t is not None else 180.0 for _, _, t, d in turns)
    for f, want, twist, _ in turns:
        rot = work.rot[f].copy()
        if swing >= SWING_DEG:
            rot[limb.root] = want
        else:
            rot[limb.root] = quat_normalize(quat_mul(quat_conj(twist), work.rot[f, limb.root]))
        work.write(f, rot)


def unturn(work, joint: int, a: int, b: int) -> None:
    """Give the joint on frames a..b the rotation slerped across the span."""
    for f in range(a, b + 1):
        rot = work.rot[f].copy()
        rot[joint] = across(work.rot, joint, a, b, f, work.m.first)
        work.write(f, rot)
