"""The float helpers the solvers use (scalar_quat's, re-exported here) and Y_UP.

A FABRIK joint update is a dozen flops. On small numpy arrays each call costs ~1 us, ten
times the arithmetic, so the single-chain solver and its limits work in floats and convert
to numpy once at the end. The formulas are those of `transforms.py` (the same shortest arc,
the same half-turn axis), so a chain turned here and a skeleton turned there agree.
"""
from __future__ import annotations

# The helpers live in scalar_quat (one module of float helpers for the core): one shortest
# arc for the solvers, the rig and the skeleton write-back, so all of them turn bones alike.
from ..scalar_quat import (  # noqa: F401
    IDENTITY,
    TINY,
    cross,
    dot,
    norm,
    perpendicular,
    qbetween,
    qmul,
    qnormalize,
    qrot,
    unit_or,
)

Y_UP = (0.0, 1.0, 0.0)
