"""Full body with legs that the ground or a gait places (issue 16): every leg of the
eight-legged creature is an anchor by default, its gait walks with planted feet on their
targets, and a humanoid on sloped ground leans for a far hand with its grounded feet kept."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rigedit
from rigedit.core.rig_gait import advance_gait
from tests.core.full_body_cases import arm_reach

PRESETS = Path(__file__).resolve().parents[2] / "resources" / "presets"
FOOT_EPS = 1e-3  # planted feet within 1 mm of their targets (issue 16)


@pytest.mark.parametrize("preset", ["creature", "creature_gait"])
def test_every_creature_leg_is_an_anchor_by_default(preset):
    rig = rigedit.Rig.load(PRESETS / f"{preset}.json")
    assert len(rig.chain_names) == 8
    assert all(rig.chain(n).pull == 0.0 and rig.chain(n).pull_is_default for n in rig.chain_names)


def test_the_creature_walks_with_full_body_on_and_planted_feet_stay():
    rig = rigedit.Rig.load(PRESETS / "creature_gait.json")
    rig.full_body = True
    start = rig.world_position(rig.skeleton.names[0]).copy()
    planted_seen = 0
    for _ in range(60):
        advance_gait(rig, 1.0 / 30.0)
        gait = rig.running_gait.gait
        for k, leg in enumerate(rig.gait.legs):
            ch = rig.chain(leg)
            if gait.planted[k]:
                planted_seen += 1
                assert np.linalg.norm(rig.world_position(ch.joints[-1]) - ch.target) <= FOOT_EPS, leg
    assert planted_seen > 100  # most feet are planted most of the time
    assert np.linalg.norm(rig.world_position(rig.skeleton.names[0]) - start) > 0.05  # and it walked


def test_grounded_feet_stay_while_the_body_leans_for_a_hand():
    rig = rigedit.Rig.default()
    rig.ground = "slope"
    for leg in ("left_leg", "right_leg"):
        rig.chain(leg).ground_feet = True
    rig.full_body = True
    rig.solve()
    feet = rig.grounded_targets()
    hips = rig.world_position("Hips").copy()
    shoulder, reach = arm_reach(rig, "left_arm")
    rig.chain("left_arm").target = shoulder + np.array([0.1, -0.35, 1.2 * reach])
    report = rig.solve()
    assert report["left_arm"].reached
    assert np.linalg.norm(rig.world_position("Hips") - hips) > 0.01  # the body leaned to reach
    for leg, target in feet.items():
        tip = rig.world_position(rig.chain(leg).joints[-1])
        assert np.linalg.norm(tip - np.asarray(target)) <= FOOT_EPS, leg
