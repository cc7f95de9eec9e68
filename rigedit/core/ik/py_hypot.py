"""math.hypot(x, y, z) for compiled code, step for step as CPython 3.11 works it out.

Why: the rig's compiled two-bone limb must round exactly as `two_bone.two_bone_ik`, which
takes its bend direction's length with math.hypot. CPython does not call the C library's
hypot: it scales by a power of two and sums the squares with their round-off carried
(vector_norm in Modules/mathmodule.c), which differs from sqrt(x*x + y*y + z*z) and from
libm's hypot in the last bit about one time in ten. These are its operations in its order
(IEEE float64, no fast-math), so the results are the same bits; a test holds them to
math.hypot. Python 3.12 changed that algorithm: on a newer Python the test says so.
"""
from __future__ import annotations

import math

import numba

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter, a double's top 26 bits apart from the rest


@numba.njit(cache=True, nogil=True)
def hypot3(x: float, y: float, z: float) -> float:
    ax, ay, az = abs(x), abs(y), abs(z)
    big = 0.0  # a NaN never becomes the largest: hypot(nan, inf) is inf, as in CPython
    if ax > big:
        big = ax
    if ay > big:
        big = ay
    if az > big:
        big = az
    if math.isinf(big):
        return big
    if math.isnan(ax) or math.isnan(ay) or math.isnan(az):
        return math.nan
    if big == 0.0:
        return big
    _, e = math.frexp(big)
    if e < -1023:
        # ldexp(1, -e) would overflow: divide by the largest instead (CPython's branch).
        csum, frac1 = 1.0, 0.0
        for v in (ax, ay, az):
            v = v / big
            v = v * v
            old = csum
            csum += v
            frac1 += (old - csum) + v
        return big * math.sqrt(csum - 1.0 + frac1)
    scale = math.ldexp(1.0, -e)
    csum, frac1, frac2, frac3 = 1.0, 0.0, 0.0, 0.0
    for v in (ax, ay, az):
        v *= scale
        t = v * _SPLIT
        hi = t - (t - v)
        lo = v - hi
        v = hi * hi
        old = csum
        csum += v
        frac1 += (old - csum) + v
        v = 2.0 * hi * lo
        old = csum
        csum += v
        frac2 += (old - csum) + v
        frac3 += lo * lo
    h = math.sqrt(csum - 1.0 + (frac1 + frac2 + frac3))
    # One Newton step on the carried residual csum - h^2 (h split as above).
    t = h * _SPLIT
    hi = t - (t - h)
    lo = h - hi
    v = -hi * hi
    old = csum
    csum += v
    frac1 += (old - csum) + v
    v = -2.0 * hi * lo
    old = csum
    csum += v
    frac2 += (old - csum) + v
    v = -lo * lo
    old = csum
    csum += v
    frac3 += (old - csum) + v
    v = csum - 1.0 + (frac1 + frac2 + frac3)
    return (h + v / (2.0 * h)) / scale
