"""CCD as a rig's solver (issue 24): a chain that names it is solved by CCD's own step
(not FABRIK's), from its first solve through the warm-started frames after it, and its
joint limits hold, alone and under full body."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ccd, fabrik
from rigedit.core.ik.limits import ConeLimit, HingeLimit
from rigedit.core.rig import Rig

from .test_rig import limit_errors_deg

CHAIN = "spine"
LIMIT_EPS_DEG = 1e-6
LIMITS = {"Spine1": ConeLimit(12.0), "Spine2": HingeLimit((1.0, 0.0, 0.0), -10.0, 15.0), "Chest": ConeLimit(8.0)}


def chain_points(rig: Rig, name: str) -> np.ndarray:
    return np.array([rig.world_position(j) for j in rig.chain(name).joints])


def spine_rig(solver: str, limits=None) -> Rig:
    rig = Rig.default()
    ch = rig.chain(CHAIN)
    ch.solver = solver
    ch.limits = limits or {}
    ch.max_iterations = 40
    return rig


@pytest.mark.parametrize("limited", [False, True], ids=["free", "limited"])
def test_a_ccd_chain_is_solved_by_ccd_not_fabrik(limited):
    rig = spine_rig("ccd", LIMITS if limited else None)
    ch = rig.chain(CHAIN)
    start = chain_points(rig, CHAIN)
    ch.target = ch.target + (0.12, -0.1, 0.15)
    report = rig.solve()[CHAIN]
    got = chain_points(rig, CHAIN)
    target = np.array(ch.target)
    limits = {k: ch.limits[j] for k, j in enumerate(ch.joints) if j in ch.limits} if limited else None
    settings = dict(tolerance=ch.tolerance, max_iterations=ch.max_iterations, limits=limits)
    want = ccd(start, target, **settings)
    other = fabrik(start, target, **settings).points
    # The rig's solve is the single-chain CCD's (to round-off: the rig writes rotations and
    # reads the pose back through forward kinematics), and FABRIK's is another pose.
    assert np.max(np.linalg.norm(got - want.points, axis=1)) <= 1e-6
    assert report.iterations == want.iterations and report.error == pytest.approx(want.error, abs=1e-6)
    assert np.max(np.linalg.norm(other - want.points, axis=1)) > 1e-3


def test_the_status_and_errors_are_ccd_passes():
    rig = spine_rig("ccd")
    ch = rig.chain(CHAIN)
    ch.target = ch.target + (0.1, -0.12, 0.1)
    report = rig.solve()[CHAIN]
    assert report.iterations >= 1 and len(report.errors) == report.iterations
    assert all(b <= a for a, b in zip(report.errors, report.errors[1:]))
    assert ch.kind.method.status(report.iterations, False) == f"{report.iterations} iterations"


offset = st.tuples(*[st.floats(-0.25, 0.25, allow_nan=False)] * 3)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(offset, min_size=1, max_size=4), st.booleans())
def test_a_limited_ccd_chain_keeps_its_limits(moves, full_body):
    rig = spine_rig("ccd", LIMITS)
    rig.full_body = full_body
    ch = rig.chain(CHAIN)
    assert dict(ch.limits) == LIMITS
    home = np.array(ch.target)
    for move in moves:  # the first solve, then warm-started ones as a drag makes
        ch.target = home + move
        report = rig.solve()[CHAIN]
        assert np.isnan(report.error) or report.error >= 0.0
        errors = limit_errors_deg(rig, CHAIN)
        assert set(errors) == set(LIMITS)
        assert max(errors.values()) <= LIMIT_EPS_DEG, (move, errors)
    assert rig.chain(CHAIN).solver == "ccd" and dict(rig.chain(CHAIN).limits) == LIMITS


def test_warm_started_limited_ccd_solves_never_lose_ground():
    rig = spine_rig("ccd", LIMITS)
    ch = rig.chain(CHAIN)
    ch.target = ch.target + (0.0, -0.01, 0.02)
    errors = [rig.solve()[CHAIN].error for _ in range(4)]
    assert all(b <= a for a, b in zip(errors, errors[1:])), errors
    # The later solves go on from the first's pose: nearer, unless the first already ended
    # within the tolerance (with the least-squares step it does here).
    assert errors[-1] < errors[0] or errors[0] <= ch.tolerance, errors
    assert max(limit_errors_deg(rig, CHAIN).values()) <= LIMIT_EPS_DEG
