"""The layout of a packed rig frame (docs/ARCHITECTURE.md, core: one frame evaluation):
what core/frame_pack.py writes and ik/frame_kernel.py reads, kept apart so neither imports
the other. Rows are the compiled solver rows a method runs (solve_methods.py names its own).
"""
from __future__ import annotations

import struct

# A chain's compiled row: its method's (solve_methods.Method.frame_row).
ROW_LIMB, ROW_FABRIK, ROW_CCD, ROW_AIM = 0, 1, 2, 3

# The int table (rows, T_SIZE), one array for the call's sake: per joint its parent
# (T_PARENT), per joint slot its joint (T_JOINT), per chain its C_* ints from T_CHAIN on.
T_PARENT, T_JOINT, T_CHAIN = 0, 1, 2

# Per chain, ints (chains, C_SIZE): its row, first slot in the joint table, joints, the
# root's parent joint (-1: none), iteration cap, whether its warm start is the animated pose,
# whether a reaching chain has limits and whether one is on its root joint.
C_ROW, C_SLOT, C_N, C_PARENT, C_CAP, C_FOLLOW, C_LIMITED, C_ROOT_LIMITED = range(8)
C_SIZE = 8
T_SIZE = T_CHAIN + C_SIZE

# Per chain, settings (chains, F_SIZE): tolerance, two-bone's eps, reach clamp, softness,
# a two-bone middle limit (kind, unit axis, lo, hi in radians). The chain's length is summed
# from the frame's offsets, which a clip may change.
F_TOL, F_EPS, F_CLAMP, F_SOFT, F_KIND, F_AXIS, F_LO, F_HI = 0, 1, 2, 3, 4, 5, 8, 9
# An aim's (look-at) instead: unit forward and up axes, cone and twist limits in radians.
F_FWD, F_UP, F_MAX_ANGLE, F_MAX_TWIST = 1, 4, 7, 8
F_SIZE = 10

# Per chain, this frame's inputs (chains, I_SIZE): goal, pole, whether it has one, weight,
# and a grounded foot's sole: the world rotation its tip takes after every chain is solved.
I_GOAL, I_POLE, I_HAS_POLE, I_WEIGHT, I_SOLE, I_HAS_SOLE = 0, 3, 6, 7, 8, 12
I_SIZE = 13
_INPUT_ROW = struct.Struct(f"{I_SIZE}d")  # native doubles, as the float64 inputs array holds them
_NO_SOLE = (0.0, 0.0, 0.0, 0.0, 0.0)


def input_row(goal: tuple, pole: tuple | None, weight: float, sole: tuple | None = None) -> bytes:
    """A chain's I_* row packed as the inputs array holds it: a Chain keeps its own row
    (Chain.frame_inputs), so the frame's inputs are those rows joined and copied in; a
    frame's grounded feet and follow-clip goals make theirs (rig_frame.frame_rows)."""
    tail = _NO_SOLE if sole is None else (*sole, 1.0)
    if pole is None:
        return _INPUT_ROW.pack(*goal, 0.0, 0.0, 0.0, 0.0, weight, *tail)
    return _INPUT_ROW.pack(*goal, *pole, 1.0, weight, *tail)

# Per chain, its last solve (chains, S_SIZE): solved at all, settings as now, error,
# reached, final; the base, goal, pole it was solved for; whether it has a limited warm
# start and the base that stands on, and its limits' root direction; and what the next frame
# does with it instead of solving (S_SHOW, cleared by that frame: SHOW_SAVED, a saved
# solution put back is shown as it was; SHOW_NONE, a chain the saving rig had not solved
# is left as animated; Rig.restore_state).
S_LAST, S_SAME_SETTINGS, S_ERROR, S_REACHED, S_FINAL, S_BASE, S_GOAL, S_POLE, S_HAS_POLE, S_WARM, S_WARM_BASE, S_ROOT_DIR = (
    0, 1, 2, 3, 4, 5, 12, 15, 18, 19, 20, 27,
)
S_SHOW = 30
S_SIZE = 31
SHOW_SAVED, SHOW_NONE = 1.0, 2.0

# Per joint slot (slots, J_SIZE): the last solve's local rotation and offset; a reaching
# chain's limited warm start there: point, bone frame, reference direction and hinge axis,
# limit kind and parameters, bone length (fabrik_limited._rig_row's arrays, row by row);
# the chain's limit plan (set once: kind code, parameters, hinge axis in the parent's frame),
# from which a cold start prepares its limits (frame_cold.py).
J_IK, J_OFFSET, J_POINT, J_FRAME, J_DIR, J_AXIS, J_PARAMS, J_LENGTH, J_KIND = 0, 4, 7, 10, 14, 17, 20, 22, 23
J_PLAN_KIND, J_PLAN_PARAMS, J_LOCAL_AXIS = 24, 25, 27
# An aim's joints keep their share of the turn and rest rotation there instead (set once).
J_SHARE, J_REST = J_LENGTH, J_FRAME
J_SIZE = 30

# Input a solver refuses stops the frame, nothing of it kept: the frame returns
# chain * STOP_SPAN + why, and rig_frame.refused raises the error `why` names: STOP_LIMB plus
# the two-bone kernel's status (two_bone_codes), STOP_ROOT (a limit on the chain's root
# joint with no bone entering it), STOP_HINGE plus the joint whose hinge axis lies along
# its parent bone. 0 is never a reason (the solvers' OK).
STOP_LIMB, STOP_ROOT, STOP_HINGE = 0, 8, 16
STOP_SPAN = 1 << 24

# rig_chain.STALL_GAIN: a solve of unchanged inputs gaining less than this share has stalled.
STALL_GAIN = 1e-6
