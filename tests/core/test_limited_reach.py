"""A limited chain started from its rest pose reaches targets inside its limits (issue 24,
item 4): targets made from random joint angles the limits allow (tests/core/limited_cases.py),
solved by fabrik and ccd from the rest pose."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit, ccd, fabrik
from rigedit.core.scalar_quat import qbetween, qrot, turn_unit
from tests.core.limited_cases import Case

SOLVERS = pytest.mark.parametrize("solve", [fabrik, ccd], ids=["fabrik", "ccd"])
ARM = (0.3, 0.25)  # upper arm, forearm (m)


def _arm_target(root_dir, rest, axis, swing, azimuth, bend):
    """Where the wrist is with the upper arm `swing` from the parent bone (azimuth about it)
    and the elbow bent `bend` about its hinge, the hinge axis carried by the upper arm's
    frame: parallel transport from the parent bone to the rest pose, then the shortest arc
    from the rest direction (the solvers' frames)."""
    rd = np.asarray(root_dir, dtype=np.float64)
    p = np.cross(rd, (0.0, 0.0, 1.0) if abs(rd[2]) < 0.9 else (1.0, 0.0, 0.0))
    p /= np.linalg.norm(p)
    upper = math.cos(swing) * rd + math.sin(swing) * (math.cos(azimuth) * p + math.sin(azimuth) * np.cross(rd, p))
    turn = turn_unit(tuple(rest), tuple(upper.tolist()), (0.0, 0.0, 0.0, 1.0))
    hinge = np.array(qrot(turn, qrot(qbetween(tuple(root_dir), tuple(rest)), axis)))
    hinge -= hinge.dot(upper) * upper
    hinge /= np.linalg.norm(hinge)
    fore = math.cos(bend) * upper + math.sin(bend) * np.cross(hinge, upper)
    return ARM[0] * upper + ARM[1] * fore


@pytest.mark.parametrize(
    "root_dir, rest", [((1.0, 0.0, 0.0), (1.0, 0.0, 0.0)), ((0.0, -1.0, 0.0), (0.0, -1.0, 0.0))], ids=["t_pose", "hanging"]
)
@pytest.mark.parametrize("axis", [(0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.0, 0.0, -1.0), (1.0, 0.0, 0.0)])
def test_an_arm_with_a_shoulder_cone_and_an_elbow_hinge_reaches_every_target_inside_its_limits(root_dir, rest, axis):
    """The arm of issue 24: a 90-degree cone at the shoulder, a 0-90 degree hinge at the
    elbow, solved by limited FABRIK from its rest pose (straight) toward wrist positions its
    limits allow. Not at the very edge of the limits (the shoulder within 5 degrees of its
    cone, the elbow within 10 of straight): there, with both joints against their ends,
    the passes still crawl (1.4 mm short of a target at 99% of full stretch after 30).
    Nor from a rest pose on the edge of the cone (the upper arm hanging 90 degrees from a
    sideways parent bone): from there 3% of these targets still end 1-47 mm short after 30
    passes (15% before the least-squares step and the other starts). (ccd misses one target
    in a hundred here: the random chains test holds it.)"""
    if np.linalg.norm(np.cross(qrot(qbetween(root_dir, rest), axis), rest)) < 1e-3:
        pytest.skip("a hinge axis along its bone")
    pts = np.array([(0.0, 0.0, 0.0), np.multiply(rest, ARM[0]), np.multiply(rest, ARM[0] + ARM[1])])
    lim = ChainLimits({0: ConeLimit(90.0), 1: HingeLimit(axis, 0.0, 90.0)}, root_dir=root_dir)
    rng = np.random.default_rng(7)
    missed = []
    for _ in range(250):
        angles = rng.uniform(0.0, math.radians(85.0)), rng.uniform(-math.pi, math.pi), rng.uniform(math.radians(10.0), math.pi / 2)
        target = _arm_target(root_dir, rest, axis, *angles)
        r = fabrik(pts, target, limits=lim, max_iterations=30)
        if not r.reached:
            missed.append((target.round(3).tolist(), r.error, r.iterations))
    assert not missed, missed


@SOLVERS
def test_random_limited_chains_from_rest_reach_targets_made_from_allowed_joint_angles(solve):
    """3-6 joints with cones and hinges (random axes and ranges), 150 chains, a target each
    from random angles within the limits: nearly all are reached from the rest pose. Not all:
    each solver is local (a start from far off can settle in another valley of the tip's
    distance), and from several other starts it finds most, not every, way out."""
    rng = np.random.default_rng(2024)
    missed = []
    for _ in range(150):
        case = Case(rng)
        target = case.tip(case.random_x(rng))
        r = solve(case.rest, target, limits=case.limits, max_iterations=100)
        if not r.reached:
            missed.append(r.error)
    assert len(missed) <= 6, sorted(missed)


# A target counts as reached within 1 mm (issue 24: "within 1 mm of the best pose the
# limits allow", which for a target made from allowed angles is the target itself).
REACH = 1e-3


@SOLVERS
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**63 - 1))
def test_from_rest_a_random_limited_chain_reaches_the_tip_of_a_random_allowed_pose(solve, seed):
    """Chains and targets from a seed hypothesis draws (not cases a fix could be tuned to):
    20 random hinge/cone chains, each solved from its rest pose toward the tip of a random
    pose inside its limits, at the default cap and (for those it misses) at 100. Solved to
    1 mm: nearly all. Not every one: a local solver started far off can still settle in
    another valley of the tip's distance (on 400 such chains FABRIK missed 9 at the default
    cap and 1 at 100, CCD 8 and 1; bench_limited_optimality.py counts them); the bounds
    below leave room for that, not for a solver that gives up (before the least-squares
    step measured its Jacobian, one chain in ten was missed at the default cap)."""
    rng = np.random.default_rng(seed)
    missed_default, missed_100 = [], []
    for _ in range(20):
        case = Case(rng)
        target = case.tip(case.random_x(rng))
        r = solve(case.rest, target, limits=case.limits, tolerance=REACH)
        if r.error > REACH:
            missed_default.append(r.error)
            r = solve(case.rest, target, limits=case.limits, tolerance=REACH, max_iterations=100)
            if r.error > REACH:
                missed_100.append(r.error)
    assert len(missed_default) <= 4, sorted(missed_default)
    assert len(missed_100) <= 2, sorted(missed_100)
