"""Rig.solved_state / Rig.restore_state (rigedit.core.rig_pose): every chain's last solution
as data, put back so the rig shows the same pose and solves on from it as before."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rigedit.core.ik.limits import ConeLimit
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.core.rig_pose import SolvedPose

EPS_M = 1e-9


def led_tentacle() -> Rig:
    rig = Rig.load(BUNDLED_PRESETS / "tentacle.json")
    for k in range(5):
        rig.chain("tentacle").target = rig.chain("tentacle").target + (0.06, -0.05 * k, 0.04)
        rig.solve()
    return rig


def same_settings(rig: Rig) -> Rig:
    other = Rig.load(BUNDLED_PRESETS / "tentacle.json")
    for ch in rig.chains:
        other.chain(ch.name).apply(ch.settings())
    return other


def test_restoring_on_a_fresh_rig_shows_the_solved_pose_and_solves_on_alike():
    rig = led_tentacle()
    solved = rig.solved_state()
    assert solved.chains["tentacle"].limited is not None  # a limited chain keeps its warm start
    other = same_settings(rig)
    reports = other.restore_state(solved)
    assert reports["tentacle"].iterations == 0  # taken as it was, not solved again
    assert reports["tentacle"].error == rig.solve()["tentacle"].error
    np.testing.assert_allclose(other.world_positions(), rig.world_positions(), rtol=0.0, atol=EPS_M)
    for t in ((0.3, 0.4, 0.2), (0.1, 0.7, -0.3)):
        rig.chain("tentacle").target = other.chain("tentacle").target = t
        a, b = rig.solve()["tentacle"], other.solve()["tentacle"]
        assert abs(a.error - b.error) <= EPS_M and a.reached == b.reached
        np.testing.assert_allclose(other.world_positions(), rig.world_positions(), rtol=0.0, atol=EPS_M)


def test_solved_state_is_empty_for_a_rig_never_solved():
    rig = Rig.default()
    rig.reset()
    assert rig.solved_state() == SolvedPose({})


def test_a_state_put_back_without_solving_is_saved_as_it_was():
    # The editor's document rig takes the solver thread's state this way, to save it.
    rig = led_tentacle()
    other = same_settings(rig)
    other.restore_state(rig.solved_state(), solve=False)
    assert other.solved_state() == rig.solved_state()


def test_a_solution_that_does_not_fit_is_dropped_and_solved_afresh():
    rig = led_tentacle()
    saved = rig.solved_state().chains["tentacle"]
    for bad in (
        dataclasses.replace(saved, rotations=saved.rotations[:-1]),  # one joint short
        dataclasses.replace(saved, rotations=((0.0, 0.0, 0.0, 2.0),) + saved.rotations[1:]),  # not a rotation
        dataclasses.replace(saved, error=float("nan")),
        dataclasses.replace(saved, error=saved.error + 0.05),  # the tip is not where it says
    ):
        other = same_settings(rig)
        fresh = same_settings(rig)
        other.restore_state(SolvedPose({"tentacle": bad, "no such chain": saved}))
        fresh.solve()
        np.testing.assert_allclose(other.world_positions(), fresh.world_positions(), rtol=0.0, atol=EPS_M)


def test_a_moved_target_makes_the_saved_solution_not_fit():
    rig = Rig.default()
    arm = rig.chain("left_arm")
    arm.solver, arm.pole = "fabrik", None
    arm.limits = {"LeftArm": ConeLimit(60.0), "LeftForeArm": arm.limits["LeftForeArm"]}
    for t in ((0.361, 1.238, 0.185), (0.514, 0.687, -0.036), (0.475, 1.06, -0.151)):
        arm.target = t
        rig.solve()
    solved = rig.solved_state()
    other, fresh = Rig.default(), Rig.default()
    for r in (other, fresh):
        r.chain("left_arm").apply(dataclasses.replace(arm.settings(), target=(0.3, 1.0, 0.3)))
    other.restore_state(solved)
    fresh.solve()
    np.testing.assert_allclose(other.world_positions(), fresh.world_positions(), rtol=0.0, atol=EPS_M)


def test_weight_between_blends_the_restored_solution_as_it_did():
    rig = led_tentacle()
    rig.chain("tentacle").weight = 0.4
    rig.solve()
    other = same_settings(rig)
    other.restore_state(rig.solved_state())
    np.testing.assert_allclose(other.world_positions(), rig.world_positions(), rtol=0.0, atol=EPS_M)


@pytest.mark.parametrize("name", ["humanoid", "creature"])
def test_a_copy_restored_from_the_original_matches_it(name):
    rig = Rig.load(BUNDLED_PRESETS / f"{name}.json")
    for ch in rig.chains:
        ch.target = ch.target + (0.05, -0.08, 0.04)
    rig.solve()
    other = rig.copy()
    other.reset()
    other.restore_state(rig.solved_state())
    np.testing.assert_allclose(other.world_positions(), rig.world_positions(), rtol=0.0, atol=EPS_M)


def test_a_look_at_chain_switched_to_reaching_solves_from_the_pose():
    # A look_at chain keeps no state; switched to a reaching solver it has none to warm
    # start from, and is solved from the pose built so far.
    rig = Rig.load(BUNDLED_PRESETS / "look_at.json")
    rig.solve()
    ch = rig.chain("look")
    ch.solver = "fabrik"
    ch.target = rig.world_position("Head") + (0.05, 0.0, 0.02)
    before = float(np.linalg.norm(rig.world_position("Head") - ch.target))
    report = rig.solve()["look"]
    assert np.isfinite(report.error) and report.error < before  # turned toward it
