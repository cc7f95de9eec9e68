"""A two-bone chain as Rig.solve solves it (the compiled frame's limb row,
two_bone_kernel._limb): the contract in the pose it writes (targets hit, lengths kept,
limits held, the pole's plane), agreement to round-off with the single-chain API
(two_bone_ik) on the same points."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rigedit.core import scalar_quat as sq
from rigedit.core.ik.limits import ConeLimit, HingeLimit, limit_error_deg
from rigedit.core.ik.two_bone import two_bone_ik
from rigedit.core.rig import Rig
from rigedit.core.bone_turns import chain_pose
from rigedit.core.chain_settings import LimitFitError
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


def _limb_rig(base_pos, base_rot, offsets, warm, target, pole, limit, soft=(1.0, 0.0), tol=1e-3) -> Rig:
    """A rig whose joint `base` (at base_pos, turned base_rot) carries the limb root, mid,
    end (their offsets, the root's and mid's rotations `warm`: the animated pose the solve
    starts from), one two-bone chain on them."""
    joints = [("base", None, base_pos), ("root", "base", offsets[0]), ("mid", "root", offsets[1]), ("end", "mid", offsets[2])]
    rest = np.array([base_rot, warm[0], warm[1], (0.0, 0.0, 0.0, 1.0)], dtype=np.float64)
    rig = Rig(Skeleton.from_joints(joints, rest_rotations=rest))
    try:
        rig.add_chain("leg", ["root", "mid", "end"], solver="two_bone", target=target, pole=pole, tolerance=tol,
                      limits={} if limit is None else {"mid": limit})  # fmt: skip
    except LimitFitError:
        assume(False)  # a hinge axis along the upper bone: the rig refuses the limit (test_limits)
    rig.chain("leg").reach_clamp, rig.chain("leg").softness = soft
    return rig


def _solved(rig: Rig):
    """(the limb's two local rotations, the reported error, the tip) after Rig.solve."""
    report = rig.solve()["leg"]
    return [tuple(q) for q in rig.pose.rotations[1:3].tolist()], report.error, tuple(rig.world_position("end").tolist())


def _written(base_pos, base_rot, offsets, ik):
    """FK of the written local rotations: the three joints and the upper bone's frame."""
    points, frames = chain_pose(base_pos, base_rot, offsets, ik)
    return [np.array(p) for p in points], frames


case = (vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors)


@settings(max_examples=150, deadline=None)
@given(*case, st.one_of(st.none(), vectors))
def test_the_rigs_limb_is_two_bone_ik_on_the_same_points(base_pos, base_rot, offsets, warm, target, pole):
    """No limit, no reach clamp: the rig's solve puts the joints where the single-chain API
    puts them, started from the same points (the animated pose's)."""
    base_rot, warm = _unit(base_rot), [_unit(q) for q in warm]
    rig = _limb_rig(base_pos, base_rot, offsets, warm, target, pole, None)
    start = rig.world_positions()[1:]
    want = two_bone_ik(start[0], start[1], start[2], np.array(target), None if pole is None else np.array(pole), eps=1e-6)
    _, error, tip = _solved(rig)
    got = rig.world_positions()[1:]
    np.testing.assert_allclose(got[1], want.mid, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got[2], want.end, rtol=0, atol=1e-9)
    assert abs(error - np.linalg.norm(np.array(tip) - target)) < 1e-12


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


@settings(max_examples=300, deadline=None)
@given(vectors, unit_quats, st.tuples(vectors, bones, bones), st.tuples(unit_quats, unit_quats), vectors, st.one_of(st.none(), vectors), limits)
def test_the_written_pose_keeps_the_contract(base_pos, base_rot, offsets, warm, target, pole, limit):
    """The pose Rig.solve writes, read back by FK: the tip it reports, the bone lengths of
    the offsets, the middle joint's limit, and (no limit) a reachable target hit and the mid
    joint in the pole's plane on its side."""
    base_rot, warm = _unit(base_rot), [_unit(q) for q in warm]
    ik, error, tip = _solved(_limb_rig(base_pos, base_rot, offsets, warm, target, pole, limit))
    offsets = list(offsets)
    root, mid, end = (p for p in _written(base_pos, base_rot, offsets, ik)[0])
    frames = _written(base_pos, base_rot, offsets, ik)[1]
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
    base_rot, warm = _unit(base_rot), [_unit(q) for q in warm]
    ik, _, tip = _solved(_limb_rig(base_pos, base_rot, offsets, warm, target, None, None, (clamp, 0.0)))
    root = _written(base_pos, base_rot, list(offsets), ik)[0][0]
    a, b = sq.norm(offsets[1]), sq.norm(offsets[2])
    total = a + b
    reach = np.linalg.norm(np.array(tip) - root)
    assert reach <= max(clamp * total, abs(a - b)) + 1e-12
    if np.linalg.norm(np.array(target) - root) >= total and clamp * total >= abs(a - b):
        assert reach == pytest.approx(clamp * total, abs=1e-12)
