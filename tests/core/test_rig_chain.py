"""Chain settings: every set is validated with a message naming the chain and field, a refused
value leaves the old one (no NaN ever stored), and settings()/apply() round-trip for undo."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.chain import ChainSettings
from rigedit.core.ik.limits import ConeLimit, HingeLimit

NAN, INF = float("nan"), float("inf")


@pytest.fixture
def rig():
    return rigedit.Rig.default()


@pytest.mark.parametrize(
    "chain,field,value,message",
    [
        ("left_arm", "weight", 1.5, "chain 'left_arm': weight must be between 0 and 1, got 1.5"),
        ("left_arm", "weight", -0.1, "chain 'left_arm': weight must be between 0 and 1, got -0.1"),
        ("left_arm", "weight", NAN, "chain 'left_arm': weight must be a finite number, got nan"),
        ("left_arm", "weight", "1", "chain 'left_arm': weight must be a number, got '1'"),
        ("left_arm", "weight", True, "chain 'left_arm': weight must be a number, got True"),
        ("left_arm", "target", (1.0, NAN, 0.0), "chain 'left_arm': target must be 3 finite numbers, got [1.0, nan, 0.0]"),
        ("left_arm", "target", (1.0, 2.0), "chain 'left_arm': target must be 3 numbers [x, y, z], got [1.0, 2.0]"),
        ("left_arm", "target", None, "chain 'left_arm': target must be 3 numbers [x, y, z], got None"),
        ("left_arm", "pole", (INF, 0.0, 0.0), "chain 'left_arm': pole must be 3 finite numbers, got [inf, 0.0, 0.0]"),
        ("left_arm", "target", (0.0, 1e300, 0.0), "chain 'left_arm': target must be within -1e+06 and 1e+06, got [0.0, 1e+300, 0.0]"),
        ("spine", "tolerance", 0.0, "chain 'spine': tolerance must be greater than 0, got 0.0"),
        ("spine", "tolerance", -INF, "chain 'spine': tolerance must be a finite number, got -inf"),
        ("spine", "max_iterations", 0, "chain 'spine': max_iterations must be between 1 and 10000, got 0"),
        ("spine", "max_iterations", 2.5, "chain 'spine': max_iterations must be a whole number, got 2.5"),
        ("spine", "max_iterations", True, "chain 'spine': max_iterations must be a whole number, got True"),
        ("spine", "solver", "jacobian", "chain 'spine': unknown solver 'jacobian' (expected 'two_bone', 'fabrik', 'ccd' or 'look_at')"),
        ("spine", "solver", "two_bone", "chain 'spine': solver 'two_bone' needs exactly 3 joints, got 5"),
    ],
)
def test_bad_values_are_refused_with_a_clear_message_and_leave_the_old_value(rig, chain, field, value, message):
    ch = rig.chain(chain)
    before = ch.settings()
    with pytest.raises(ValueError) as e:
        setattr(ch, field, value)
    assert str(e.value) == message
    assert ch.settings() == before


@pytest.mark.parametrize(
    "chain,limits,message",
    [
        ("left_leg", {"Spine": ConeLimit(10.0)}, "chain 'left_leg': limit on 'Spine': 'Spine' is not a joint of this chain ['LeftUpLeg', 'LeftLeg', 'LeftFoot']"),
        ("left_leg", {"LeftFoot": ConeLimit(10.0)}, "chain 'left_leg': limit on 'LeftFoot': it is the chain's tip: no bone of the chain leaves it"),
        ("left_leg", {"LeftUpLeg": ConeLimit(10.0)}, "chain 'left_leg': limit on 'LeftUpLeg': a two_bone chain takes a limit only on its middle joint"),
        ("left_leg", {"LeftLeg": HingeLimit((0.0, -0.42, 0.025), 0.0, 90.0)}, "chain 'left_leg': limit on 'LeftLeg': the hinge axis is parallel to the bone entering the joint: no plane to bend in"),
        ("left_leg", {"LeftLeg": "knee"}, "chain 'left_leg': limit on 'LeftLeg': must be a HingeLimit or a ConeLimit, got str"),
    ],
)
def test_limits_that_do_not_fit_are_refused(rig, chain, limits, message):
    ch = rig.chain(chain)
    before = ch.settings()
    with pytest.raises(ValueError) as e:
        ch.limits = limits
    assert str(e.value) == message
    assert ch.settings() == before


def test_a_limit_on_a_skeleton_root_is_refused():
    rig = rigedit.Rig.default()
    with pytest.raises(ValueError, match="limit on 'Hips': it is a root joint"):
        rig.add_chain("pelvis", ["Hips", "Spine", "Spine1"], limits={"Hips": ConeLimit(20.0)})
    assert "pelvis" not in rig.chain_names


def test_switching_a_limited_root_chain_to_two_bone_is_refused():
    rig = rigedit.Rig.default()
    ch = rig.add_chain("neck", ["Chest", "Neck", "Head"], limits={"Chest": ConeLimit(20.0)})
    with pytest.raises(ValueError, match="a two_bone chain takes a limit only on its middle joint"):
        ch.solver = "two_bone"
    assert ch.solver == "fabrik"


def test_limits_view_is_read_only(rig):
    with pytest.raises(TypeError):
        rig.chain("left_leg").limits["LeftLeg"] = ConeLimit(5.0)


def test_arrays_handed_out_are_read_only_copies(rig):
    ch = rig.chain("left_arm")
    t = ch.target
    with pytest.raises(ValueError):
        t[0] = NAN
    assert np.all(np.isfinite(ch.target))


def test_good_values_are_taken(rig):
    ch = rig.chain("left_arm")
    ch.target = np.array([0.1, 1.0, 0.2])
    ch.pole = None
    ch.weight = 0
    ch.tolerance = 1e-4
    ch.max_iterations = np.int64(7)
    ch.solver = "fabrik"
    ch.limits = {"LeftForeArm": ConeLimit(90.0), "LeftArm": ConeLimit(120.0)}
    assert ch.target.tolist() == [0.1, 1.0, 0.2] and ch.pole is None
    assert ch.weight == 0.0 and isinstance(ch.weight, float)
    assert ch.max_iterations == 7 and type(ch.max_iterations) is int
    assert ch.solver == "fabrik" and set(ch.limits) == {"LeftForeArm", "LeftArm"}
    rig.solve()  # a limit on the chain's root works with FABRIK: the shoulder is its parent bone


def test_settings_apply_round_trip_for_undo(rig):
    ch = rig.chain("left_arm")
    before = ch.settings()
    ch.target = (0.2, 1.1, 0.3)
    ch.pole = None
    ch.weight = 0.3
    ch.solver = "fabrik"
    changed = ch.settings()
    assert changed != before
    ch.apply(before)
    assert ch.settings() == before
    ch.apply(changed)
    assert ch.settings() == changed


def test_apply_takes_all_or_nothing(rig):
    ch = rig.chain("left_arm")
    before = ch.settings()
    bad = ChainSettings(
        solver="fabrik",
        target=(0.0, 1.0, 0.0),
        pole=None,
        tolerance=1e-3,
        max_iterations=10,
        weight=2.0,
        limits=(),
    )
    with pytest.raises(ValueError, match="weight must be between 0 and 1, got 2.0"):
        ch.apply(bad)
    assert ch.settings() == before


def test_settings_are_hashable_values(rig):
    a = rig.chain("left_leg").settings()
    b = rigedit.Rig.default().chain("left_leg").settings()
    assert a == b and hash(a) == hash(b)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["target", "pole", "weight", "tolerance", "max_iterations", "solver"]),
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-10**20, 10**20),
        st.text(max_size=5),
        st.none(),
        st.booleans(),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    ),
)
def test_any_value_is_taken_or_refused_and_nothing_stored_is_ever_nan(field, value):
    ch = rigedit.Rig.default().chain("left_leg")
    try:
        setattr(ch, field, value)
    except ValueError as e:
        assert str(e).startswith("chain 'left_leg': ")
        assert field in str(e)
    s = ch.settings()
    numbers = [*s.target, *(s.pole or ()), s.tolerance, s.max_iterations, s.weight]
    assert all(math.isfinite(v) for v in numbers)
    assert 0.0 <= s.weight <= 1.0 and s.tolerance > 0.0 and s.max_iterations >= 1
    assert s.solver in ("two_bone", "fabrik")


def test_a_drag_goal_carrying_every_chains_settings_keeps_the_compiled_frames_tables():
    """The editor hands its solver every chain's settings with each goal. Re-applying a
    chain's unchanged settings must not look like a change: re-applied, unchanged settings
    keep the compiled frame's packed tables (a repack would forget every chain's warm
    start), only the dragged chain runs passes, and the poses match a rig whose dragged
    target is set directly."""
    from rigedit.core.rig import BUNDLED_PRESETS

    gui = rigedit.Rig.load(BUNDLED_PRESETS / "creature.json")
    worker, direct = gui.copy(), gui.copy()
    worker.solve()
    direct.solve()
    dragged = gui.chain_names[0]
    home = np.asarray(gui.chain(dragged).target)
    tables = None
    for f in range(12):
        target = home + 0.04 * np.array([math.cos(f / 3.0), 0.0, math.sin(f / 3.0)])
        gui.chain(dragged).target = target
        for name in gui.chain_names:
            worker.chain(name).apply(gui.chain(name).settings())
        reports = worker.solve()
        assert all(r.iterations == 0 for n, r in reports.items() if n != dragged)
        assert worker.solve_state.tables is not None and (tables is None or worker.solve_state.tables is tables)
        tables = worker.solve_state.tables
        direct.chain(dragged).target = target
        direct.solve()
        assert np.array_equal(worker.pose.rotations, direct.pose.rotations)


def test_apply_keeps_an_equal_limits_mapping_and_rechecks_limits_for_a_new_solver(rig):
    ch = rig.chain("left_arm")
    key = ch.limit_key  # the rig keys the chain's warm start on these limits, compared by `is` first
    moved = dataclasses.replace(ch.settings(), target=(0.3, 1.0, 0.2))
    ch.apply(moved)
    assert ch.limit_key is key and ch.target.tolist() == [0.3, 1.0, 0.2]
    # The same limits under another solver are checked again (two_bone takes one on its middle joint only).
    ch.solver = "fabrik"
    ch.limits = {"LeftArm": ConeLimit(60.0)}
    with pytest.raises(ValueError, match="LeftArm"):
        ch.apply(dataclasses.replace(ch.settings(), solver="two_bone"))
    assert ch.solver == "fabrik"
