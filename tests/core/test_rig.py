"""Rig.solve(): bundled rigs at rest, reaching targets, weight blending, chain order, warm starts,
limits in the written pose, clips, copies."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.clip import Clip
from rigedit.core.ik.limits import ConeLimit, HingeLimit, limit_error_deg
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_axis_angle, quat_mul, quat_rotate, quat_slerp

PRESETS = sorted(p.stem for p in BUNDLED_PRESETS.glob("*.json"))


def load(name: str) -> Rig:
    return Rig.load(BUNDLED_PRESETS / f"{name}.json")


def tip(rig: Rig, chain: str) -> np.ndarray:
    return rig.world_position(rig.chain(chain).joints[-1])


def limit_errors_deg(rig: Rig, chain: str) -> dict[str, float]:
    """How far each limited joint of the chain is outside its limit in the current pose,
    measured independently of the solver with limits.limit_error_deg on plain FK."""
    sk, ch = rig.skeleton, rig.chain(chain)
    pos, rot = sk.fk(rig.pose)
    out = {}
    for name, lim in ch.limits.items():
        j = sk.index(name)
        p = sk.parents[j]
        child = sk.index(ch.joints[list(ch.joints).index(name) + 1])
        out[name] = limit_error_deg(lim, pos[j] - pos[p], rot[p], pos[child] - pos[j])
    return out


def test_bundled_presets_are_there():
    assert {"humanoid", "creature", "tentacle"} <= set(PRESETS)


@pytest.mark.parametrize("name", PRESETS)
def test_a_fresh_bundled_rig_is_already_solved(name):
    rig = load(name)
    before = rig.world_positions()
    reports = rig.solve()
    assert set(reports) == set(rig.chain_names)
    assert all(r.reached for r in reports.values())
    assert np.allclose(rig.world_positions(), before, atol=1e-9, rtol=0)
    for chain in rig.chain_names:
        assert all(e < 1e-6 for e in limit_errors_deg(rig, chain).values())


def nearby_targets(rig: Rig, chain: str) -> list[np.ndarray]:
    """Targets a few centimetres from the tip, pulled 3 cm toward the chain's root (so a
    limb near full stretch stays in reach) and pushed 2 cm sideways in four directions."""
    ch = rig.chain(chain)
    root, end = rig.world_position(ch.joints[0]), rig.world_position(ch.joints[-1])
    inward = (root - end) / np.linalg.norm(root - end)
    a = np.cross(inward, [0.0, 0.0, 1.0] if abs(inward[2]) < 0.9 else [1.0, 0.0, 0.0])
    a /= np.linalg.norm(a)
    b = np.cross(inward, a)
    return [end + 0.03 * inward + 0.02 * side for side in (a, -a, b, -b)]


# Reaching chains only: a look_at chain aims at its target, a ground-feet chain's target is
# set by the ground each solve (both tested in tests/core/test_rig_uses.py).
@pytest.mark.parametrize(
    "name,chain",
    [(n, c) for n in PRESETS for c in load(n).chain_names if load(n).chain(c).solver != "look_at" and not load(n).chain(c).ground_feet],
)
def test_every_bundled_chain_reaches_nearby_targets(name, chain):
    rig = load(name)
    for target in nearby_targets(rig, chain):
        fresh = rig.copy()
        fresh.chain(chain).target = target
        report = fresh.solve()[chain]
        assert report.reached, (target, report)
        assert np.linalg.norm(tip(fresh, chain) - target) <= fresh.chain(chain).tolerance
        # Limits hold in the pose as written, not only inside the solver.
        assert all(e < 1e-6 for e in limit_errors_deg(fresh, chain).values())


def test_the_default_rig_is_the_humanoid():
    rig = rigedit.Rig.default()
    names = set(rig.skeleton.names)
    for j in ["Hips", "Spine", "Spine1", "Spine2", "Chest", "Neck", "Head"]:
        assert j in names
    for side in ("Left", "Right"):
        for j in ["Shoulder", "Arm", "ForeArm", "Hand", "UpLeg", "Leg", "Foot", "ToeBase"]:
            assert side + j in names
    assert rig.chain_names[0] == "spine"
    assert set(rig.chain_names) == {"spine", "left_arm", "right_arm", "left_leg", "right_leg"}
    assert 1.7 <= rig.skeleton.height() <= 1.8
    for limb in ("left_arm", "right_arm", "left_leg", "right_leg"):
        ch = rig.chain(limb)
        assert ch.solver == "two_bone" and ch.pole is not None
        assert isinstance(ch.limits[ch.joints[1]], HingeLimit)
    assert rig.chain("spine").solver == "fabrik" and len(rig.chain("spine").joints) >= 5


def test_poles_sit_in_front_of_knees_and_behind_elbows():
    rig = rigedit.Rig.default()  # faces +Z
    for side in ("left", "right"):
        knee = rig.world_position(rig.chain(f"{side}_leg").joints[1])
        elbow = rig.world_position(rig.chain(f"{side}_arm").joints[1])
        assert rig.chain(f"{side}_leg").pole[2] > knee[2] + 0.1
        assert rig.chain(f"{side}_arm").pole[2] < elbow[2] - 0.1


# --- weights ---------------------------------------------------------------------------------


def swaying_clip(rig: Rig, frames: int = 11, joints=None) -> Clip:
    """The hips sliding 20 cm along X and the given joints (default: all) swaying 0.2 rad."""
    rest = rig.skeleton.rest_pose()
    rot = np.tile(rest.rotations, (frames, 1, 1))
    trans = np.tile(rest.translations, (frames, 1, 1))
    s = np.linspace(0.0, 1.0, frames)
    trans[:, 0, 0] += 0.2 * s
    for j in range(1, len(rig.skeleton)) if joints is None else [rig.skeleton.index(n) for n in joints]:
        axis = np.array([np.sin(j), 1.0, np.cos(j)])
        rot[:, j] = quat_mul(quat_from_axis_angle(axis, 0.2 * np.sin(6.0 * s + j)), rot[:, j])
    return Clip(rot, trans, 0.1)


@pytest.mark.parametrize("with_clip", [False, True])
def test_weight_zero_gives_the_animated_pose_exactly(with_clip):
    rig = rigedit.Rig.default()
    if with_clip:
        rig.clip = swaying_clip(rig)
        rig.time = 0.37
    for ch in rig.chains:
        ch.weight = 0.0
        ch.target = ch.target + np.array([0.05, -0.1, 0.08])
    reports = rig.solve()
    anim = rig.animated_pose()
    assert np.array_equal(rig.pose.rotations, anim.rotations)
    assert np.array_equal(rig.pose.translations, anim.translations)
    # The IK still ran (it warm-starts the next solve): the reports say how it went.
    assert set(reports) == set(rig.chain_names)


@settings(max_examples=25, deadline=None)
@given(
    st.floats(0.0, 1.0),
    st.tuples(*[st.floats(-0.15, 0.15)] * 3),
)
def test_weight_blends_local_rotations_by_slerp(w, offset):
    base = rigedit.Rig.default()
    base.clip = swaying_clip(base)
    base.time = 0.5
    full = base.copy()
    for rig in (base, full):
        rig.chain("left_arm").target = rig.chain("left_arm").target + np.array(offset)
    base.chain("left_arm").weight = w
    base.solve()
    full.solve()
    idx = [base.skeleton.index(j) for j in base.chain("left_arm").joints[:-1]]
    anim = base.animated_pose().rotations[idx]
    ik = full.pose.rotations[idx]
    assert np.allclose(base.pose.rotations[idx], quat_slerp(anim, ik, w), atol=1e-12)
    others = [j for j in range(len(base.skeleton)) if j not in idx]
    assert np.array_equal(base.pose.rotations[others], full.pose.rotations[others])


def test_weight_one_reaches_and_weight_between_falls_short():
    rig = rigedit.Rig.default()
    target = np.array([0.3, 1.2, 0.25])
    rig.chain("left_arm").target = target
    assert rig.solve()["left_arm"].reached
    assert np.linalg.norm(tip(rig, "left_arm") - target) < 1e-9
    rest_hand = rigedit.Rig.default().world_position("LeftHand")
    rig.chain("left_arm").weight = 0.5
    rig.solve()
    half = tip(rig, "left_arm")
    assert np.linalg.norm(half - target) > 0.05
    assert np.linalg.norm(half - rest_hand) > 0.05


def test_out_of_reach_straightens_toward_the_target_and_says_so():
    rig = rigedit.Rig.default()
    shoulder = rig.world_position("LeftArm")
    target = shoulder + np.array([2.0, 0.5, 1.0])
    rig.chain("left_arm").target = target
    report = rig.solve()["left_arm"]
    assert not report.reached
    hand = tip(rig, "left_arm")
    direction = (target - shoulder) / np.linalg.norm(target - shoulder)
    assert np.allclose((hand - shoulder) / np.linalg.norm(hand - shoulder), direction, atol=1e-9)
    assert report.error == pytest.approx(np.linalg.norm(target - hand), abs=1e-12)


# --- order, warm starts, caching ------------------------------------------------------------


def test_later_chains_solve_on_the_pose_earlier_chains_made():
    rig = rigedit.Rig.default()
    hand_target = rig.chain("left_arm").target.copy()
    shoulder_before = rig.world_position("LeftArm")
    rig.chain("spine").target = rig.chain("spine").target + np.array([0.06, -0.03, 0.05])
    reports = rig.solve()
    assert reports["spine"].reached
    assert np.linalg.norm(rig.world_position("LeftArm") - shoulder_before) > 0.02
    assert reports["left_arm"].reached
    assert np.linalg.norm(rig.world_position("LeftHand") - hand_target) < 1e-9


def test_each_chain_warm_starts_from_its_own_solution_not_the_blended_pose():
    rig = load("tentacle")
    ch = rig.chain("tentacle")
    ch.weight = 0.5
    ch.target = ch.target + np.array([0.15, -0.1, 0.1])
    first = rig.solve()["tentacle"]
    assert first.reached
    assert np.linalg.norm(tip(rig, "tentacle") - ch.target) > 10 * ch.tolerance  # half blended
    # A nudge far inside what is left of the tolerance: the chain's own last solution still
    # reaches it, the half-blended pose does not, so a solve from the former runs no pass.
    ch.target = ch.target + np.array([1e-3 * (ch.tolerance - first.error), 0.0, 0.0])
    report = rig.solve()["tentacle"]
    assert report.reached and report.iterations == 0


def test_solving_again_changes_nothing_and_a_change_is_picked_up():
    rig = rigedit.Rig.default()
    rig.chain("left_leg").target = (0.12, 0.3, 0.25)
    rig.solve()
    pose = rig.pose
    again = rig.solve()
    assert all(r.iterations == 0 for r in again.values())
    assert np.array_equal(rig.pose.rotations, pose.rotations)
    rig.chain("left_leg").pole = (0.4, 0.5, 0.5)
    rig.solve()
    assert not np.array_equal(rig.pose.rotations, pose.rotations)
    assert np.linalg.norm(tip(rig, "left_leg") - (0.12, 0.3, 0.25)) < 1e-9


def test_fabrik_short_of_its_target_keeps_going_on_later_frames():
    rig = load("tentacle")
    ch = rig.chain("tentacle")
    ch.max_iterations = 1
    ch.target = ch.target + np.array([0.2, -0.15, 0.1])
    errors = [rig.solve()["tentacle"].error]
    while errors[-1] > ch.tolerance and len(errors) < 200:
        errors.append(rig.solve()["tentacle"].error)
    # Short after the first frame's one step, reached on a later one (with the least-squares
    # step in every limited step, the second frame already gets there).
    assert errors[0] > ch.tolerance and len(errors) >= 2 and errors[-1] <= ch.tolerance
    assert all(b <= a for a, b in zip(errors, errors[1:]))


def test_reports_carry_fabrik_errors_per_pass():
    rig = load("tentacle")
    ch = rig.chain("tentacle")
    ch.target = ch.target + np.array([0.2, -0.15, 0.1])
    r = rig.solve()["tentacle"]
    assert r.iterations >= 1 and len(r.errors) == r.iterations
    assert all(b <= a for a, b in zip(r.errors, r.errors[1:]))
    assert r.errors[-1] == pytest.approx(r.error, abs=1e-12)
    human = rigedit.Rig.default()
    human.chain("left_arm").target = (0.3, 1.2, 0.3)
    assert human.solve()["left_arm"].errors == ()


def test_an_unreachable_fabrik_target_stops_being_solved_once_it_stalls():
    rig = load("tentacle")
    ch = rig.chain("tentacle")
    ch.target = (3.0, 0.5, 0.0)  # metres beyond a 1 m tentacle
    reports = [rig.solve()["tentacle"] for _ in range(30)]
    assert not any(r.reached for r in reports)
    idle = [k for k, r in enumerate(reports) if r.iterations == 0]
    assert idle and idle == list(range(idle[0], 30))  # once idle, it stays idle
    pose = rig.pose
    rig.solve()
    assert np.array_equal(rig.pose.rotations, pose.rotations)


ops = st.one_of(
    st.tuples(st.just("target"), st.sampled_from(["spine", "left_arm", "right_arm", "left_leg", "right_leg", "neck"]), st.tuples(*[st.floats(-0.05, 0.05)] * 3)),
    st.tuples(st.just("weight"), st.sampled_from(["spine", "left_arm", "neck"]), st.sampled_from([0.0, 0.3, 1.0])),
    st.tuples(st.just("pole"), st.sampled_from(["left_arm", "right_leg"]), st.booleans()),
    st.tuples(st.just("time"), st.just(""), st.sampled_from([0.0, 0.25, 0.5])),
    st.tuples(st.just("nothing"), st.just(""), st.just(0)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(ops, min_size=1, max_size=12))
def test_skipping_unchanged_chains_gives_the_pose_a_full_solve_gives(steps):
    """Each solve reuses what it can from the last; a copy (which keeps the warm starts but
    none of that) solving the same frame from scratch must land on the same pose."""
    rig = rigedit.Rig.default()
    rig.clip = swaying_clip(rig, joints=["Spine", "Chest", "Neck"])
    # A chain overlapping the spine's tip, so a chain blends over another's output.
    rig.add_chain("neck", ["Chest", "Neck", "Head"], weight=0.5)
    rig.solve()
    for op, name, value in steps:
        if op == "target":
            rig.chain(name).target = rig.chain(name).target + np.array(value)
        elif op == "weight":
            rig.chain(name).weight = value
        elif op == "pole":
            ch = rig.chain(name)
            ch.pole = None if value else rig.world_position(ch.joints[1]) + (0.0, 0.0, 0.5)
        elif op == "time":
            rig.time = value
        fresh = rig.copy()
        rig.solve()
        fresh.solve()
        assert np.array_equal(rig.pose.rotations, fresh.pose.rotations)


def test_solve_follows_the_clip_time():
    rig = rigedit.Rig.default()
    rig.clip = swaying_clip(rig, joints=["Spine"])
    rig.chain("left_leg").weight = 0.0
    rig.chain("left_arm").target = rig.world_position("LeftArm") + np.array([0.1, -0.3, 0.15])
    positions = []
    for t in (0.0, 0.5, 1.0):
        rig.time = t
        rig.solve()
        positions.append(rig.world_position("LeftFoot"))
        assert rig.solve()["left_arm"].reached  # the hand target holds while the body sways
    assert np.linalg.norm(positions[0] - positions[2]) > 0.05


def test_copy_is_independent():
    rig = rigedit.Rig.default()
    other = rig.copy()
    other.chain("left_arm").target = (0.3, 1.2, 0.3)
    other.chain("left_arm").weight = 0.25
    other.solve()
    assert rig.chain("left_arm").weight == 1.0
    assert np.array_equal(rig.pose.rotations, rigedit.Rig.default().pose.rotations)
    rig.solve()
    assert not np.allclose(rig.world_position("LeftHand"), other.world_position("LeftHand"))


def test_reset_forgets_the_solution():
    rig = rigedit.Rig.default()
    rig.chain("left_arm").target = (0.3, 1.2, 0.3)
    rig.solve()
    rig.reset()
    assert np.array_equal(rig.pose.rotations, rig.animated_pose().rotations)


# --- limits in the written pose ----------------------------------------------------------


def test_knee_hinge_stops_the_fold_and_the_foot_falls_short():
    rig = rigedit.Rig.default()
    hip = rig.world_position("LeftUpLeg")
    target = hip + np.array([0.0, -0.08, 0.02])  # needs the knee folded far past 150 degrees
    rig.chain("left_leg").target = target
    report = rig.solve()["left_leg"]
    assert not report.reached
    pos = rig.world_positions()
    sk = rig.skeleton
    thigh = pos[sk.index("LeftLeg")] - pos[sk.index("LeftUpLeg")]
    shin = pos[sk.index("LeftFoot")] - pos[sk.index("LeftLeg")]
    bend = np.degrees(np.arccos(thigh @ shin / np.linalg.norm(thigh) / np.linalg.norm(shin)))
    assert bend == pytest.approx(150.0, abs=1e-6)
    assert limit_errors_deg(rig, "left_leg")["LeftLeg"] < 1e-6


@settings(max_examples=30, deadline=None)
@given(st.tuples(st.floats(-0.3, 0.3), st.floats(-0.6, 0.1), st.floats(-0.3, 0.4)), st.booleans())
def test_two_bone_hinges_hold_in_the_written_pose(offset, pole_behind):
    rig = rigedit.Rig.default()
    ch = rig.chain("left_leg")
    ch.target = rig.world_position("LeftUpLeg") + np.array(offset) + np.array([0.0, -0.2, 0.0])
    if pole_behind:
        ch.pole = ch.pole * np.array([1.0, 1.0, -1.0])
    rig.solve()
    assert limit_errors_deg(rig, "left_leg")["LeftLeg"] < 1e-6


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(*[st.floats(-0.08, 0.08)] * 3), min_size=1, max_size=6))
def test_fabrik_limits_hold_in_the_written_pose_while_dragging(steps):
    rig = load("creature")
    ch = rig.chain("leg_L2")
    for step in steps:
        ch.target = ch.target + np.array(step)
        rig.solve()
        assert all(e < 1e-6 for e in limit_errors_deg(rig, "leg_L2").values())


# --- the write-back agrees with skeleton.write_chain_positions ---------------------------------

from rigedit.core import scalar_quat as sq  # noqa: E402
from rigedit.core.bone_turns import chain_pose, local_turns  # noqa: E402
from rigedit.core.skeleton import write_chain_positions  # noqa: E402

unit_quats = st.tuples(*[st.floats(-1.0, 1.0)] * 4).filter(lambda q: sum(c * c for c in q) > 0.1)
vectors = st.tuples(*[st.floats(-1.0, 1.0)] * 3)
# Bones of zero length, or long enough that their direction survives metre-sized positions:
# a 1e-12 m bone between points a metre out is all round-off, and the two forms may read it
# either way.
offsets = vectors.filter(lambda v: np.linalg.norm(v) == 0.0 or np.linalg.norm(v) > 1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(offsets, unit_quats), min_size=2, max_size=6),
    unit_quats,
    st.lists(vectors, min_size=6, max_size=6),
)
def test_the_write_back_points_every_bone_at_its_solved_position(joints, base, moves):
    """write_chain_positions (the rig's local_turns) turns each bone onto its solved
    direction: FK of the written pose points every bone of length along it; the rig's form
    (bone_turns.local_turns, which the compiled frame compiles) writes the same rotations."""
    offsets = [j[0] for j in joints]
    rots = np.array([j[1] for j in joints], dtype=np.float64)
    rots /= np.linalg.norm(rots, axis=1, keepdims=True)
    base_q = np.array(base) / np.linalg.norm(base)
    # Joint 0 is a root holding the base rotation; the chain is joints 1..n.
    sk = Skeleton.from_joints([("base", None, (0.0, 0.0, 0.0))] + [(f"j{i}", "base" if i == 0 else f"j{i - 1}", o) for i, o in enumerate(offsets)])
    pose = sk.rest_pose()
    pose.rotations[0] = base_q
    pose.rotations[1:] = rots
    chain = list(range(1, len(sk)))
    points, _ = chain_pose(sq.ZERO, tuple(base_q), [tuple(o) for o in offsets], [tuple(q) for q in rots[:-1]])
    solved = [points[0]] + [tuple(np.array(p) + np.array(m)) for p, m in zip(points[1:], moves)]
    expected = write_chain_positions(sk, pose, chain, np.array(solved))
    warm = [tuple(q) for q in rots[:-1]]
    pos, _ = sk.fk(expected)
    for k in range(len(chain) - 1):
        want = np.array(solved[k + 1]) - np.array(solved[k])
        got_dir = pos[chain[k + 1]] - pos[chain[k]]
        if np.linalg.norm(offsets[k + 1]) > 0.0 and np.linalg.norm(want) > 1e-6:
            cos = got_dir @ want / (np.linalg.norm(got_dir) * np.linalg.norm(want))
            assert cos > 1.0 - 1e-12
    for k, q in enumerate(local_turns(tuple(base_q), warm, [tuple(o) for o in offsets], solved)):
        e = expected.rotations[chain[k]]
        assert min(np.abs(np.array(q) - e).max(), np.abs(np.array(q) + e).max()) < 1e-9


from hypothesis import assume  # noqa: E402

from rigedit.core.chain_settings import LimitFitError  # noqa: E402
from tests.core.test_limits import violation_deg  # noqa: E402

limit_choices = st.sampled_from([None, ConeLimit(25.0), ConeLimit(60.0), HingeLimit((1.0, 0.0, 0.0), -30.0, 120.0), HingeLimit((0.0, 0.3, 1.0), 0.0, 150.0)])


def _limited_rig(joints, base, solver) -> Rig:
    """A random limited chain in a rig (hypothesis's (offset, rotation, limit) per joint:
    the animated pose a solve starts from), under a root joint `base` turned `base`."""
    offsets_ = [tuple(j[0]) for j in joints]
    rots = np.array([j[1] for j in joints], dtype=np.float64)
    rots /= np.linalg.norm(rots, axis=1, keepdims=True)
    base_q = np.array(base) / np.linalg.norm(base)
    names = [f"j{i}" for i in range(len(joints))]
    sk = Skeleton.from_joints([("base", None, (0.0, 0.0, 0.0))] + [(n, "base" if i == 0 else names[i - 1], o) for i, (n, o) in enumerate(zip(names, offsets_))],
                              rest_rotations=np.vstack([base_q, rots]))  # fmt: skip
    rig = Rig(sk)
    by_joint = {names[k]: j[2] for k, j in enumerate(joints[:-1]) if k > 0 and j[2] is not None}
    assume(by_joint)
    try:
        rig.add_chain("arm", names, solver=solver, limits=by_joint, max_iterations=10)
    except LimitFitError:
        assume(False)  # a hinge along the bone entering it: refused (test_limits)
    return rig


def _assert_within_limits(rig: Rig, joints) -> None:
    """Every limit holds in the pose the rig wrote, read back by FK: each bone against its
    parent bone, in the parent bone's written frame."""
    names = rig.chain("arm").joints
    pos, rot = rig.skeleton.fk(rig.pose)
    idx = [rig.skeleton.index(n) for n in names]
    for k, (_, _, limit) in enumerate(joints[:-1]):
        if k == 0 or limit is None:
            continue
        parent_bone, bone = pos[idx[k]] - pos[idx[k - 1]], pos[idx[k + 1]] - pos[idx[k]]
        if np.linalg.norm(parent_bone) < 1e-9 or np.linalg.norm(bone) < 1e-9:
            continue
        assert violation_deg(limit, parent_bone, rot[idx[k - 1]], bone) <= 1e-6, (k, limit)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(offsets, unit_quats, limit_choices), min_size=3, max_size=6),
    unit_quats,
    vectors,
    vectors,
    st.sampled_from(["fabrik", "ccd"]),
)
def test_a_limited_chain_writes_a_pose_within_its_limits_cold_and_warm(joints, base, target, moved_to, solver):
    """The rig writes a limited loop solver's result back from the frame turns it carried:
    the pose FK reads back holds every limit, after a first solve from the animated pose
    (cold) and after a second one from the chain's own limited warm start, and the error
    it reports is the written tip's."""
    rig = _limited_rig(joints, base, solver)
    tip = rig.chain("arm").joints[-1]
    for goal in (target, moved_to):
        rig.chain("arm").target = goal
        try:
            report = rig.solve()["arm"]
        except ValueError as e:
            assert "has its axis parallel" in str(e)  # the pose put a bone along its hinge: named
            assume(False)
        _assert_within_limits(rig, joints)
        assert report.error == pytest.approx(float(np.linalg.norm(rig.world_position(tip) - np.asarray(goal))), abs=1e-9)


# --- structure ---------------------------------------------------------------------------------


def test_unknown_chain_is_a_key_error_naming_it():
    rig = rigedit.Rig.default()
    with pytest.raises(KeyError, match="no chain named 'tail'"):
        rig.chain("tail")


def test_world_position_is_a_copy_of_the_current_pose():
    rig = rigedit.Rig.default()
    p = rig.world_position("LeftHand")
    assert p.shape == (3,) and p.dtype == np.float64
    p[:] = 99.0
    assert not np.allclose(rig.world_position("LeftHand"), 99.0)
    with pytest.raises(KeyError):
        rig.world_position("NoSuchJoint")


def test_add_chain_targets_the_tip_and_changes_nothing():
    rig = rigedit.Rig.default()
    before = rig.world_positions()
    ch = rig.add_chain("head", ["Chest", "Neck", "Head"], solver="fabrik", limits={"Neck": ConeLimit(30.0)})
    assert np.allclose(ch.target, rig.world_position("Head"))
    assert rig.chain_names[-1] == "head"
    rig.solve()
    assert np.allclose(rig.world_positions(), before, atol=1e-9)
    rig.remove_chain("head")
    assert "head" not in rig.chain_names


@pytest.mark.parametrize(
    "joints,message",
    [
        (["LeftArm", "LeftHand"], "chain 'bad': 'LeftHand' is not a child of 'LeftArm'"),
        (["LeftArm", "Nope"], "chain 'bad': no joint named 'Nope'"),
    ],
)
def test_add_chain_refuses_joints_that_are_not_a_chain(joints, message):
    rig = rigedit.Rig.default()
    with pytest.raises(ValueError) as e:
        rig.add_chain("bad", joints)
    assert str(e.value) == message


def test_add_chain_refuses_a_taken_name():
    rig = rigedit.Rig.default()
    with pytest.raises(ValueError, match="a chain named 'spine' already exists"):
        rig.add_chain("spine", ["Neck", "Head"])


def test_pose_setter_checks_shape_and_values():
    rig = rigedit.Rig.default()
    pose = rig.pose
    pose.rotations[3] = np.nan
    with pytest.raises(ValueError, match="pose must be finite"):
        rig.pose = pose
    with pytest.raises(ValueError, match=r"pose must be rotations \(28, 4\)"):
        rig.pose = rig.skeleton.rest_pose().__class__(np.zeros((3, 4)), np.zeros((3, 3)))
    other = rig.copy()
    other.chain("left_arm").target = (0.3, 1.2, 0.3)
    other.solve()
    rig.pose = other.pose
    assert np.allclose(rig.world_position("LeftHand"), (0.3, 1.2, 0.3))


def test_clip_must_match_the_skeleton():
    rig = rigedit.Rig.default()
    with pytest.raises(ValueError, match="clip has 2 joints, the skeleton 28"):
        rig.clip = Clip(np.tile([0.0, 0.0, 0.0, 1.0], (3, 2, 1)), np.zeros((3, 2, 3)), 0.1)
    with pytest.raises(ValueError, match="time must be a finite number, got nan"):
        rig.time = float("nan")


def test_world_rotations_follow_the_solved_bones():
    """The hand's world rotation moves with the forearm (the tip keeps its local rotation)."""
    rig = rigedit.Rig.default()
    rig.chain("left_arm").target = (0.3, 1.2, 0.3)
    rig.solve()
    sk = rig.skeleton
    pos, rot = sk.fk(rig.pose)
    hand, end = sk.index("LeftHand"), sk.index("LeftHand_End")
    assert np.allclose(pos[end], pos[hand] + quat_rotate(rot[hand], sk.offsets[end]), atol=1e-12)
