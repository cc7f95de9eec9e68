"""Forward kinematics, compiled: world positions, quaternions and matrices of every joint, one
pass over the joints in parent-before-child order, for one pose or a clip's frames.

Why a loop and not matrix products: FK used to sum positions through a product with a 0/1
ancestor matrix, and OpenBLAS's kernels (Haswell, SkylakeX) sum in different orders, so the
last bits of every position depended on the CPU. Here each sum is written out in one order
(IEEE float64, no fast-math, no BLAS), so the result is the same bits on every x86-64 CPU.
It is also ~20x cheaper than the numpy form was: a joint is two dozen flops, and numpy's
per-call cost dominated.

World rotation of joint i: W[i] = W[parent] * L[i] (scalar_quat.qmul, the same product the
rest of the core uses); its position: P[parent] + M(W[parent]) t[i], where M is the
rotation matrix of W (the quadratic form of transforms.quat_to_matrix, exact for unit
quaternions). A root's world transform is its local one.

numba caches the machine code beside this file; `jitable.fresh_cache` drops it when
scalar_quat.py changes, which numba alone would not notice.
"""
from __future__ import annotations

import numba

from . import scalar_quat as sq
from .jitable import fresh_cache, jitable

fresh_cache(__file__, sq)
jitable(sq.qmul)
qmul = sq.qmul

# One signature, compiled (or loaded from the cache) on import: the Python side always passes
# C-contiguous arrays, so no call compiles a second version. Inputs are typed read-only, which
# writable arrays convert to (a pose may be a read-only broadcast view).
_IN = numba.types.Array(numba.float64, 3, "C", readonly=True)
_SIGNATURE = numba.void(
    numba.types.Array(numba.int64, 1, "C", readonly=True), _IN, _IN,
    numba.float64[:, :, ::1], numba.float64[:, :, ::1], numba.float64[:, :, :, ::1],
)  # fmt: skip


@numba.njit(_SIGNATURE, cache=True, nogil=True)
def fk_frames(parents, rotations, translations, positions, quats, matrices):
    """rotations (F or 1, n, 4) unit quaternions, translations (F or 1, n, 3): a leading 1
    serves every frame. Writes positions (F, n, 3), quats (F, n, 4), matrices (F, n, 3, 3)."""
    frames, n = positions.shape[0], positions.shape[1]
    one_rot, one_trans = rotations.shape[0] == 1, translations.shape[0] == 1
    for f in range(frames):
        fr = 0 if one_rot else f
        ft = 0 if one_trans else f
        for i in range(n):
            local = (rotations[fr, i, 0], rotations[fr, i, 1], rotations[fr, i, 2], rotations[fr, i, 3])
            tx, ty, tz = translations[ft, i, 0], translations[ft, i, 1], translations[ft, i, 2]
            p = parents[i]
            if p < 0:
                x, y, z, w = local
                positions[f, i, 0], positions[f, i, 1], positions[f, i, 2] = tx, ty, tz
            else:
                x, y, z, w = qmul((quats[f, p, 0], quats[f, p, 1], quats[f, p, 2], quats[f, p, 3]), local)
                m = matrices[f, p]
                positions[f, i, 0] = positions[f, p, 0] + (m[0, 0] * tx + m[0, 1] * ty + m[0, 2] * tz)
                positions[f, i, 1] = positions[f, p, 1] + (m[1, 0] * tx + m[1, 1] * ty + m[1, 2] * tz)
                positions[f, i, 2] = positions[f, p, 2] + (m[2, 0] * tx + m[2, 1] * ty + m[2, 2] * tz)
            quats[f, i, 0], quats[f, i, 1], quats[f, i, 2], quats[f, i, 3] = x, y, z, w
            xx, yy, zz, ww = x * x, y * y, z * z, w * w
            xy, xz, yz, xw, yw, zw = x * y, x * z, y * z, x * w, y * w, z * w
            m = matrices[f, i]
            m[0, 0], m[0, 1], m[0, 2] = xx - yy - zz + ww, 2.0 * (xy - zw), 2.0 * (xz + yw)
            m[1, 0], m[1, 1], m[1, 2] = 2.0 * (xy + zw), yy - xx - zz + ww, 2.0 * (yz - xw)
            m[2, 0], m[2, 1], m[2, 2] = 2.0 * (xz - yw), 2.0 * (yz + xw), zz - xx - yy + ww
