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
same frames and limits. This module checks the input (fabrik's checks) and packs a chain
with no limits as one whose every joint is free.

In a rig, CCD's chains run the same step in the compiled frame's rows (frame_codes.ROW_CCD:
ik/frame_cold.py and ik/frame_reach.py).
"""
from __future__ import annotations

import numpy as np

from .chain_frames import bone_directions, packed_limits, prepare_limits
from .fabrik import FabrikResult, _refuse, limited_kernel, read_iterations, read_lengths, read_points, read_tolerance, read_vec3


def ccd(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None) -> FabrikResult:
    pts = read_points(points)
    tgt = read_vec3(target, "target")
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)
    m = pts.shape[0] - 1
    ls = np.empty(m) if lengths is None else read_lengths(lengths, m)
    kernel = limited_kernel()
    if not (kernel._lengths_ok(pts, ls, lengths is not None) and np.all(np.isfinite(tgt))):
        _refuse(pts, tgt)
    toward = (tgt - pts[0]).tolist()
    prep = None if limits is None else prepare_limits(limits, pts.tolist(), ls.tolist(), toward)
    if prep is None:
        kinds, params = np.zeros(m, np.int64), np.zeros((m, 2))
        dirs = np.array(bone_directions(pts.tolist(), toward=toward), dtype=np.float64)
        axes, root_dir, frames = np.zeros((m, 3)), np.zeros(3), np.zeros((m, 4))
    else:
        kinds, params, dirs, axes, root_dir, _ = packed_limits(prep)
        frames = np.array(prep.frames, dtype=np.float64)
    errors = np.empty(cap if cap > 0 else 1)
    out = (np.empty_like(pts), np.zeros((m, 3)), np.empty((m, 3)), np.empty((m, 4)))
    out_frames = np.empty((m, 4))
    err, count, _ = kernel.ccd_limited(
        pts, tgt, ls, kinds, params, dirs, axes, root_dir, frames, prep is not None, tol, cap, True, errors, *out, out_frames
    )
    return FabrikResult(out[0], count, err, errors, err <= tol, None if prep is None else out_frames)
