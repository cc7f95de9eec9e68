"""rig_limb.solve_limb, the rig's one-pass two-bone chain, agrees with the generic steps it
writes out (rig_solve.chain_pose, two_bone_chain, local_turns, soft.effective_target_float)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core import scalar_quat as sq
from rigedit.core.ik.limits import ConeLimit, HingeLimit
from rigedit.core.ik.soft import effective_target_float
from rigedit.core.rig import Rig
from rigedit.core.rig_limb import solve_limb
from rigedit.core.rig_solve import _limit_params, chain_pose, local_turns, two_bone_chain
from rigedit.core.skeleton import Skeleton

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
def test_solve_limb_matches_the_generic_steps(base_pos, base_rot, offsets, warm, target, pole, limit, soft):
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


@settings(max_examples=200, deadline=None)
@given(
    vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors,
    st.one_of(st.none(), vectors), st.one_of(st.none(), st.builds(ConeLimit, st.floats(1.0, 170.0))), softs,
)  # fmt: skip
def test_without_a_twist_solve_limb_is_the_generic_steps_to_the_bit(base_pos, base_rot, offsets, warm, target, pole, limit, soft):
    """No limit or a cone (no hinge, so no twist): the compiled limb does the generic
    steps' operations in their order (two_bone_ik's hypot included), so every bit agrees,
    signed zeros too. (A hinge's twist is applied in another but equal form: the test
    above holds it to round-off.)"""
    args = _args(base_pos, base_rot, offsets, warm, target, pole, limit, soft)
    assert repr(solve_limb(*args)) == repr(_generic(*args))


@settings(max_examples=300, deadline=None)
@given(vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors, st.one_of(st.none(), vectors), limits, softs)
def test_the_compiled_limb_is_its_python_source_to_the_bit(base_pos, base_rot, offsets, warm, target, pole, limit, soft):
    """The kernel run as Python (its source and the helpers it compiles in, interpreted)
    against the machine code: numba must keep every operation, and libm's atan2, sin and
    cos must be the ones CPython calls, limits and twists included."""
    from rigedit.core import rig_limb_kernel as k

    args = _args(base_pos, base_rot, offsets, warm, target, pole, limit, soft)
    compiled = solve_limb(*args)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(k, "_limited", k._limited.py_func)
        mp.setattr(k, "limb", k.limb.py_func)
        interpreted = solve_limb(*args)
    assert repr(compiled) == repr(interpreted)


def test_ints_and_lists_give_the_answer_of_floats():
    floats = ((0.3, 1.2, -0.4), (0.0, 1.0, 1.0), 1e-3, 1.0, 0.0, 0.9, ("cone", 1.0), (0.0, 1.0, 0.0),
              (0.0, 0.0, 0.0, 1.0), [(0.1, 0.0, 0.0), (0.0, -0.5, 0.0), (0.0, -0.4, 0.0)], [(0.0, 0.0, 0.0, 1.0)] * 2)  # fmt: skip
    mixed = ([0.3, 1.2, -0.4], np.array([0, 1, 1]), 1e-3, 1, 0, 0.9, ("cone", 1), [0, 1, 0],
             (0, 0, 0, 1), [[0.1, 0, 0], (0, -0.5, 0), np.array([0.0, -0.4, 0.0])], [(0, 0, 0, 1)] * 2)  # fmt: skip
    assert repr(solve_limb(*mixed)) == repr(solve_limb(*floats))


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
                lim=("hinge", (1.0, 0.0, 0.0), 0.0, 2.5), base_pos=(0.0, 1.0, 0.0), base_rot=(0.0, 0.0, 0.0, 1.0),
                offsets=[(0.1, 0.0, 0.0), (0.0, -0.5, 0.0), (0.0, -0.4, 0.0)], warm=[(0.0, 0.0, 0.0, 1.0)] * 2)  # fmt: skip
    args[field] = value
    with pytest.raises(ValueError, match=words):
        solve_limb(**args)
