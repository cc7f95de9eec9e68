"""A chain from picked joints (the editor's Add IK Chain): one joint is a limb's end with
its two parents; more lie on one line and the chain runs from the highest to the lowest."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rigedit import Rig
from rigedit.core.autochains.picked import pick_chain
from rigedit.core.ik import registry

RIG = Rig.default()
SK = RIG.skeleton
PARENTS = [int(p) for p in SK.parents]


def above(j: int) -> list[int]:
    up = []
    while PARENTS[j] >= 0:
        j = PARENTS[j]
        up.append(j)
    return up


DEEP = [j for j in range(len(PARENTS)) if len(above(j)) >= 2]


@given(st.sampled_from(DEEP))
@settings(max_examples=30, deadline=None)
def test_one_joint_is_the_end_of_a_two_bone_limb(j):
    p = pick_chain(SK, RIG.pose, [SK.names[j]], RIG.chain_names)
    up = above(j)
    assert p.joints == (SK.names[up[1]], SK.names[up[0]], SK.names[j])
    assert p.solver == registry.reaching_for(3).name
    np.testing.assert_allclose(p.target, RIG.world_position(SK.names[j]), atol=1e-12)
    rig = RIG.copy()
    rig.add_chain(p.name, p.joints, solver=p.solver, pole=p.pole)  # what the editor does with it
    assert p.name not in RIG.chain_names


@given(st.sampled_from(DEEP), st.data())
@settings(max_examples=30, deadline=None)
def test_joints_on_one_line_give_the_run_between_the_highest_and_the_lowest(j, data):
    line = [j] + above(j)  # tip first
    k = data.draw(st.integers(1, len(line) - 1))
    middle = data.draw(st.lists(st.sampled_from(line[:k + 1]), max_size=3))
    picked = [SK.names[n] for n in data.draw(st.permutations([j, line[k]] + middle))]
    p = pick_chain(SK, RIG.pose, picked)
    assert p.joints == tuple(SK.names[n] for n in line[k::-1])
    assert p.solver == registry.reaching_for(k + 1).name


def test_joints_off_one_line_and_too_short_limbs_say_why():
    with pytest.raises(ValueError, match="not on the line"):
        pick_chain(SK, RIG.pose, ["LeftHand", "RightHand"])
    with pytest.raises(ValueError, match="select a joint"):
        pick_chain(SK, RIG.pose, [])
    with pytest.raises(ValueError, match="fewer than two joints above"):
        pick_chain(SK, RIG.pose, [SK.names[next(j for j in range(len(PARENTS)) if len(above(j)) == 1)]])


def test_the_name_is_free():
    first = pick_chain(SK, RIG.pose, ["LeftHand"], ())
    again = pick_chain(SK, RIG.pose, ["LeftHand"], (first.name,))
    assert again.name != first.name and again.name.startswith(first.name)


def test_removing_a_chain_takes_its_track_so_the_rig_still_saves(tmp_path):
    rig = RIG.copy()
    rig.timeline.add_key("left_arm", "weight", 0.5, 0.3)
    rig.remove_chain("left_arm")
    assert "left_arm" not in rig.timeline.tracks
    rig.save(tmp_path / "r.json")
    assert Rig.load(tmp_path / "r.json").chain_names == rig.chain_names


def test_a_chain_following_the_clip_leaves_with_the_goal_it_had():
    from tests.motion_clip import humanoid_with_clip

    walker = humanoid_with_clip()
    rig = Rig(walker.skeleton, clip=walker.clip)
    for side in ("Left", "Right"):
        rig.add_chain(f"{side}_arm", [f"{side}Arm", f"{side}ForeArm", f"{side}Hand"], solver="two_bone", follow_clip=True)
    rig.time = 1.3
    rig.solve()
    goal = np.asarray(rig.chain("Left_arm").target).copy()
    rig = rig.copy()  # the editor's Remove Chain: a copy, never solved, where the goal is worked out afresh
    ch = rig.chain("Left_arm")
    rig.remove_chain("Left_arm")
    assert rig.chain_names == ["Right_arm"] and not ch.following
    np.testing.assert_allclose(ch.target, goal, atol=1e-12)
    rig.solve()
