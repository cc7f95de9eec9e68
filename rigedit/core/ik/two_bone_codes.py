"""The two-bone solve's thresholds and codes, shared by the entry point (two_bone.py) and the
compiled kernel (two_bone_kernel.py) without either importing the other."""
from __future__ import annotations

# A direction whose sine against a line is below this counts as on the line: the pole on
# the root-target axis, a straight limb. Float64 round-off of a direction is ~1e-16; 1e-9
# leaves a wide margin while still taking any bend a user could see (1e-9 rad is a
# nanometre of elbow offset per metre of arm).
ON_LINE = 1e-9
# Squares of lengths past this overflow float64; no rig is 1e150 m across.
TOO_FAR = 1e150
# A target nearer the root than this fraction of the limb counts as on it: the triangle's
# products of lengths would underflow into subnormals and lose the bone lengths.
AT_ROOT = 1e-100
# A limb bent less than this (radians) is straight: it has no bend plane to turn a hinge
# onto, so the hinge keeps the axis the upper bone carries. 1e-9 rad is a nanometre of knee
# offset on a metre of leg, far under anything visible, far over round-off of a straight limb.
STRAIGHT_RAD = 1e-9
# The middle joint's limit as the kernel takes it (kind, axis, lo, hi): see two_bone_kernel.mid_limit.
NO_LIMIT, CONE, HINGE = 0, 1, 2
# What the kernel's entry points return: solved (and for `single`, whether |a - b| <= d <=
# a + b); a limb or target past TOO_FAR or a non-finite coordinate; the rig limb's tolerance
# not positive; an input not 3 numbers.
OK, REACHED, OVERFLOW, BAD_EPS, BAD_SHAPE = 0, 1, 2, 3, 4
