"""Two-bone IK for many limbs at once (crowds, creature legs, whole clips).

Row by row the same solve as `two_bone.two_bone_ik`: both run two_bone_kernel's one row
function (`solve_row`), here in a compiled loop over the rows.

The kernel is imported on the first call, not with this module: numba's import costs about
a second, which a script or editor that never batches should not pay at start-up.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .two_bone import kernel


class TwoBoneBatchResult(NamedTuple):
    mid: np.ndarray  # (N, 3)
    end: np.ndarray  # (N, 3)
    reached: np.ndarray  # (N,) bool


def two_bone_ik_batch(root, mid, end, target, pole=None, *, eps: float = 1e-6) -> TwoBoneBatchResult:
    """Vectorised `two_bone_ik`: each argument (N, 3), pole (N, 3) or None; the inputs are
    left alone. `eps` is the accuracy promised for reachable targets, as in two_bone_ik."""
    R = _rows(root, "root", None)
    n = R.shape[0]
    M = _rows(mid, "mid", n)
    E = _rows(end, "end", n)
    T = _rows(target, "target", n)
    P = None if pole is None else _rows(pole, "pole", n)
    if not _positive_number(eps):
        raise ValueError(f"eps must be a positive number, got {eps!r}")
    new_mid, new_end, reached, bad = kernel().solve_batch(R, M, E, T, P)
    if bad:
        _explain_bad_rows(R, M, E, T, P)
    return TwoBoneBatchResult(new_mid, new_end, reached)


def _positive_number(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and np.isfinite(x) and x > 0


def _rows(v, name: str, n):
    """`v` as a C-ordered float64 (N, 3) array: the one layout the kernel is compiled for
    (a view of the caller's array when it already is one)."""
    try:
        arr = np.ascontiguousarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an (N, 3) array of numbers") from None
    if arr.ndim != 2 or arr.shape[1] != 3 or (n is not None and arr.shape[0] != n):
        want = "(N, 3)" if n is None else f"({n}, 3) like root"
        raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    return arr


def _explain_bad_rows(R, M, E, T, P) -> None:
    for name, arr in (("root", R), ("mid", M), ("end", E), ("target", T), ("pole", P)):
        if arr is None:
            continue
        bad = np.flatnonzero(~np.all(np.isfinite(arr), axis=1))
        if bad.size:
            raise ValueError(f"{name} has non-finite coordinates in row {bad[0]} ({bad.size} rows in all)")
    raise ValueError("coordinates too large to solve (squared lengths overflow float64)")
