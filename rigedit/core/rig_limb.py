"""A rig's two-bone chain solved in one pass: warm start, aim, closed form, limit, write-back.

The same steps as rig_solve's chain_pose, two_bone_chain and local_turns, for exactly two
bones, in one compiled call (two_bone_kernel.limb): every limb of every rig runs this on
every frame, and in Python floats a limb cost ~20-35 us against ~2.5-5 us compiled, most of
that numba's call overhead.

The kernel is imported on the first solve, not with this module: numba's import costs
about a second, which `import rigedit` should not pay.
"""
from __future__ import annotations

import numpy as np

from .bone_turns import chain_pose
from .ik.soft import effective_target_float
from .ik.two_bone import NO_LIMIT, OK, kernel, two_bone_ik

_kernel = None


def solve_limb(target, pole, tolerance, reach_clamp, softness, total, lim, base_pos, base_rot, offsets, warm, fixed=None):
    """One two-bone chain: from its root parent's world transform (base_pos, base_rot), its
    three joints' local offsets and its warm-start local rotations `warm` (two), aim at
    `target` (reach clamp / soft IK over the chain length `total`), solve, apply the middle
    joint's limit parameters `lim` (ChainSetup.mid_limit, or None) and turn each bone by the
    shortest arc to its solved direction. Returns ([two local rotations], tip error, the
    solved tip). `fixed`: limb_fixed's row of tolerance ... offsets, when the caller keeps
    one (the rig, per chain): then those arguments are not read."""
    k = _kernel or _load()
    if fixed is not None:
        has_pole = pole is not None
        try:
            status, local0, local1, error, tip = k.limb_packed(
                fixed, target, pole if has_pole else base_pos, has_pole, base_pos, base_rot, warm[0], warm[1]
            )
        except TypeError:
            pass  # not float tuples: the general path below converts them
        else:
            if status != OK:
                _explain(target, pole, tolerance, reach_clamp, softness, total, base_pos, base_rot, offsets, warm)
            return [local0, local1], error, tip
    o0, o1, o2 = offsets
    w0, w1 = warm
    # two_bone_ik's eps = min(1e-6, tolerance), only checked for being positive.
    eps = tolerance if tolerance < 1e-6 else 1e-6
    kind, axis, lo, hi = (NO_LIMIT, base_pos, 0.0, 0.0) if lim is None else lim
    has_pole = pole is not None
    if not has_pole:
        pole = base_pos  # any float 3-tuple: the kernel has one signature
    args = (target, pole, has_pole, eps, reach_clamp, softness, total, kind, axis, lo, hi, base_pos, base_rot, o0, o1, o2, w0, w1)
    try:
        status, local0, local1, error, tip = k.limb(*args)
    except TypeError:
        # Not float tuples (ints, lists, arrays): convert (slowly) rather than compile
        # another version.
        status, local0, local1, error, tip = k.limb(*_as_floats(args))
    if status != OK:
        _explain(target, pole if has_pole else None, tolerance, reach_clamp, softness, total, base_pos, base_rot, offsets, warm)
    return [local0, local1], error, tip


def limb_fixed(tolerance, reach_clamp, softness, total, lim, offsets) -> np.ndarray:
    """solve_limb's arguments that stay put for a chain, as two_bone_kernel.limb_packed
    takes them (FIXED_* there)."""
    eps = tolerance if tolerance < 1e-6 else 1e-6  # as solve_limb's
    kind, axis, lo, hi = (NO_LIMIT, (0.0, 0.0, 0.0), 0.0, 0.0) if lim is None else lim
    o0, o1, o2 = offsets
    return np.array((eps, reach_clamp, softness, total, kind, *axis, lo, hi, *o0, *o1, *o2), dtype=np.float64)


def _load():
    global _kernel
    _kernel = kernel()
    return _kernel


def _as_floats(args):
    return tuple(
        a if type(a) is bool else float(a) if k in (3, 4, 5, 6, 9, 10) else int(a) if k == 7 else tuple(map(float, a))
        for k, a in enumerate(args)
    )


def _explain(target, pole, tolerance, reach_clamp, softness, total, base_pos, base_rot, offsets, warm) -> None:
    """Raise two_bone_ik's own error for input the kernel refused (the slow path)."""
    points, _ = chain_pose(base_pos, base_rot, offsets, warm)
    aim = target
    if reach_clamp < 1.0 or softness > 0.0:
        aim = effective_target_float(points[0], target, total, reach_clamp, softness)
    two_bone_ik(*points, aim, pole, eps=min(1e-6, tolerance))
    raise ValueError(f"two-bone limb cannot be solved: target {target!r}, pole {pole!r}, tolerance {tolerance!r}")
