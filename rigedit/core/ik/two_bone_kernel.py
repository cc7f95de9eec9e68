"""Two-bone IK, written once: the closed form with its pole, the middle joint's cone or hinge
limit (with the hinge twist), and the rig limb's aim (reach clamp, soft IK) and write-back,
compiled by numba on plain floats and arrays.

Every two-bone path calls these functions: `two_bone_ik` (`single`), `two_bone_ik_batch`
(`rows`, the same row over every row), `solve_two_bone_pose` (`single` and two_bone_limit.mid_limit),
the rig's limb in one pass (`limb`) and its general chain path (`chain`). There is no second
implementation to agree with: the contract is the tolerances of docs/ARCHITECTURE.md, which the tests check.
`NUMBA_DISABLE_JIT=1` (or a function's `py_func`) runs this same source as Python, for
debugging.

The closed form is two_bone_closed.py's (`solve_row`), the middle joint's limit
two_bone_limit.py's (`mid_limit`); this module holds the entry points over them.

numba caches the machine code beside this file; `jitable.fresh_cache` drops it when a
module it compiles code from changes, which numba alone would not notice. Every entry
point has explicit signatures, so it compiles (or loads from the cache) on import and a
call with other types raises TypeError instead of compiling another version: the callers
convert on that slow path.
"""
from __future__ import annotations

import math

import numba
import numpy as np
from numba import boolean, float64, int64, types

from .. import bone_turns
from .. import scalar_quat as sq
from ..jitable import fresh_cache, jitable
from . import limits, soft, two_bone_closed, two_bone_codes, two_bone_limit
from .two_bone_closed import solve_row
from .two_bone_codes import BAD_EPS, BAD_SHAPE, NO_LIMIT, OK, REACHED
from .two_bone_limit import NO_AXIS, NO_TWIST, TWIST, mid_limit  # noqa: F401 (two_bone_pose reads them here)

fresh_cache(__file__, two_bone_codes, two_bone_closed, two_bone_limit, sq, soft, limits, bone_turns)
jitable(
    sq.qmul, sq.qrot, sq.qnormalize, sq.qbetween, sq.near_opposite_turn, sq.turn_unit, sq.perpendicular, sq.cross,
    sq.dot, sq.norm, sq.sub, sq.add, sq.qconj, sq.unit_or, limits.hinge_axis_found, bone_turns.add_rotated, bone_turns.in_parent_frame,
    bone_turns.turn_local, soft.effective_target_float, soft.soft_distance_float,
)  # fmt: skip

_f8, _i8, _b1 = float64, int64, boolean
_Vec = types.UniTuple(_f8, 3)
_Quat = types.UniTuple(_f8, 4)
_Row = _f8[::1]
_Rows = _f8[:, ::1]


# --- entry points -----------------------------------------------------------------------------


@numba.njit(_i8(_Row, _Row, _Row, _Row, _Row, _Row, _Row), cache=True, nogil=True)
def single(root, mid, end, target, pole, out_mid, out_end):
    """two_bone_ik on (3,) arrays (pole: the root for none), into out_mid and out_end:
    returns REACHED, OK (solved, not reached), OVERFLOW or BAD_SHAPE."""
    if root.size != 3 or mid.size != 3 or end.size != 3 or target.size != 3 or pole.size != 3:
        return BAD_SHAPE
    status, reached, m, e = solve_row(
        root[0], root[1], root[2], mid[0], mid[1], mid[2], end[0], end[1], end[2],
        target[0], target[1], target[2], pole[0], pole[1], pole[2],
    )  # fmt: skip
    out_mid[0], out_mid[1], out_mid[2] = m
    out_end[0], out_end[1], out_end[2] = e
    if status != OK:
        return status
    return REACHED if reached else OK


_ROWS = _i8(_Rows, _Rows, _Rows, _Rows, _Rows, _Rows, _Rows, _b1[::1])


@numba.njit(_ROWS, cache=True, nogil=True)
def rows(R, M, E, T, P, out_mid, out_end, reached):
    """single over every row of (N, 3) arrays (P: R for no poles): returns the number of
    rows that could not be solved.

    On one thread: shared out over both cores here with numba.prange (OpenMP), 100k rows
    took 14-18 ns a limb at best but 80-240 ns in the median against ~28 ns on one core,
    on a machine whose two cores other work also uses (one busy core stalls the other's
    half of the rows)."""
    bad = 0
    for i in range(R.shape[0]):
        status, hit, m, e = solve_row(
            R[i, 0], R[i, 1], R[i, 2], M[i, 0], M[i, 1], M[i, 2], E[i, 0], E[i, 1], E[i, 2],
            T[i, 0], T[i, 1], T[i, 2], P[i, 0], P[i, 1], P[i, 2],
        )  # fmt: skip
        bad += status != OK
        reached[i] = hit
        out_mid[i, 0], out_mid[i, 1], out_mid[i, 2] = m
        out_end[i, 0], out_end[i, 1], out_end[i, 2] = e
    return bad


@numba.njit(cache=True, nogil=True, inline="always")
def _solve_limited(target, pole, kind, axis, lo, hi, root, mid, end, f0):
    """The closed form, then the middle joint's limit: (status, reached, new mid, new end,
    twist outcome, sin and cos of half the twist)."""
    status, reached, new_mid, new_end = solve_row(
        root[0], root[1], root[2], mid[0], mid[1], mid[2], end[0], end[1], end[2],
        target[0], target[1], target[2], pole[0], pole[1], pole[2],
    )  # fmt: skip
    if status != OK or kind == NO_LIMIT:
        return status, reached, new_mid, new_end, NO_TWIST, 0.0, 1.0
    new_end, twist, sh, ch = mid_limit(kind, axis, lo, hi, root, mid, new_mid, new_end, f0)
    return status, reached, new_mid, new_end, twist, sh, ch


_LIMB = types.Tuple((_i8, _Quat, _Quat, _f8, _Vec))(
    _Vec, _Vec, _b1, _f8, _f8, _f8, _f8, _i8, _Vec, _f8, _f8, _Vec, _Quat, _Vec, _Vec, _Vec, _Quat, _Quat
)


@numba.njit(cache=True, nogil=True, inline="always")
def _limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1):
    """A rig's two-bone chain in one pass (the rig frame's limb row, frame_kernel._limb;
    full body's limbs): the warm start from the
    root parent's world transform, the joints' offsets and the warm local rotations w0, w1;
    the aim (reach clamp / soft IK over the chain length `total`); the closed form and the
    middle joint's limit (kind, axis, lo, hi as for mid_limit); the write-back, each bone
    turned by the shortest arc to its solved direction (bone_turns.local_turns).
    Returns (status, local rotation 0, local rotation 1, tip error, solved tip)."""
    root = bone_turns.add_rotated(base_pos, base_rot, o0)
    f0 = sq.qmul(base_rot, w0)
    mid = bone_turns.add_rotated(root, f0, o1)
    end = bone_turns.add_rotated(mid, sq.qmul(f0, w1), o2)
    aim = target
    if clamp < 1.0 or softness > 0.0:  # neither the reach clamp nor soft IK moves it otherwise
        aim = soft.effective_target_float(root, target, total, clamp, softness)
    status, _, new_mid, new_end, twist, sh, ch = _solve_limited(aim, pole if has_pole else root, kind, axis, lo, hi, root, mid, end, f0)
    if not eps > 0.0:
        status = BAD_EPS
    if status != OK:
        return status, w0, w1, math.nan, new_end

    # Upper bone: the solved bone in the parent's frame, and the old one under w0.
    sx, sy, sz = bone_turns.in_parent_frame(base_rot, root, new_mid)
    local0 = bone_turns.turn_local(w0, o1, sx, sy, sz)
    if twist == TWIST:
        # The world twist about the solved bone, seen in the parent's frame, is the same
        # angle about conj(parent) u: the solved bone's direction just worked out.
        k = sh / sq.norm((sx, sy, sz))
        local0 = sq.qnormalize(sq.qmul((sx * k, sy * k, sz * k, ch), local0))
    # Lower bone, its parent now the upper bone's new world rotation.
    sx, sy, sz = bone_turns.in_parent_frame(sq.qmul(base_rot, local0), new_mid, new_end)
    local1 = bone_turns.turn_local(w1, o2, sx, sy, sz)
    return OK, local0, local1, sq.norm(sq.sub(new_end, target)), new_end


@numba.njit(_LIMB, cache=True, nogil=True)
def limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1):
    """_limb on its arguments one by one (full_body_steps calls it)."""
    return _limb(target, pole, has_pole, eps, clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1)


def solve_batch(R: np.ndarray, M: np.ndarray, E: np.ndarray, T: np.ndarray, P: np.ndarray | None):
    """(mid (N, 3), end (N, 3), reached (N,), rows not solved) for C-ordered float64 (N, 3)."""
    n = R.shape[0]
    # One block for both outputs: numpy asks the kernel for huge pages on blocks of 4 MB and
    # up, and fresh memory is otherwise paid for a page fault per 4 kB as it is first
    # written (two separate 2.4 MB outputs for 100,000 limbs cost ~30 ns a limb in faults
    # here, the whole solve ~40).
    block = np.empty((2, n, 3))
    mid, end = block[0], block[1]
    reached = np.empty(n, dtype=np.bool_)
    bad = rows(R, M, E, T, R if P is None else P, mid, end, reached)
    return mid, end, reached, bad
