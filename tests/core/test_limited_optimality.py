"""Limited solves end near the best pose their limits allow at the default cap (issue 24,
item 4), for targets out of the limits' reach as well as inside: random hinge/cone chains
(tests/core/limited_cases.py) and targets drawn as benchmarks/bench_limited_optimality.py
draws them, each solver's end at max_iterations=10 against scipy's constrained minimum of
the tip's distance over the joint angles the limits allow."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ccd, fabrik
from tests.core.limited_cases import Case, _unit

GAP = 1e-3  # within 1 mm of the optimum
CHAINS = 40
RESTARTS = 3  # scipy's random starts besides the rest pose (the benchmark takes 8)


def _cases(rng):
    """(case, target, optimum or None): half the targets the tip of a random allowed pose
    (optimum 0), half random points within 1.3 times the chain's length."""
    out = []
    for _ in range(CHAINS):
        case = Case(rng)
        if rng.random() < 0.5:
            out.append((case, case.tip(case.random_x(rng)), 0.0))
        else:
            d = np.asarray(_unit(rng.normal(size=3)))
            out.append((case, d * float(case.lengths.sum()) * rng.uniform(0.0, 1.3) ** (1.0 / 3.0), None))
    return out


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**63 - 1))
def test_at_the_default_cap_limited_solves_end_within_a_millimetre_of_the_constrained_optimum(seed):
    """Seeded chains and targets (drawn by hypothesis, not cases a fix could be tuned to),
    each solved by FABRIK and CCD from the rest pose at the default cap. The optimum is
    scipy's L-BFGS-B from the rest pose and RESTARTS random poses (a solver that ends nearer
    misses nothing). Measured on 10 seeds of this draw (0-9): 9 and 11 of 400 missed
    (FABRIK, CCD), at most 5 of one seed's 80 solves; 14 and 16, at most 8, before the
    least-squares step took the tip's curvature and other starts were kept when nearer at
    all. The bound, 10 of the 80 solves, leaves room for chains that settle in another
    valley, not for solvers that stop in the first valley they meet (one target in four
    missed, as before the least-squares step and the other starts)."""
    rng = np.random.default_rng(seed)
    missed = []
    for case, target, known in _cases(rng):
        if known is None:
            starts = [np.clip(np.zeros(len(case.lo)), case.lo, case.hi)]
            known = case.best(target, starts, rng, RESTARTS)[0]
        for solve in (fabrik, ccd):
            r = solve(case.rest, target, limits=case.limits, tolerance=GAP)
            assert r.iterations <= 10
            if r.error > known + GAP:
                missed.append((solve.__name__, round(1e3 * (r.error - known), 1)))
    assert len(missed) <= 10, sorted(missed)
