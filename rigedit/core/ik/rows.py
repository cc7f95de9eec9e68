"""A row of a compiled kernel's (n, 3) or (n, 4) array as a float tuple (`row3`, `row4`), the
form scalar_quat's helpers take: the one pair every kernel reads its points and rotations
with (LLVM inlines them into their callers).
"""
from __future__ import annotations

import numba

_jit = numba.njit(cache=True, nogil=True)


@_jit
def row3(a, k):
    return (a[k, 0], a[k, 1], a[k, 2])


@_jit
def row4(a, k):
    return (a[k, 0], a[k, 1], a[k, 2], a[k, 3])
