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
also prepares the limits' frames); this module reads the input (chain_input.py, and
limit_args.py the limits) and names what is wrong with it.
"""
from __future__ import annotations

import numpy as np

from .chain_input import read_iterations, read_lengths, read_points, read_tolerance, read_vec3, refuse_points
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
    elif lengths is None and pole is None and limits is not None:
        r = limited_plain(points, target, tolerance, max_iterations, limits, bool(arc_start), False)
        if r is not None:
            return r
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
            refuse_points(pts, tgt)
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
        refuse(status, index, pts, tgt, limits)
    return FabrikResult(out, count, err, errors, err <= tol, frames)


def limited_plain(points, target, tolerance, max_iterations, limits, arc_start: bool, sweeps: bool):
    """fabrik()'s and ccd()'s limited call with float64 arrays and default lengths and pole,
    straight to the kernel as their common unlimited call goes to theirs: the result, or
    None for the careful path to read, check and name (an array of another kind, input the
    kernel refuses, no limit in play). Saves the readers' ~0.7 us of a ~5 us call."""
    if not (
        type(points) is _ndarray and type(target) is _ndarray and type(tolerance) is float and type(max_iterations) is int
        and 0.0 <= tolerance <= _MAX and max_iterations >= 0 and points.ndim == 2 and points.shape[1] == 3
        and points.shape[0] >= 2
    ):  # fmt: skip
        return None
    lim = limit_args(limits, points.shape[0])
    if lim is None:
        return None
    try:
        out, frames, errors = _empty(points.shape), _empty((points.shape[0] - 1, 4)), _empty(max_iterations or 1)
        status, _, err, count = _solve_chain(
            points, target, _NO_LENGTHS, False, *lim, tolerance, max_iterations, _NO_VEC, False, arc_start, sweeps, errors, out,
            frames,
        )  # fmt: skip
    except TypeError:  # an array the kernel is not typed for
        return None
    return FabrikResult(out, count, err, errors, err <= tolerance, frames) if status == 0 else None


def _solve_chain(*args):
    """single_kernel.solve_chain, put in this stand-in's place on the first call (as _free_kernel)."""
    global _solve_chain
    _solve_chain = single_kernel().solve_chain
    return _solve_chain(*args)


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
