"""rig_limb.solve_limb, the rig's one-pass two-bone chain: the contract in the pose it writes
(targets hit, lengths kept, limits held, the pole's plane), and agreement to round-off with
the rig's general chain path (bone_turns.chain_pose, rig_solve.two_bone_chain, bone_turns.local_turns)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core import scalar_quat as sq
from rigedit.core.ik.limits import ConeLimit, HingeLimit, limit_error_deg
from rigedit.core.ik.soft import effective_target_float
from rigedit.core.rig import Rig
from rigedit.core.rig_limb import limb_fixed, solve_limb
from rigedit.core.bone_turns import chain_pose, local_turns
from rigedit.core.rig_solve import _limit_params, two_bone_chain
from rigedit.core.skeleton import Skeleton
from tests.core.helpers import assert_pose

unit_quats = st.tuples(*[st.floats(-1.0, 1.0)] * 4).filter(lambda q: sum(c * c for c in q) > 0.1)
vectors = st.tuples(*[st.floats(-1.0, 1.0)] * 3)
bones = vectors.filter(lambda v: np.linalg.norm(v) > 1e-3)
limits = st.one_of(
    st.none(),
    st.builds(ConeLimit, st.floats(1.0, 170.0)),
    st.builds(
        lambda axis, ends: HingeLimit(axis, min(ends), max(ends)),
        bones,
        st.tuples(st.floats(-180.0, 180.0), st.floats(-180.0, 180.0)),
    ),
)


def _unit(q):
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def _generic(target, pole, tol, clamp, soft, total, lim, base_pos, base_rot, offsets, warm):
    points, frames = chain_pose(base_pos, base_rot, offsets, warm)
    aim = target
    if clamp < 1.0 or soft > 0.0:
        aim = effective_target_float(points[0], target, total, clamp, soft)
    solved, twists = two_bone_chain(aim, pole, tol, lim, points, frames)
    return local_turns(base_rot, warm, offsets, solved, twists), sq.dist(solved[-1], target), solved[-1]


@settings(max_examples=200, deadline=None)
@given(
    vectors,
    unit_quats,
    st.tuples(vectors, bones, bones),
    st.tuples(unit_quats, unit_quats),
    vectors,
    st.one_of(st.none(), vectors),
    limits,
    st.sampled_from([(1.0, 0.0), (0.999, 0.0), (0.9, 0.0), (1.0, 0.1)]),
)
def test_solve_limb_matches_the_general_chain_path(base_pos, base_rot, offsets, warm, target, pole, limit, soft):
    base_rot = _unit(base_rot)
    warm = [_unit(q) for q in warm]
    offsets = list(offsets)
    lim = None if limit is None else _limit_params(limit)
    total = sum(sq.norm(o) for o in offsets[1:])
    args = (target, pole, 1e-3, soft[0], soft[1], total, lim, base_pos, base_rot, offsets, warm)
    got_ik, got_error, got_tip = solve_limb(*args)
    want_ik, want_error, want_tip = _generic(*args)
    for g, w in zip(got_ik, want_ik, strict=True):
        assert min(max(abs(a - b) for a, b in zip(g, w)), max(abs(a + b) for a, b in zip(g, w))) < 1e-9
        assert abs(sum(c * c for c in g) - 1.0) < 1e-12
    assert abs(got_error - want_error) < 1e-12
    assert max(abs(a - b) for a, b in zip(got_tip, want_tip)) < 1e-12


@settings(max_examples=200, deadline=None)
@given(
    vectors,
    unit_quats,
    st.tuples(vectors, bones, bones),
    st.tuples(unit_quats, unit_quats),
    vectors,
    st.one_of(st.none(), vectors),
    limits,
    st.sampled_from([(1.0, 0.0), (0.999, 0.0), (0.9, 0.0), (1.0, 0.1)]),
    st.sampled_from([1e-3, 1e-7]),
)
def test_the_rigs_packed_limb_call_matches_the_general_chain_path(base_pos, base_rot, offsets, warm, target, pole, limit, soft, tol):
    """What Rig.solve calls per limb (the arguments that stay put in one row, limb_fixed)."""
    base_rot = _unit(base_rot)
    warm = [_unit(q) for q in warm]
    offsets = list(offsets)
    lim = None if limit is None else _limit_params(limit)
    total = sum(sq.norm(o) for o in offsets[1:])
    args = (target, pole, tol, soft[0], soft[1], total, lim, base_pos, base_rot, offsets, warm)
    got_ik, got_error, got_tip = solve_limb(*args, limb_fixed(tol, soft[0], soft[1], total, lim, offsets))
    want_ik, want_error, want_tip = _generic(*args)
    for g, w in zip(got_ik, want_ik, strict=True):
        assert min(max(abs(a - b) for a, b in zip(g, w)), max(abs(a + b) for a, b in zip(g, w))) < 1e-9
    assert abs(got_error - want_error) < 1e-12
    assert max(abs(a - b) for a, b in zip(got_tip, want_tip)) < 1e-12


@pytest.mark.parametrize(
    "limit, bend_deg",
    [(HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0), 150.0), (ConeLimit(60.0), 60.0)],
)
def test_a_limb_folded_onto_itself_bends_to_its_limit(limit, bend_deg):
    """Equal bones and the target on the root fold the limb back exactly onto itself: no
    bend plane (the bones' cross product is exactly zero). The limit still turns the lower
    bone (about the hinge axis, or a fixed perpendicular for a cone) instead of failing."""
    sk = Skeleton.from_joints([("hip", None, (0.0, 1.0, 0.0)), ("knee", "hip", (0.0, -0.4, 0.0)), ("foot", "knee", (0.0, -0.4, 0.0))])
    rig = Rig(sk)
    rig.add_chain("leg", ["hip", "knee", "foot"], solver="two_bone", target=(0.0, 1.0, 0.0), limits={"knee": limit})
    report = rig.solve()["leg"]
    pos = rig.world_positions()
    assert np.all(np.isfinite(pos)) and not report.reached
    thigh, shin = pos[1] - pos[0], pos[2] - pos[1]
    bend = np.degrees(np.arccos(np.clip(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin), -1.0, 1.0)))
    assert bend == pytest.approx(bend_deg, abs=1e-6)


def _args(base_pos, base_rot, offsets, warm, target, pole, limit, soft):
    offsets = list(offsets)
    total = sum(sq.norm(o) for o in offsets[1:])
    lim = None if limit is None else _limit_params(limit)
    return (target, pole, 1e-3, soft[0], soft[1], total, lim, base_pos, _unit(base_rot), offsets, [_unit(q) for q in warm])


softs = st.sampled_from([(1.0, 0.0), (0.999, 0.0), (0.9, 0.0), (1.0, 0.1)])


def _written(base_pos, base_rot, offsets, ik):
    """FK of the written local rotations: the three joints and the upper bone's frame."""
    points, frames = chain_pose(base_pos, base_rot, offsets, ik)
    return [np.array(p) for p in points], frames


@settings(max_examples=300, deadline=None)
@given(vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors, st.one_of(st.none(), vectors), limits)
def test_the_written_pose_keeps_the_contract(base_pos, base_rot, offsets, warm, target, pole, limit):
    """The pose solve_limb writes, read back by FK: the tip it reports, the bone lengths of
    the offsets, the middle joint's limit, and (no limit) a reachable target hit and the mid
    joint in the pole's plane on its side."""
    args = _args(base_pos, base_rot, offsets, warm, target, pole, limit, (1.0, 0.0))
    ik, error, tip = solve_limb(*args)
    offsets = args[9]
    root, mid, end = (p for p in _written(base_pos, args[8], offsets, ik)[0])
    frames = _written(base_pos, args[8], offsets, ik)[1]
    assert np.all(np.isfinite(ik)) and all(abs(sq.norm(q[:3]) ** 2 + q[3] ** 2 - 1.0) < 1e-12 for q in ik)
    assert_pose(end, tip, 1e-12)
    assert abs(error - np.linalg.norm(end - np.array(target))) < 1e-12
    a, b = sq.norm(offsets[1]), sq.norm(offsets[2])
    assert abs(np.linalg.norm(mid - root) - a) < 1e-12 and abs(np.linalg.norm(end - mid) - b) < 1e-12
    if limit is not None:
        try:
            assert limit_error_deg(limit, mid - root, frames[0], end - mid) < 1e-6
        except ValueError:
            assert isinstance(limit, HingeLimit)  # its axis along the upper bone: no plane to hold
        return
    d = np.linalg.norm(np.array(target) - root)
    if abs(a - b) + 1e-9 < d < a + b - 1e-9:
        assert error < 1e-9
    if pole is not None and abs(a - b) + 1e-3 < d < a + b - 1e-3:
        u = (np.array(target) - root) / d
        p = np.array(pole) - root
        off = p - p.dot(u) * u
        if np.linalg.norm(off) > 1e-3:
            normal = np.cross(u, off) / np.linalg.norm(off)
            assert abs((mid - root) @ normal) < 1e-9
            assert (mid - root) @ off > 0.0


@settings(max_examples=100, deadline=None)
@given(vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors, st.sampled_from([0.999, 0.9]))
def test_the_reach_clamp_keeps_the_limb_bent(base_pos, base_rot, offsets, warm, target, clamp):
    """The tip never reaches past `clamp` of the chain's length (unless the limb cannot
    fold shorter than that: |a - b|), and a target beyond it leaves the tip there."""
    args = _args(base_pos, base_rot, offsets, warm, target, None, None, (clamp, 0.0))
    ik, _, tip = solve_limb(*args)
    root = _written(base_pos, args[8], args[9], ik)[0][0]
    a, b = sq.norm(args[9][1]), sq.norm(args[9][2])
    reach = np.linalg.norm(np.array(tip) - root)
    assert reach <= max(clamp * args[5], abs(a - b)) + 1e-12
    if np.linalg.norm(np.array(target) - root) >= args[5] and clamp * args[5] >= abs(a - b):
        assert reach == pytest.approx(clamp * args[5], abs=1e-12)


def test_ints_and_lists_give_the_answer_of_floats():
    floats = ((0.3, 1.2, -0.4), (0.0, 1.0, 1.0), 1e-3, 1.0, 0.0, 0.9, _limit_params(ConeLimit(60.0)), (0.0, 1.0, 0.0),
              (0.0, 0.0, 0.0, 1.0), [(0.1, 0.0, 0.0), (0.0, -0.5, 0.0), (0.0, -0.4, 0.0)], [(0.0, 0.0, 0.0, 1.0)] * 2)  # fmt: skip
    mixed = ([0.3, 1.2, -0.4], np.array([0, 1, 1]), 1e-3, 1, 0, 0.9, (1, [0, 0, 0], np.radians(60), 0), [0, 1, 0],
             (0, 0, 0, 1), [[0.1, 0, 0], (0, -0.5, 0), np.array([0.0, -0.4, 0.0])], [(0, 0, 0, 1)] * 2)  # fmt: skip
    (got, got_error, got_tip), (want, want_error, want_tip) = solve_limb(*mixed), solve_limb(*floats)
    assert np.abs(np.array(got) - np.array(want)).max() < 1e-15
    assert abs(got_error - want_error) < 1e-15 and np.abs(np.array(got_tip) - want_tip).max() < 1e-15


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("target", (1e200, 0.0, 0.0), "too large"),
        ("target", (math.nan, 0.0, 0.0), "target has non-finite"),
        ("pole", (0.0, math.inf, 0.0), "pole has non-finite"),
        ("tolerance", 0.0, "eps must be a positive number"),
    ],
)
def test_input_two_bone_ik_refuses_raises_its_error(field, value, words):
    args = dict(target=(0.3, 1.2, -0.4), pole=None, tolerance=1e-3, reach_clamp=1.0, softness=0.0, total=0.9,
                lim=_limit_params(HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0)), base_pos=(0.0, 1.0, 0.0), base_rot=(0.0, 0.0, 0.0, 1.0),
                offsets=[(0.1, 0.0, 0.0), (0.0, -0.5, 0.0), (0.0, -0.4, 0.0)], warm=[(0.0, 0.0, 0.0, 1.0)] * 2)  # fmt: skip
    args[field] = value
    with pytest.raises(ValueError, match=words):
        solve_limb(**args)
