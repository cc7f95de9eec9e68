"""The compiled frame (core/rig_frame.py, ik/frame_kernel.py), the rig's one frame
evaluation: each chain as its solver's single-chain API solves it on the pose built so far,
its warm starts handed back as the rig's ChainStates, goals that are per-frame inputs never
written into the chains, saved solutions shown and gone on from as the saving rig would, and
input a solver refuses stopped with a clear error (docs/ARCHITECTURE.md, core: one frame
evaluation)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.clip import Clip
from rigedit.core.ik.frame_codes import I_SIZE
from rigedit.core.ik.limits import HingeLimit
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.core.rig_anim import animated
from rigedit.core.skeleton import Skeleton

NEAR_M = 1e-9


def _move(rig, rng, names, scale):
    for n in names:
        ch = rig.chain(n)
        ch.target = np.asarray(ch.target) + rng.uniform(-scale, scale, 3)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["humanoid.json", "creature.json", "tentacle.json"]), st.sampled_from(["fabrik", "ccd"]))
def test_each_chain_is_its_single_chain_solve_on_the_pose_built_so_far(seed, preset, solver):
    """A rig solved from its animated pose (reset) puts every chain where the solver's own
    single-chain API puts it, started from the chain's points in the pose the chains before
    it built (their solutions, its own joints animated). Plain chains: no limits, no reach
    clamp, weight 1, so the API takes the same inputs."""
    rng = np.random.default_rng(seed)
    rig = rigedit.Rig.load(BUNDLED_PRESETS / preset)
    for n in rig.chain_names:
        ch = rig.chain(n)
        if ch.solver == "fabrik":
            ch.solver = solver
        ch.limits, ch.reach_clamp, ch.softness = {}, 1.0, 0.0
    _move(rig, rng, rig.chain_names, 0.1)
    rig.reset()
    reports = rig.solve()
    solved, animated_rot = rig.pose, rig.animated_pose().rotations
    world = rig.skeleton.fk(solved)[0]
    for n in rig.chain_names:
        ch = rig.chain(n)
        idx = rig.skeleton.chain_indices(ch.joints)
        before = solved.copy()
        before.rotations[idx[:-1]] = animated_rot[idx[:-1]]
        start = rig.skeleton.fk(before)[0][idx]
        pole = None if ch.pole is None else np.asarray(ch.pole)
        want = ch.kind.method.single(start, np.asarray(ch.target), pole, tolerance=ch.tolerance, max_iterations=ch.max_iterations)
        np.testing.assert_allclose(world[idx], want, rtol=0, atol=NEAR_M)
        assert abs(reports[n].error - np.linalg.norm(want[-1] - ch.target)) <= NEAR_M


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


def test_grounded_feet_stand_on_their_soles_on_a_moving_clip():
    """Grounded feet, frame after frame of a playing clip: each foot's tip on its grounded
    target within its tolerance and turned to its sole (the ground's rotation under it)
    after every chain is solved."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "uneven_ground_walk.json")
    step = 1.0 / 30.0
    checked = 0
    for f in range(8):
        rig.time = f * step
        rig.advance_gait(step)
        reports = rig.solve()
        soles = animated(rig).soles or {}
        world, turned = rig.skeleton.fk(rig.pose)
        for n, sole in soles.items():
            ch = rig.chain(n)
            if ch.weight != 1.0 or not reports[n].reached:
                continue
            tip = rig.skeleton.index(ch.joints[-1])
            assert np.linalg.norm(world[tip] - rig.shown_target(n)) <= ch.tolerance + NEAR_M
            q = turned[tip] / np.linalg.norm(turned[tip])
            assert min(np.abs(q - sole).max(), np.abs(q + np.asarray(sole)).max()) <= 1e-9
            checked += 1
    assert checked


def test_a_saved_solution_of_other_settings_goes_on_as_a_warm_start(tmp_path):
    """A rig saved after a setting changed (its stored solutions were solved with other
    settings) opens showing them; its first solve takes them as warm starts only, and gives
    what the saving rig's next solve gives."""
    rig = rigedit.Rig.load(BUNDLED_PRESETS / "humanoid.json")
    rig.chain("left_arm").target = (0.31, 1.27, 0.22)
    rig.solve()
    rig.chain("right_arm").tolerance = 0.002
    rig.chain("right_arm").weight = 0.75
    path = tmp_path / "posed.json"
    rig.save(path)
    opened = rigedit.Rig.load(path)
    np.testing.assert_allclose(opened.world_positions(), rig.world_positions(), rtol=0, atol=NEAR_M)
    opened.solve()
    rig.solve()
    np.testing.assert_allclose(opened.world_positions(), rig.world_positions(), rtol=0, atol=NEAR_M)
    np.testing.assert_allclose(opened.world_position("LeftHand"), (0.31, 1.27, 0.22), atol=1e-6)


def _hinged_rig(frames: int, bad: int) -> rigedit.Rig:
    """Four joints in a row, a FABRIK chain with a hinge on its second joint about x, and a
    clip that on frame `bad` moves that joint's offset onto the hinge axis (a bone along
    its hinge: no plane to bend in)."""
    sk = Skeleton.from_joints([("a", None, (0.0, 1.0, 0.0)), ("b", "a", (0.0, 0.3, 0.0)), ("c", "b", (0.0, 0.3, 0.0)),
                               ("d", "c", (0.0, 0.3, 0.0))])  # fmt: skip
    rot = np.tile([0.0, 0.0, 0.0, 1.0], (frames, 4, 1))
    trans = np.tile(sk.offsets, (frames, 1, 1))
    trans[bad, 1] = (0.3, 0.0, 0.0)
    rig = rigedit.Rig(sk, clip=Clip(rot, trans, 1.0 / 30.0))
    rig.add_chain("arm", ["a", "b", "c", "d"], solver="fabrik", target=(0.2, 1.6, 0.3),
                  limits={"b": HingeLimit((1.0, 0.0, 0.0), -90.0, 90.0)})  # fmt: skip
    return rig


@settings(max_examples=5, deadline=None)
@given(st.integers(3, 40), st.data())
def test_a_bone_along_its_hinge_stops_the_solve_with_a_clear_error_and_keeps_nothing(frames, data):
    bad = data.draw(st.integers(1, frames - 1))
    rig = _hinged_rig(frames, bad)
    rig.solve()
    before, states = rig.world_positions(), rig.solve_state.states
    rig.time = bad / 30.0
    with pytest.raises(ValueError, match="chain 'arm' cannot be solved: the hinge on joint 1 \\('b'\\) has its axis parallel"):
        rig.solve()
    np.testing.assert_array_equal(rig.world_positions(), before)
    assert rig.solve_state.states["arm"].ik == states["arm"].ik
    rig.time = 0.0
    rig.solve()  # the next frame solves again
    from rigedit.core.bake import bake

    with pytest.raises(ValueError, match=f"frame {bad} .*chain 'arm' cannot be solved: the hinge on joint 1"):
        bake(rig)


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
