"""FABRIK (forward and backward reaching IK) for one chain of points.

    r = fabrik(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10,
               limits=None, pole=None, arc_start=True)

The contract (docs/ARCHITECTURE.md, Contracts): r.points is a new (n, 3) float64 array, points[0] never moves and
bone lengths are kept (1e-9 relative, 1e-12 on chains of ordinary scale); out of reach the
chain is straight toward the target with r.iterations == 0; otherwise backward-then-forward
passes, warm-started from the given points, until within tolerance, the cap, or too little
progress over several passes (fabrik_loop.STALL_PASSES). r.errors holds the best tip
error after each pass and never grows.

A straight start (a bind pose) is first bent into an arc toward the target, or toward the
`pole` side, and kept when that is nearer; `arc_start=False` gives plain FABRIK.

`limits`: None; {joint index: HingeLimit | ConeLimit}; a list with one limit-or-None per
point; or a ChainLimits, which also says where the frames are (chain_frames.py). A limit
acts on the bone leaving its joint (index into `points`; one on the tip is ignored) and is
enforced in every forward pass. With limits the start pose is first conformed to them, and
there is no straight out-of-reach shortcut (a straight chain may not be allowed); when a
pass stalls, CCD sweeps are tried too (FABRIK alone stalls when a hinge plane has to turn).
r.frames gives each bone's frame at the result, (n - 1, 4), to pass back as
ChainLimits.frames when warm-starting (None when no limit is in play). `limits` may also be
a LimitPlan (chain_frames.plan_limits), validated once for a caller solving the same chain
again and again.

All the work is one compiled call (fabrik_kernel.py; single_kernel.py with limits, which
also prepares the limits' frames); this module reads the input (limit_args.py the limits)
and names what is wrong with it.
"""
from __future__ import annotations

from math import isfinite

import numpy as np

from .limit_args import limit_args, refuse


class FabrikResult:
    """fabrik()'s answer: points (n, 3), iterations, error (|tip - target|), errors (tuple:
    the best tip error after each pass, len == iterations), reached (error <= tolerance),
    frames ((n - 1, 4) bone frames, only with limits; else None).

    `errors` may be given as the kernel's buffer (an array whose first `iterations` items
    are the errors): the tuple is built from it on first read. Building it costs a tenth
    of a solve, and most callers never look."""

    __slots__ = ("points", "iterations", "error", "reached", "frames", "_errors")

    def __init__(self, points, iterations, error, errors, reached, frames=None):
        self.points = points
        self.iterations = iterations
        self.error = error
        self._errors = errors
        self.reached = reached
        self.frames = frames

    @property
    def errors(self) -> tuple:
        e = self._errors
        if type(e) is not tuple:
            e = self._errors = tuple(e[: self.iterations].tolist())
        return e

    @errors.setter
    def errors(self, value) -> None:
        self._errors = tuple(value)

    def __repr__(self) -> str:
        return (
            f"FabrikResult(points={self.points!r}, iterations={self.iterations!r}, error={self.error!r}, "
            f"errors={self.errors!r}, reached={self.reached!r}, frames={self.frames!r})"
        )


_NO_VEC = np.zeros(3)
_NO_LENGTHS = np.zeros(0)
_MAX = float.fromhex("0x1.fffffffffffffp+1023")
_ARC_START = 4  # fabrik_kernel.ARC_START (that module is imported on first use only)
# Module globals for the common call's lookups: `np.empty` is two lookups, these one.
_ndarray, _empty = np.ndarray, np.empty


def _free_kernel(*args):
    """fabrik_kernel.fabrik_free, which this stand-in imports on the first call and puts in
    its place: the common call then finds the compiled function in one lookup."""
    global _free_kernel
    _free_kernel = fabrik_kernel().fabrik_free
    return _free_kernel(*args)


def fabrik(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None, pole=None, arc_start=True):
    # The common call (float64 arrays, default options) goes straight to the kernel, which
    # checks shapes and finiteness itself and refuses (a status, or numba's TypeError for an
    # array of another kind or shape) what the careful path below must look at and name.
    # Every test here is a type or identity check: the Python side of this path (checks,
    # the two arrays, the result) is a fifth of a solve's time.
    if (
        limits is None and lengths is None and pole is None and type(points) is _ndarray
        and type(target) is _ndarray and type(tolerance) is float and type(max_iterations) is int
        and 0.0 <= tolerance <= _MAX and max_iterations >= 0
    ):  # fmt: skip
        try:
            out = _empty(points.shape)  # (n, 3) if points are: the kernel refuses any other
            errors = _empty(max_iterations or 1)
            status, err, count = _free_kernel(
                points, target, tolerance, max_iterations, _ARC_START if arc_start else 0, 0.0, 0.0, 0.0, out, errors
            )
        except TypeError:  # an array the kernel is not typed for
            status = -1
        if status == 0:
            return FabrikResult(out, count, err, errors, err <= tolerance)
    pts = read_points(points)
    tgt = read_vec3(target, "target")
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)
    m = pts.shape[0] - 1
    ls = _NO_LENGTHS if lengths is None else read_lengths(lengths, m)
    pole_at = None if pole is None else read_vec3(pole, "pole")
    errors = np.empty(cap if cap > 0 else 1)
    if limits is None:
        kernel = fabrik_kernel()
        out = np.empty_like(pts)
        options = (0 if pole is None else kernel.HAS_HINT) | (kernel.ARC_START if arc_start else 0)
        hx, hy, hz = (0.0, 0.0, 0.0) if pole is None else (pole_at - pts[0]).tolist()
        if lengths is None:
            status, err, count = kernel.fabrik_free(pts, tgt, tol, cap, options, hx, hy, hz, out, errors)
        else:
            status, err, count = kernel.fabrik_given(pts, tgt, ls, tol, cap, options, hx, hy, hz, out, errors)
        if status != kernel.OK:
            _refuse(pts, tgt)
        return FabrikResult(out, count, err, errors, err <= tol)
    lim = limit_args(limits, m + 1)
    if lim is None:
        return fabrik(pts, tgt, lengths=lengths, tolerance=tol, max_iterations=cap, pole=pole, arc_start=arc_start)
    out, frames = np.empty_like(pts), np.empty((m, 4))
    status, index, err, count = single_kernel().solve_chain(
        pts, tgt, ls, lengths is not None, *lim, tol, cap, _NO_VEC if pole is None else pole_at, pole is not None,
        bool(arc_start), False, errors, out, frames,
    )  # fmt: skip
    if status:
        refuse(status, index, pts, tgt, limits, _refuse)
    return FabrikResult(out, count, err, errors, err <= tol, frames)


def fabrik_kernel():
    """The compiled solver, imported on first use: numba's import costs ~1 s, which only a
    solve should pay (not `rigedit --help`)."""
    global _kernel
    if _kernel is None:
        from . import fabrik_kernel as kernel

        _kernel = kernel
    return _kernel


_kernel = None


def limited_kernel():
    """The compiled limited solve (fabrik_limited.py), imported on first use like fabrik_kernel."""
    global _limited
    if _limited is None:
        from . import fabrik_limited

        _limited = fabrik_limited
    return _limited


_limited = None


def single_kernel():
    """The compiled single-chain limited entry point (single_kernel.py: fabrik() with
    limits, ccd()), imported on first use like fabrik_kernel."""
    global _single
    if _single is None:
        from . import single_kernel as kernel

        _single = kernel
    return _single


_single = None


def tip_of(pts) -> tuple:
    """The last point as floats, from a list of points or an (n, 3) array."""
    return tuple(pts[-1].tolist()) if type(pts) is np.ndarray else tuple(pts[-1])


# Input checks: every public entry point turns bad input into one clear ValueError. The
# common case (float64 arrays) costs a few attribute reads; finiteness is checked in the
# kernel, which says which input is bad, and _refuse names the culprit.


def read_points(points) -> np.ndarray:
    """(n, 3) points as a C-contiguous float64 array (the caller's own when it is one)."""
    # Read-only or strided arrays are copied: numba would compile the kernel again for them.
    if type(points) is np.ndarray and points.dtype == np.float64 and _plain(points.flags):
        a = points
    else:
        try:
            a = np.array(points, dtype=np.float64, order="C")
        except (TypeError, ValueError):
            raise ValueError("points must be an (n, 3) array of numbers") from None
    if a.ndim != 2 or a.shape[1] != 3 or a.shape[0] < 2:
        raise ValueError(f"points must be an (n, 3) array with n >= 2, got shape {a.shape}")
    return a


def _plain(flags) -> bool:
    return flags.c_contiguous and flags.writeable


def _refuse(pts, tgt):
    bad = ~np.all(np.isfinite(pts), axis=1)
    if bad.any():
        row = int(np.nonzero(bad)[0][0])
        raise ValueError(f"points must be finite; row {row} is {pts[row].tolist()}")
    if not np.all(np.isfinite(tgt)):
        raise ValueError(f"target must be finite, got {tgt.tolist()}")
    raise ValueError("points are too far apart: bone lengths overflow float64")


def read_vec3(v, what: str) -> np.ndarray:
    """3 numbers as a float64 (3,) array; finiteness is left to the kernel for the target
    and checked here for anything else."""
    if type(v) is np.ndarray and v.shape == (3,) and v.dtype == np.float64 and _plain(v.flags):
        a = v
    else:
        try:
            a = np.array(v, dtype=np.float64, order="C")
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be 3 numbers, got {v!r}") from None
        if a.shape != (3,):
            raise ValueError(f"{what} must be 3 numbers, got shape {a.shape}")
    if what != "target" and not (isfinite(a[0]) and isfinite(a[1]) and isfinite(a[2])):
        raise ValueError(f"{what} must be finite, got {a.tolist()}")
    return a


def read_lengths(lengths, m: int) -> np.ndarray:
    try:
        a = np.array(lengths, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError(f"lengths must be {m} numbers, got {lengths!r}") from None
    if a.shape != (m,):
        raise ValueError(f"lengths must be {m} numbers (one per bone), got shape {a.shape}")
    if not (np.all(np.isfinite(a)) and np.all(a >= 0.0)):
        raise ValueError(f"lengths must be finite and >= 0, got {a.tolist()}")
    return a


def read_tolerance(tolerance) -> float:
    if type(tolerance) is float:
        t = tolerance
    else:
        try:
            t = float(tolerance)
        except (TypeError, ValueError):
            raise ValueError(f"tolerance must be a number, got {tolerance!r}") from None
    if not (isfinite(t) and t >= 0.0):
        raise ValueError(f"tolerance must be finite and >= 0, got {tolerance!r}")
    return t


def read_iterations(max_iterations) -> int:
    if type(max_iterations) is int and max_iterations >= 0:
        return max_iterations
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 0:
        raise ValueError(f"max_iterations must be an integer >= 0, got {max_iterations!r}")
    return int(max_iterations)
