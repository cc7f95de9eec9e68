import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.gait import Gait, alternating_groups, default_neighbours
from rigedit.core.ground import slope_ground

DT = 1.0 / 60.0
BODY_HEIGHT = 0.2


def legs(per_side, spacing=0.3, width=0.3):
    """Rest spots of a creature with `per_side` legs on each side, listed left front to back,
    then right front to back; feet BODY_HEIGHT under the body."""
    zs = (np.arange(per_side)[::-1] - (per_side - 1) / 2) * spacing
    left = [(width, -BODY_HEIGHT, z) for z in zs]
    right = [(-width, -BODY_HEIGHT, z) for z in zs]
    return np.array(left + right)


def straight(speed, walk_time):
    def body(t):
        d = speed * min(t, walk_time)
        return np.array([0.2 * d, BODY_HEIGHT, d]), np.arctan2(0.2, 1.0)
    return body


def circle(speed, radius, walk_time):
    def body(t):
        a = speed * min(t, walk_time) / radius
        # Counter-clockwise seen from above, facing along the tangent.
        pos = np.array([radius * (1 - np.cos(a)), BODY_HEIGHT, radius * np.sin(a)])
        return pos, a
    return body


def simulate(gait, body, total_time):
    frames = int(round(total_time / DT))
    feet, planted, homes = [], [], []
    p, yaw = body(0.0)
    gait.reset(p, yaw)
    for f in range(1, frames + 1):
        p, yaw = body(f * DT)
        feet.append(gait.advance(p, yaw, DT))
        planted.append(gait.planted.copy())
        homes.append(gait.homes(p, yaw))
    return np.array(feet), np.array(planted), np.array(homes)


def check_invariants(gait, feet, planted, homes, walk_frames, speed):
    n = feet.shape[1]
    # A planted foot does not move at all until it lifts.
    still = planted[1:] & planted[:-1]
    moves = np.linalg.norm(np.diff(feet, axis=0), axis=2)
    assert np.all(moves[still] <= 1e-3)
    # No teleports: even a stepping foot covers at most a few cm a frame.
    assert np.all(moves <= 0.1)
    air = ~planted
    for side in gait.sides:
        assert not np.any(np.all(air[:, side], axis=1)), f"all of side {side} in the air"
    for a, b in gait.neighbours:
        assert not np.any(air[:, a] & air[:, b]), f"neighbours {a} and {b} in the air together"
    # Every leg really steps while walking (the checks above are not vacuous)...
    lifts = (planted[:-1] & ~planted[1:]).sum(axis=0)
    assert np.all(lifts >= 3)
    # ...and keeps up: a foot never trails its spot by more than a step, the lead, and what
    # the body covers while the other group finishes its step and this one takes its own.
    lag = np.linalg.norm(feet[:walk_frames] - homes[:walk_frames], axis=2)
    assert lag.max() <= gait.step_length * 1.5 + 2 * speed * gait.step_time + 1e-9
    return lifts


def check_settled(gait, feet, planted, homes):
    assert np.all(planted[-1])
    assert np.all(np.linalg.norm(feet[-1] - homes[-1], axis=1) <= gait.settle_distance + 1e-9)


@pytest.mark.parametrize("per_side", [2, 3, 4])
@pytest.mark.parametrize("path", ["straight", "circle"])
def test_walks_with_feet_planted_sides_supported_and_settles(per_side, path):
    gait = Gait(legs(per_side), step_length=0.25, step_time=0.2, step_height=0.06)
    speed, walk = 0.5, 6.0
    body = straight(speed, walk) if path == "straight" else circle(speed, 1.5, walk)
    feet, planted, homes = simulate(gait, body, walk + 2.0)
    walk_frames = int(walk / DT)
    check_invariants(gait, feet, planted, homes, walk_frames, speed)
    check_settled(gait, feet, planted, homes)
    # Swinging feet clear the ground; planted ones stand on it (flat here, y = 0).
    assert np.allclose(feet[planted][:, 1], 0.0)
    assert np.all(feet[:, :, 1] >= -1e-12)


def test_turning_on_the_spot():
    gait = Gait(legs(3), step_length=0.15, step_time=0.2)
    feet, planted, homes = simulate(gait, lambda t: (np.array([0.0, BODY_HEIGHT, 0.0]), 1.2 * min(t, 4.0)), 6.0)
    check_invariants(gait, feet, planted, homes, int(4.0 / DT), speed=1.2 * 0.42)
    check_settled(gait, feet, planted, homes)


def test_feet_stand_on_uneven_ground():
    ground = slope_ground()
    gait = Gait(legs(3), step_length=0.25, step_time=0.2, ground=ground)
    feet, planted, homes = simulate(gait, straight(0.5, 5.0), 7.0)
    check_invariants(gait, feet, planted, homes, int(5.0 / DT), 0.5)
    on = feet[planted]
    assert np.all(np.abs(on[:, 1] - ground.height_at(on)) <= 1e-3)
    check_settled(gait, feet, planted, homes)


def test_standing_still_never_steps():
    gait = Gait(legs(3))
    feet, planted, _ = simulate(gait, lambda t: (np.array([1.0, BODY_HEIGHT, 2.0]), 0.3), 2.0)
    assert np.all(planted)
    assert np.all(feet == feet[0])


def test_first_advance_plants_feet_on_their_spots():
    gait = Gait(legs(2))
    out = gait.advance([0.0, BODY_HEIGHT, 0.0], 0.0, DT)
    assert np.allclose(out, legs(2) + [0.0, BODY_HEIGHT, 0.0])


def test_yaw_turns_the_rest_spots_about_up():
    gait = Gait(legs(2))
    homes = gait.homes(np.zeros(3), np.pi / 2)
    # Facing +x: the left side (+x in the body) ends up on world -z.
    left = legs(2)[:, 0] > 0
    assert np.all(homes[left, 2] < 0)
    assert np.allclose(np.linalg.norm(homes[:, [0, 2]], axis=1), np.linalg.norm(legs(2)[:, [0, 2]], axis=1))


def test_default_groups():
    # Listed left front, middle, back, then right front, middle, back.
    assert alternating_groups(legs(3)) == [[0, 2, 4], [1, 3, 5]]
    assert alternating_groups(legs(2)) == [[0, 3], [1, 2]]
    assert alternating_groups(legs(4)) == [[0, 2, 5, 7], [1, 3, 4, 6]]
    assert sorted(default_neighbours(legs(2))) == [(0, 1), (0, 2), (1, 3), (2, 3)]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(groups=[[0, 1, 2], [3, 4, 5]]), "one side|same group"),
        (dict(groups=[[0, 2], [1, 3, 5]]), "every leg"),
        (dict(groups=[[0, 1, 4], [2, 3, 5]]), "same group"),
        (dict(step_length=0.0), "step_length"),
        (dict(step_time=-1.0), "step_time"),
        (dict(step_height=np.nan), "step_height"),
    ],
)
def test_bad_set_ups_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Gait(legs(3), **kwargs)


def test_a_group_holding_a_whole_side_is_refused_even_without_neighbours():
    with pytest.raises(ValueError, match="one side"):
        Gait(legs(3), groups=[[0, 1, 2], [3, 4, 5]], neighbours=[])


def test_sides_naming_a_missing_leg_are_refused():
    with pytest.raises(ValueError, match="does not exist"):
        Gait(legs(2), sides=([0, 1], [2, 9]))


def test_bad_rest_spots_and_inputs_are_named():
    with pytest.raises(ValueError, match="centre line"):
        Gait([[0.0, 0.0, 0.0], [0.3, 0.0, 0.0]])
    with pytest.raises(ValueError, match="rest_spots"):
        Gait([[0.3, 0.0]])
    gait = Gait(legs(2))
    with pytest.raises(ValueError, match="dt"):
        gait.advance(np.zeros(3), 0.0, 0.0)
    with pytest.raises(ValueError, match="body_position"):
        gait.advance([np.nan, 0, 0], 0.0, DT)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([2, 3, 4]),
    st.lists(st.tuples(st.floats(0.0, 0.6), st.floats(-1.0, 1.0)), min_size=2, max_size=5),
)
def test_random_walks_keep_the_invariants(per_side, segments):
    # Piecewise-constant speed (m/s) and turn rate (rad/s), one second each, then a stop.
    # A step length of 0.2437 m, not 0.25: hypothesis draws round speeds, and at 0.6 m/s
    # (0.01 m a frame) 25 frames would carry a rest spot exactly onto 0.25 m.
    gait = Gait(legs(per_side), step_length=0.2437, step_time=0.2)
    pos, yaw = np.array([0.0, BODY_HEIGHT, 0.0]), 0.0
    path = [(pos.copy(), yaw)]
    for speed, turn in segments:
        for _ in range(int(1.0 / DT)):
            yaw += turn * DT
            pos = pos + speed * DT * np.array([np.sin(yaw), 0.0, np.cos(yaw)])
            path.append((pos.copy(), yaw))
    walk_frames = len(path) - 1
    path += [path[-1]] * int(2.0 / DT)
    feet, planted, homes = simulate(gait, lambda t: path[int(round(t / DT))], (len(path) - 1) * DT)
    still = planted[1:] & planted[:-1]
    assert np.all(np.linalg.norm(np.diff(feet, axis=0), axis=2)[still] <= 1e-3)
    air = ~planted
    for side in gait.sides:
        assert not np.any(np.all(air[:, side], axis=1))
    for a, b in gait.neighbours:
        assert not np.any(air[:, a] & air[:, b])
    fastest = max(s + abs(t) * 0.6 for s, t in segments)  # spots sit up to 0.54 m from the centre
    lag = np.linalg.norm(feet[:walk_frames] - homes[:walk_frames], axis=2)
    assert lag.max() <= gait.step_length * 1.5 + 2 * fastest * gait.step_time + 1e-9
    check_settled(gait, feet, planted, homes)


def _lifts(gait, body, total_time, walk_frames):
    """Each lift while walking: the legs that lifted on that frame, and how far each one was
    from its rest spot then."""
    feet, planted, homes = simulate(gait, body, total_time)
    lifted = planted[:-1] & ~planted[1:]
    events = []
    for f in np.nonzero(lifted[: walk_frames - 1].any(axis=1))[0]:
        legs = np.nonzero(lifted[f])[0]
        events.append((legs.tolist(), np.linalg.norm(feet[f + 1, legs] - homes[f + 1, legs], axis=1)))
    return events, (feet, planted, homes)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 5), st.floats(0.2, 0.6))
def test_a_body_moved_in_jerks_steps_like_a_smooth_one(every, speed):
    # A mouse drag moves the body only on some frames: between two moves it stands still for
    # a frame or a few. Feet must still wait for a step length, not settle at each pause.
    walk = 3.0
    smooth = straight(speed, walk)

    def jerky(t):
        return smooth(DT * every * np.floor(round(t / DT) / every))

    walk_frames = int(walk / DT)
    gait = Gait(legs(3), step_length=0.25, step_time=0.2)
    events, (feet, planted, homes) = _lifts(gait, jerky, walk + 2.0, walk_frames)
    assert sorted({tuple(lifted) for lifted, _ in events}) == [tuple(g) for g in gait.groups]  # both step
    for lifted, dist in events:
        assert lifted in gait.groups  # a whole group lifts...
        assert dist.max() > gait.step_length  # ...once one of its feet is a step length off
    still = planted[1:] & planted[:-1]
    assert np.all(np.linalg.norm(np.diff(feet, axis=0), axis=2)[still] <= 1e-3)
    check_settled(gait, feet, planted, homes)
    # Without the hold, each pause counts as a stop: some group lifts short of a step length.
    eager = Gait(legs(3), step_length=0.25, step_time=0.2, stop_hold=0.0)
    events, _ = _lifts(eager, jerky, walk + 2.0, walk_frames)
    assert any(dist.max() <= eager.step_length for _, dist in events)


def test_a_group_lifts_whole_when_one_of_its_feet_is_a_step_length_off():
    # Turning on the spot carries the front and back rest spots (0.42 m from the centre)
    # further than the middle ones (0.3 m): when the front-left and back-left feet of the
    # tripod [0, 2, 4] are a step length off, its middle-right foot is 0.7 of that, and it
    # steps with them.
    gait = Gait(legs(3), step_length=0.15, step_time=0.2)
    turn = 1.2  # rad/s
    spin = lambda t: (np.array([0.0, BODY_HEIGHT, 0.0]), turn * min(t, 2.0))  # noqa: E731
    events, (feet, planted, homes) = _lifts(gait, spin, 3.0, int(2.0 / DT))
    first, dist = events[0]
    assert first == [0, 2, 4]
    assert dist[0] > gait.step_length and dist[1] > gait.step_length
    assert dist[2] < 0.8 * gait.step_length
    # Every lift is one whole group, whichever of its feet was past the step length.
    assert all(lifted in gait.groups for lifted, _ in events)
    check_settled(gait, feet, planted, homes)


def test_stop_hold_is_checked():
    with pytest.raises(ValueError, match="stop_hold"):
        Gait(legs(2), stop_hold=-0.1)
