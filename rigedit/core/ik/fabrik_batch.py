"""FABRIK for many chains at once (crowds, creature legs, whole clips).

    r = fabrik_batch(points, target, *, tolerance=1e-3, max_iterations=10, pole=None, arc_start=True)
    points (N, n, 3), target (N, 3), pole (N, 3) or None
    r.points (N, n, 3); r.iterations (N,) int; r.error (N,); r.reached (N,) bool

Row by row this is `fabrik` (no limits): the same compiled row function
(fabrik_row.solve_row), run over the rows on all cores.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .chain_input import read_iterations, read_tolerance
from .fabrik import fabrik_kernel


@dataclass(slots=True)
class FabrikBatchResult:
    points: np.ndarray  # (N, n, 3)
    iterations: np.ndarray  # (N,) int
    error: np.ndarray  # (N,)
    reached: np.ndarray  # (N,) bool


def fabrik_batch(points, target, *, tolerance=1e-3, max_iterations=10, pole=None, arc_start=True):
    p = _read(points, 3, "points")
    if p.shape[1] < 2:
        raise ValueError(f"points must be (N, n, 3) with n >= 2, got shape {p.shape}")
    big_n = p.shape[0]
    t = _read(target, 2, "target")
    if t.shape != (big_n, 3):
        raise ValueError(f"target must be ({big_n}, 3) to match points, got shape {t.shape}")
    if pole is None:
        hints = np.zeros((big_n, 3))
    else:
        hints = _read(pole, 2, "pole")
        if hints.shape != (big_n, 3):
            raise ValueError(f"pole must be ({big_n}, 3) to match points, got shape {hints.shape}")
        hints = hints - p[:, 0]
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)
    out = np.empty_like(p)
    iterations = np.zeros(big_n, dtype=np.int64)
    error = np.empty(big_n)
    bad = fabrik_kernel().fabrik_rows(p, t, tol, cap, hints, pole is not None, bool(arc_start), out, iterations, error)
    if bad >= 0:
        raise ValueError(f"points must be finite: bone lengths of chain {bad} overflow float64")
    return FabrikBatchResult(out, iterations, error, error <= tol)


def _read(v, ndim: int, what: str) -> np.ndarray:
    try:
        a = np.ascontiguousarray(v, dtype=np.float64)
        if not a.flags.writeable:  # numba would compile the kernel again for a read-only array
            a = a.copy()
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be an array of numbers") from None
    if a.ndim != ndim or a.shape[-1] != 3:
        want = "(N, n, 3)" if ndim == 3 else "(N, 3)"
        raise ValueError(f"{what} must be {want}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0].tolist()
        raise ValueError(f"{what} must be finite; entry {bad} is not")
    return a
