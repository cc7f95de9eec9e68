"""CCD (cyclic coordinate descent) for one chain of points, as three.js's CCDIKSolver and
Godot's CCDIK3D do it.

    r = ccd(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None)

fabrik()'s contract and result (FabrikResult): points[0] never moves, bone lengths are kept,
r.errors is the best tip error after each pass and never grows; without limits a target out
of reach gets the chain straight toward it with r.iterations == 0. A pass turns each joint,
from the tip's parent back to the root, so the tip swings toward the target, each turn
clamped by that joint's hinge or cone (`limits` as fabrik takes them).

The step is fabrik_passes.ccd, the sweep limited FABRIK already falls back on, run by the one
iteration loop (fabrik_loop.iterate) in place of FABRIK's passes: the same stop rule, the
same frames and limits. This module reads the input (fabrik's readers, limit_args.py) and
makes one compiled call (single_kernel.solve_chain, fabrik()'s limited entry point, with
CCD's step; no limit: no plan rows, every joint free).

In a rig, CCD's chains run the same step in the compiled frame's rows (frame_codes.ROW_CCD:
ik/frame_cold.py and ik/frame_reach.py).
"""
from __future__ import annotations

import numpy as np

from .chain_input import read_iterations, read_lengths, read_points, read_tolerance, read_vec3
from .fabrik import FabrikResult, limited_plain, single_kernel
from .limit_args import FREE, limit_args, refuse

_NO_VEC = np.zeros(3)
_NO_LENGTHS = np.zeros(0)
_NO_FRAMES = np.zeros((0, 4))
_MAX = float.fromhex("0x1.fffffffffffffp+1023")
_ndarray, _empty = np.ndarray, np.empty


def _free_kernel(*args):
    """single_kernel.ccd_free, which this stand-in imports on the first call and puts in its
    place (as fabrik._free_kernel)."""
    global _free_kernel
    _free_kernel = single_kernel().ccd_free
    return _free_kernel(*args)


def ccd(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None) -> FabrikResult:
    # The common call (float64 arrays, default options) goes straight to the kernel, as in
    # fabrik(): type and identity checks only; the kernel checks shapes and finiteness and
    # refuses (a status, or numba's TypeError) what the careful path below names.
    if (
        limits is None and lengths is None and type(points) is _ndarray and type(target) is _ndarray
        and type(tolerance) is float and type(max_iterations) is int and 0.0 <= tolerance <= _MAX and max_iterations >= 0
    ):  # fmt: skip
        try:
            out = _empty(points.shape)  # (n, 3) if points are: the kernel refuses any other
            errors = _empty(max_iterations or 1)
            status, _, err, count = _free_kernel(points, target, tolerance, max_iterations, errors, out)
        except TypeError:  # an array the kernel is not typed for
            status = -1
        if status == 0:
            return FabrikResult(out, count, err, errors, err <= tolerance)
    elif lengths is None and limits is not None:
        r = limited_plain(points, target, tolerance, max_iterations, limits, False, True)
        if r is not None:
            return r
    pts = read_points(points)
    tgt = read_vec3(target, "target")
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)
    m = pts.shape[0] - 1
    ls = _NO_LENGTHS if lengths is None else read_lengths(lengths, m)
    lim = None if limits is None else limit_args(limits, m + 1)
    out, errors = np.empty_like(pts), np.empty(cap if cap > 0 else 1)
    frames = _NO_FRAMES if lim is None else np.empty((m, 4))
    status, index, err, count = single_kernel().solve_chain(
        pts, tgt, ls, lengths is not None, *(FREE if lim is None else lim), tol, cap, _NO_VEC, False, False, True, errors, out,
        frames,
    )  # fmt: skip
    if status:
        refuse(status, index, pts, tgt, limits)
    return FabrikResult(out, count, err, errors, err <= tol, None if lim is None else frames)
