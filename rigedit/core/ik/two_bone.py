"""Analytic two-bone IK (an arm or a leg): root, mid joint (elbow/knee), end (hand/foot).

The solve itself is `two_bone_kernel` (compiled, shared by every two-bone path); this is the
single-chain entry point: argument checks and the call. The kernel is imported on the first
solve, not with this module: numba's import costs about a second, which a script or an
editor start-up that never solves should not pay.

A call is kept cheap (it runs once per limb per dragged frame): numpy float64 (3,) inputs
go straight to the kernel, which checks shapes and finiteness itself. Anything else (tuples,
lists) is converted here first, all five points in one array: handed to the kernel, such
arguments fail its one signature, and numba's refusal alone costs 0.2-0.3 ms. Only the root
is looked at, to keep the common call at one check: arrays of another kind (float32) or a mix
pay that refusal, then convert on the slow path, which also names what is wrong.
"""
from __future__ import annotations

from math import isfinite
from typing import NamedTuple

import numpy as np

# Re-exported: callers take the codes with the solve they describe.
from .two_bone_codes import AT_ROOT, BAD_EPS, BAD_SHAPE, CONE, HINGE, NO_LIMIT, OK, ON_LINE, OVERFLOW, REACHED, STRAIGHT_RAD, TOO_FAR  # noqa: F401

_empty = np.empty
_ND = np.ndarray
_tuple_new = tuple.__new__
_kernel = None


class TwoBoneResult(NamedTuple):
    mid: np.ndarray  # (3,) new world position of the mid joint
    end: np.ndarray  # (3,) new world position of the end joint
    reached: bool  # |a - b| <= |target - root| <= a + b


def kernel():
    """The compiled two-bone module, imported on first use: numba's import costs ~1 s, which
    only a solve should pay (not `rigedit --help`)."""
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
    if pole is None:
        pole = root  # a pole on the root lies on the reach line: it keeps the bend plane
    if root.__class__ is not _ND:  # one check on the hot path: arrays are the common call
        root, mid, end, target, pole = _rows(root, mid, end, target, pole)
    new_mid, new_end = _empty(3), _empty(3)
    try:
        status = k.single(root, mid, end, target, pole, new_mid, new_end)
        fast = status <= REACHED and eps > 0.0
    except (TypeError, AttributeError):  # not (3,) contiguous writable arrays (or eps not a number)
        fast = False
    if not fast:
        return _slow(root, mid, end, target, pole, eps)
    # tuple.__new__ skips NamedTuple's Python-level __new__ (a third of a microsecond here).
    return _tuple_new(TwoBoneResult, (new_mid, new_end, status == REACHED))


def _rows(*points):
    """The points as rows of one float64 array (one conversion, not five), or as given
    when they do not make one: the slow path then says which is wrong."""
    try:
        a = np.array(points)
    except (TypeError, ValueError):
        return points
    if a.shape != (5, 3) or a.dtype.kind not in "biuf":
        return points
    a = a.astype(np.float64, copy=False)
    return a[0], a[1], a[2], a[3], a[4]


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
