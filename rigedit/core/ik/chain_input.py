"""The single-chain calls' input checks (fabrik, ccd, fabrik_batch): every public entry
point turns bad input into one clear ValueError. The common case (float64 arrays) costs a
few attribute reads; finiteness is checked in the kernels, which say which input is bad,
and `refuse_points` names the culprit.
"""
from __future__ import annotations

from math import isfinite

import numpy as np

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


def refuse_points(pts, tgt):
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
