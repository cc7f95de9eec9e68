"""Weight 0 is exactly the animated pose with grounded feet and the pelvis drop on (issue 13):
the body's ride over the ground and its drop follow the legs' IK weights."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.ground import HeightField, pelvis_drop
from rigedit.core.rig import BUNDLED_PRESETS, Rig

WALK = BUNDLED_PRESETS / "uneven_ground_walk.json"
LEGS = ("left_leg", "right_leg")
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_walk = None


def walk() -> Rig:
    """The uneven-ground walk (clip, stepped slope, both feet grounded), loaded once."""
    global _walk
    if _walk is None:
        _walk = Rig.load(WALK)
    return _walk.copy()


grounds = st.one_of(
    st.sampled_from(["flat", "slope"]),
    st.builds(
        lambda h, s: HeightField(np.array(h), s, (-1.0, -2.0)),
        st.lists(st.lists(st.floats(-0.3, 0.3), min_size=3, max_size=3), min_size=3, max_size=3),
        st.floats(0.3, 2.0),
    ),
)


def humanoid_on(ground, grounded, offsets) -> Rig:
    """The humanoid under the walk's clip, on `ground`, with these legs grounded and the
    other chains' targets moved by `offsets`."""
    rig = Rig.default()
    rig.clip = walk().clip
    rig.ground = ground
    for name in grounded:
        rig.chain(name).ground_feet = True
    for ch, off in zip(rig.chains, offsets):
        if not ch.ground_feet:
            ch.target = ch.target + np.asarray(off)
    return rig


@SETTINGS
@given(
    ground=grounds,
    grounded=st.sets(st.sampled_from(LEGS), min_size=1),
    time=st.floats(0.0, 4.0),
    offsets=st.lists(st.tuples(*[st.floats(-0.5, 0.5)] * 3), min_size=5, max_size=5),
    solves=st.integers(1, 3),
)
def test_weight_zero_on_every_chain_is_the_animated_pose_exactly(ground, grounded, time, offsets, solves):
    rig = humanoid_on(ground, grounded, offsets)
    rig.time = time
    for ch in rig.chains:
        ch.weight = 0.0
    for _ in range(solves):
        rig.solve()
    anim = rig.animated_pose()
    assert np.array_equal(rig.pose.rotations, anim.rotations)
    assert np.array_equal(rig.pose.translations, anim.translations)
    assert np.array_equal(rig.world_positions(), rig.skeleton.fk_matrices(anim)[0])


@SETTINGS
@given(time=st.floats(0.0, 4.0), first=st.floats(0.0, 1.0))
def test_weight_zero_after_solving_at_full_weight_is_the_animated_pose_exactly(time, first):
    rig = walk()
    rig.time = time
    for name in LEGS:
        rig.chain(name).weight = first
    rig.solve()
    for name in LEGS:
        rig.chain(name).weight = 0.0
    rig.solve()
    anim = rig.animated_pose()
    assert np.array_equal(rig.pose.translations, anim.translations)
    assert np.array_equal(rig.world_positions(), rig.skeleton.fk_matrices(anim)[0])


def root_height(rig: Rig, weights) -> float:
    for name, w in zip(LEGS, weights):
        rig.chain(name).weight = w
    rig.solve()
    return float(rig.world_position("Hips")[1])


@pytest.mark.parametrize("time", [2.9, 3.3, 3.6, 3.95])  # up the steps (z > 1 m)
def test_a_weight_in_between_eases_the_body_between_the_animated_and_the_grounded(time):
    rig = walk()
    rig.time = time
    animated, grounded = root_height(rig, (0.0, 0.0)), root_height(rig, (1.0, 1.0))
    assert animated == rig.animated_pose().translations[0, 1]
    assert abs(grounded - animated) > 1e-3  # the ground moves the body at this time
    for w in (0.25, 0.5, 0.75):
        assert root_height(rig, (w, w)) == pytest.approx(animated + w * (grounded - animated), abs=1e-9)


# --- pelvis_drop with weights -----------------------------------------------------------------

legs_st = st.lists(
    st.tuples(st.tuples(*[st.floats(-0.3, 0.3)] * 2), st.floats(-1.2, 0.2), st.floats(0.0, 1.0)), min_size=1, max_size=4
)


def drop_of(legs, weights=None, length=0.9):
    hips = np.array([[x, 1.0, z] for (x, z), _, _ in legs])
    targets = np.array([[x + 0.1, 1.0 + dy, z] for (x, z), dy, _ in legs])
    return pelvis_drop(hips, targets, length, weights=weights)


@SETTINGS
@given(legs=legs_st)
def test_weights_one_give_the_unweighted_drop_and_zero_none(legs):
    assert drop_of(legs, [1.0] * len(legs)) == drop_of(legs)
    assert drop_of(legs, [0.0] * len(legs)) == 0.0


@SETTINGS
@given(legs=legs_st, extra=st.tuples(st.tuples(*[st.floats(-0.3, 0.3)] * 2), st.floats(-3.0, 3.0), st.just(0.0)))
def test_a_leg_at_weight_zero_does_not_move_the_pelvis(legs, extra):
    weights = [w for _, _, w in legs]
    assert drop_of(legs + [extra], weights + [0.0]) == drop_of(legs, weights)


@SETTINGS
@given(legs=legs_st, k=st.integers(0, 3), dw=st.floats(-1e-4, 1e-4))
def test_the_drop_changes_continuously_with_a_weight(legs, k, dw):
    weights = [w for _, _, w in legs]
    k %= len(legs)
    nudged = list(weights)
    nudged[k] = min(max(nudged[k] + dw, 0.0), 1.0)
    # A leg asks for at most its weight times a drop of a few metres here.
    assert abs(drop_of(legs, nudged) - drop_of(legs, weights)) <= 5.0 * abs(nudged[k] - weights[k]) + 1e-12


def test_pelvis_drop_refuses_bad_weights():
    with pytest.raises(ValueError, match="one weight in \\[0, 1\\] per hip"):
        pelvis_drop(np.zeros((2, 3)), np.zeros((2, 3)), 1.0, weights=[1.0])
    with pytest.raises(ValueError, match="one weight in \\[0, 1\\] per hip"):
        pelvis_drop(np.zeros((1, 3)), np.zeros((1, 3)), 1.0, weights=[1.5])
