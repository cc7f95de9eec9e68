"""The compiled frame (core/rig_frame.py, ik/frame_kernel.py): the same frame as the Python
chain walk, its warm starts handed back as the rig's ChainStates, and goals that are per-frame
inputs, never written into the chains (docs/ARCHITECTURE.md, core: one frame evaluation)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.ik.frame_codes import I_SIZE
from rigedit.core.rig import BUNDLED_PRESETS

NEAR_M = 1e-9


def _walked(rig):
    """A copy that solves every frame by the Python chain walk."""
    other = rig.copy()
    other.solve_state.skip = 10**9
    return other


def _move(rig, rng, names, scale):
    for n in names:
        ch = rig.chain(n)
        ch.target = np.asarray(ch.target) + rng.uniform(-scale, scale, 3)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["humanoid.json", "creature.json", "tentacle.json", "look_at.json"]))
def test_the_compiled_frame_is_the_python_walks_frame(seed, preset):
    rng = np.random.default_rng(seed)
    rig = rigedit.Rig.load(BUNDLED_PRESETS / preset)
    rig.solve()
    walked = _walked(rig)
    names = rig.chain_names
    compiled = 0
    for frame in range(int(rng.integers(4, 12))):
        # Every goal moves in the first frames (after a load, the Python walk makes the
        # limited warm starts the compiled frame goes on from); some hold still later.
        moved = [n for n in names if frame < 3 or rng.random() < 0.7]
        state = rng.bit_generator.state
        _move(rig, rng, moved, 0.03)
        rng.bit_generator.state = state
        _move(walked, rng, moved, 0.03)
        if rng.random() < 0.3:
            n, w = names[int(rng.integers(len(names)))], float(rng.choice([0.0, 0.4, 1.0]))
            rig.chain(n).weight = walked.chain(n).weight = w
        a, b = rig.solve(), walked.solve()
        compiled += rig.solve_state.frame is not None and rig.solve_state.frame.ahead  # solved in the compiled frame
        np.testing.assert_allclose(rig.world_positions(), walked.world_positions(), rtol=0, atol=NEAR_M)
        for n in names:
            assert abs(a[n].error - b[n].error) <= NEAR_M and a[n].reached == b[n].reached
            assert a[n].iterations == b[n].iterations
    assert compiled  # (a stall held still, retried in Python, hands a few frames back)


def test_the_compiled_frames_warm_starts_are_the_rigs_states():
    """After compiled frames, the rig's ChainStates (unpacked from the arrays) carry a copy,
    and a saved and reopened rig, on as the rig would go on."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "humanoid.json")
    rng = np.random.default_rng(7)
    for _ in range(5):
        _move(rig, rng, rig.chain_names, 0.02)
        rig.solve()
    copy = rig.copy()
    again = rigedit.Rig.load(BUNDLED_PRESETS / "humanoid.json")
    for n in rig.chain_names:
        again.chain(n).target = rig.chain(n).target
    again.restore_state(rig.solved_state())
    for _ in range(4):
        state = rng.bit_generator.state
        for other in (rig, copy, again):
            rng.bit_generator.state = state
            _move(other, rng, rig.chain_names, 0.02)
            other.solve()
        np.testing.assert_allclose(copy.world_positions(), rig.world_positions(), rtol=0, atol=NEAR_M)
        np.testing.assert_allclose(again.world_positions(), rig.world_positions(), rtol=0, atol=NEAR_M)


def test_a_solve_writes_nothing_into_the_goals():
    """A grounded foot aims where the ground puts it and a follow-clip chain at the animated
    tip, as per-frame inputs: the chains' own targets and poles stay what was set."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    arm = ["LeftArm", "LeftForeArm", "LeftHand"]
    rig.add_chain("arm", arm, solver="two_bone", pole=(0.3, 1.2, -0.5), follow_clip=True, reach_clamp=1.0)
    before = {n: (tuple(rig.chain(n).own_target), rig.chain(n).own_pole) for n in rig.chain_names}
    for t in np.linspace(0.0, rig.clip.duration, 7):
        rig.time = float(t)
        rig.solve()
        for n in rig.chain_names:
            assert (tuple(rig.chain(n).own_target), rig.chain(n).own_pole) == before[n]
        hand = rig.skeleton.fk_matrices(rig.animated_pose())[0][rig.skeleton.index("LeftHand")]
        # Its goal follows the clip (the body riding the ground: a lift, so across only).
        np.testing.assert_allclose(np.asarray(rig.chain("arm").target)[[0, 2]], hand[[0, 2]], atol=1e-9)
        grounded = rig.grounded_targets()
        for n in grounded:
            np.testing.assert_array_equal(rig.shown_target(n), grounded[n])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["fabrik", "ccd"]))
def test_cold_chains_are_compiled_as_the_python_walk_solves_them(seed, solver):
    """A reaching chain with no limited warm start on its base (a first solve, a chain
    without limits, a base the clip moves) starts cold in the compiled frame
    (ik/frame_cold.py), as the Python walk starts it."""
    rng = np.random.default_rng(seed)
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "humanoid.json")
    rig.chain("spine").solver = solver
    if rng.random() < 0.5:
        rig.chain("spine").limits = {}
    rig.reset()
    walked = _walked(rig)
    for _ in range(3):
        state = rng.bit_generator.state
        _move(rig, rng, rig.chain_names, 0.02)
        rng.bit_generator.state = state
        _move(walked, rng, rig.chain_names, 0.02)
        a, b = rig.solve(), walked.solve()
        assert rig.solve_state.frame is not None and rig.solve_state.frame.ahead
        np.testing.assert_allclose(rig.world_positions(), walked.world_positions(), rtol=0, atol=NEAR_M)
        for n in rig.chain_names:
            assert abs(a[n].error - b[n].error) <= NEAR_M and a[n].iterations == b[n].iterations


@pytest.mark.parametrize("preset", ["uneven_ground_walk.json", "creature_gait.json"])
def test_grounded_feet_and_a_moving_clip_are_compiled_as_the_python_walk_solves_them(preset):
    """Grounded feet (their soles turned after every chain) and follow-clip chains on a
    playing clip are compiled frames, the Python walk's to round-off."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / preset)
    walked = _walked(rig)
    step = 1.0 / 30.0
    for f in range(8):
        for r in (rig, walked):
            r.time = f * step
            r.advance_gait(step)
        rig.solve()
        walked.solve()
        np.testing.assert_allclose(rig.world_positions(), walked.world_positions(), rtol=0, atol=NEAR_M)
    assert rig.solve_state.frame is not None and rig.solve_state.frame.ahead


def test_a_saved_solution_of_other_settings_goes_on_as_a_warm_start(tmp_path):
    """A rig saved after a setting changed (its stored solutions were solved with other
    settings) opens showing them; the first solve after that is compiled and treats them as
    warm starts only, as the Python walk does."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "humanoid.json")
    rig.chain("left_arm").target = (0.31, 1.27, 0.22)
    rig.solve()
    rig.chain("right_arm").tolerance = 0.002
    rig.chain("right_arm").weight = 0.75
    path = tmp_path / "posed.json"
    rig.save(path)
    opened = rigedit.Rig.load(path)
    walked = _walked(opened)
    opened.solve()
    walked.solve()
    np.testing.assert_allclose(opened.world_positions(), walked.world_positions(), rtol=0, atol=NEAR_M)
    np.testing.assert_allclose(opened.world_position("LeftHand"), (0.31, 1.27, 0.22), atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_frame_board_follows_every_chain_edit(seed):
    """What the compiled frame reads (Rig.frame_board) is each chain's own stamp, goal, pole
    and weight, whatever was set, added, removed or copied, in any order."""
    rng = np.random.default_rng(seed)
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "creature.json")
    loose = []
    for _ in range(int(rng.integers(5, 25))):
        names = rig.chain_names
        ch = rig.chain(names[int(rng.integers(len(names)))])
        act = int(rng.integers(7))
        if act == 0:
            ch.target = np.asarray(ch.target) + rng.uniform(-0.05, 0.05, 3)
        elif act == 1:
            ch.pole = None if rng.random() < 0.5 else tuple(rng.uniform(-1, 1, 3))
        elif act == 2:
            ch.weight = float(rng.uniform(0, 1))
        elif act == 3:
            ch.tolerance = float(rng.uniform(1e-4, 1e-2))
        elif act == 4 and len(names) > 1:
            rig.remove_chain(ch.name)
            loose.append(ch)
            ch.target = (0.0, 0.0, 0.0)  # no longer the rig's: its board must not see this
        elif act == 5:
            rig = rig.copy()
        else:
            ch.apply(ch.settings())
        rig.solve()
        board = rig.frame_board
        rows = np.frombuffer(bytes(board.rows)).reshape(-1, I_SIZE)
        assert board.stamps == [c.stamp for c in rig.chains_by_name.values()]
        assert len(rows) == len(rig.chain_names)
        for row, c in zip(rows, rig.chains_by_name.values()):
            pole = c.own_pole
            want = list(c.own_target) + ([0.0] * 4 if pole is None else list(pole) + [1.0]) + [c.weight] + [0.0] * 5  # no sole
            assert row.tolist() == want
