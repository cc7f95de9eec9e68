"""Analytic two-bone IK (an arm or a leg): root, mid joint (elbow/knee), end (hand/foot).

The solve itself is `two_bone_kernel` (compiled, shared by every two-bone path); this is the
single-chain entry point: argument checks and the call. The kernel is imported on the first
solve, not with this module: numba's import costs about a second, which a script or an
editor start-up that never solves should not pay.

A call is kept cheap (it runs once per limb per dragged frame): numpy float64 (3,) inputs
go straight to the kernel, which checks shapes and finiteness itself; anything else (lists,
ints, float32, read-only arrays) fails the kernel's one signature and is converted here,
on the slow path that also names what is wrong.
"""
from __future__ import annotations

from math import isfinite
from typing import NamedTuple

import numpy as np

# A direction whose sine against a line is below this counts as on the line: the pole on
# the root-target axis, a straight limb. Float64 round-off of a direction is ~1e-16; 1e-9
# leaves a wide margin while still taking any bend a user could see (1e-9 rad is a
# nanometre of elbow offset per metre of arm).
ON_LINE = 1e-9
# Squares of lengths past this overflow float64; no rig is 1e150 m across.
TOO_FAR = 1e150
# A target nearer the root than this fraction of the limb counts as on it: the triangle's
# products of lengths would underflow into subnormals and lose the bone lengths.
AT_ROOT = 1e-100
# A limb bent less than this (radians) is straight: it has no bend plane to turn a hinge
# onto, so the hinge keeps the axis the upper bone carries. 1e-9 rad is a nanometre of knee
# offset on a metre of leg, far under anything visible, far over round-off of a straight limb.
STRAIGHT_RAD = 1e-9
# The middle joint's limit as the kernel takes it (kind, axis, lo, hi): see two_bone_kernel.mid_limit.
NO_LIMIT, CONE, HINGE = 0, 1, 2
# What the kernel's entry points return: solved (and for `single`, whether |a - b| <= d <=
# a + b); a limb or target past TOO_FAR or a non-finite coordinate; the rig limb's tolerance
# not positive; an input not 3 numbers.
OK, REACHED, OVERFLOW, BAD_EPS, BAD_SHAPE = 0, 1, 2, 3, 4

_empty = np.empty
_tuple_new = tuple.__new__
_kernel = None


class TwoBoneResult(NamedTuple):
    mid: np.ndarray  # (3,) new world position of the mid joint
    end: np.ndarray  # (3,) new world position of the end joint
    reached: bool  # |a - b| <= |target - root| <= a + b


def kernel():
    """The compiled two-bone module (imported on first use)."""
    global _kernel
    if _kernel is None:
        from . import two_bone_kernel

        _kernel = two_bone_kernel
    return _kernel


def two_bone_ik(root, mid, end, target, pole=None, *, eps: float = 1e-6) -> TwoBoneResult:
    """Solve a two-bone limb for `target`; see docs/ARCHITECTURE.md (Contracts) for the contract.

    root, mid, end: current world positions (the bone lengths are taken from them);
    target: where the end should go; pole: a point the mid joint should bend toward, or
    None to keep the current bend plane. `eps` is the accuracy promised for reachable
    targets; the solve hits them to round-off, well inside it.
    """
    k = _kernel or kernel()
    new_mid, new_end = _empty(3), _empty(3)
    try:
        # No pole is a pole on the root: on the reach line, it keeps the bend plane.
        status = k.single(root, mid, end, target, root if pole is None else pole, new_mid, new_end)
        fast = status <= REACHED and eps > 0.0
    except (TypeError, AttributeError):  # not float64 (3,) arrays (or eps not a number)
        fast = False
    if not fast:
        return _slow(root, mid, end, target, pole, eps)
    # tuple.__new__ skips NamedTuple's Python-level __new__ (a third of a microsecond here).
    return _tuple_new(TwoBoneResult, (new_mid, new_end, status == REACHED))


def _slow(root, mid, end, target, pole, eps) -> TwoBoneResult:
    """Convert what the kernel's signature refused, or raise a ValueError naming it."""
    args = [_point(name, v) for name, v in (("root", root), ("mid", mid), ("end", end), ("target", target))]
    args.append(args[0] if pole is None else _point("pole", pole))
    if not (isinstance(eps, (int, float, np.integer, np.floating)) and not isinstance(eps, bool) and isfinite(eps) and eps > 0.0):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    new_mid, new_end = _empty(3), _empty(3)
    status = kernel().single(*args, new_mid, new_end)
    if status == OVERFLOW:
        # Every number finite, yet their squared lengths overflow.
        raise ValueError(f"limb or target too large to solve: lengths past {TOO_FAR:g} m overflow their squares")
    return _tuple_new(TwoBoneResult, (new_mid, new_end, status == REACHED))


def _point(name: str, v) -> np.ndarray:
    try:
        arr = np.asarray(v)
        if arr.dtype.kind not in "biuf":
            raise TypeError
        # A fresh writable float64 copy: numpy float32 would otherwise carry the whole
        # solve in single precision, and the kernel takes no read-only or strided arrays.
        arr = np.array(arr, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 3 real numbers, got {v!r}") from None
    if arr.shape != (3,):
        raise ValueError(f"{name} must be a point of shape (3,), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has non-finite coordinates: {v!r}")
    return arr
