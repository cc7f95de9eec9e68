"""py_hypot.hypot3, the compiled twin of math.hypot(x, y, z), gives math.hypot's bits."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.ik.py_hypot import hypot3

# Every float, subnormals and the extremes included: the scaling branches live there.
anything = st.floats(allow_nan=True, allow_infinity=True)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1.0, a) == math.copysign(1.0, b))


@settings(max_examples=2000, deadline=None)
@given(anything, anything, anything)
def test_hypot3_is_math_hypot_bit_for_bit(x, y, z):
    assert _same(hypot3(x, y, z), math.hypot(x, y, z))


def test_hypot3_matches_math_hypot_on_a_sweep_of_magnitudes():
    # Where sqrt(x*x + y*y + z*z) and math.hypot part (one time in ten at ordinary sizes),
    # plus components apart by orders of magnitude, at every scale from subnormal to huge.
    rng = np.random.default_rng(11)
    for scale in (1e-320, 1e-305, 1e-150, 1e-3, 1.0, 1e3, 1e150, 1e300):
        rows = rng.normal(size=(4000, 3)) * scale * 10.0 ** rng.uniform(-4, 4, (4000, 3))
        for x, y, z in rows.tolist():
            assert _same(hypot3(x, y, z), math.hypot(x, y, z)), (x, y, z)
