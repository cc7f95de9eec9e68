"""A limited chain started from its rest pose reaches targets inside its limits (issue 24,
item 4): targets made from random joint angles the limits allow (tests/core/limited_cases.py),
solved by fabrik and ccd from the rest pose."""
from __future__ import annotations

import math

import numpy as np
import pytest

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
