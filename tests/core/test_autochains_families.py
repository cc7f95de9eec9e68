"""Chains on every skeleton family: the arm from the upper arm to the hand (where the fingers
branch), the leg from the thigh to the foot, the spine from above the hips to the neck, fingers
on a hand alone, four legs on a quadruped. Layouts in tests/core/skeletons/families (SOURCES.md
there) and the real files in /work/shared/data."""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.autochains import find_hips, hand_alone, propose_chains
from rigedit.core.skeleton import Skeleton
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf

HERE = Path(__file__).parent / "skeletons"
DATA = Path("/work/shared/data")


def layout(path: Path) -> Skeleton:
    joints = json.loads(path.read_text())["joints"]
    return Skeleton([j["name"] for j in joints], [j["parent"] for j in joints],
                    np.array([j["offset"] for j in joints]), np.array([j["rotation"] for j in joints]))


def load(name: str):
    """(skeleton, pose) of a fixture or a shared data file."""
    if (HERE / "families" / f"{name}.json").exists():
        sk = layout(HERE / "families" / f"{name}.json")
        return sk, sk.rest_pose()
    if (HERE / f"{name}.json").exists():
        sk = layout(HERE / f"{name}.json")
        return sk, sk.rest_pose()
    if name.endswith(".bvh"):
        imp = read_bvh(DATA / name)
        return imp.skeleton, imp.clip.frame(0)
    imp = read_gltf(DATA / name)
    return imp.skeleton, imp.skeleton.rest_pose()


def chains(name: str) -> dict[str, tuple[str, ...]]:
    sk, pose = load(name)
    return {p.name: p.joints for p in propose_chains(sk, pose)}


def lr(left: str, right: str):
    return lambda n: n.replace(left, right)


def body(swap, hips, spine, arm, leg):
    """The expected chains: the left arm and leg as given, the right ones by `swap`."""
    return {"hips": hips, "spine": tuple(spine), "left_arm": tuple(arm), "right_arm": tuple(swap(j) for j in arm),
            "left_leg": tuple(leg), "right_leg": tuple(swap(j) for j in leg)}


def mixamo(p: str):
    return body(lr("Left", "Right"), p + "Hips", [p + n for n in ("Spine", "Spine1", "Spine2", "Neck")],
                [p + n for n in ("LeftArm", "LeftForeArm", "LeftHand")], [p + n for n in ("LeftUpLeg", "LeftLeg", "LeftFoot")])


HUMANOIDS = {
    "mixamo_colon_big_hands": mixamo("mixamorig:"),  # was LeftForeArm > LeftHand > LeftHandIndex1
    "mixamo_underscore": mixamo("mixamorig_"),
    "mixamo_bare": mixamo(""),
    "threejs_Xbot.glb": mixamo("mixamorig:"),
    "cmu_daz": body(lambda n: "r" + n[1:] if n[0] == "l" else n, "hip", ["abdomen", "chest", "neck"],
                    ["lShldr", "lForeArm", "lHand"], ["lThigh", "lShin", "lFoot"]),
    "sfu_inches": body(lr("Left", "Right"), "Hips", ["Spine", "Spine1", "Neck"],
                       ["LeftArm", "LeftForeArm", "LeftHand"], ["LeftUpLeg", "LeftLeg", "LeftFoot"]),
    # Twist halves in the chain (a chain is connected), the limb from the upper arm and the
    # thigh: was lowerarm01 > lowerarm02 > wrist and upperleg02 > .. > foot.
    "makehuman": body(lr(".L", ".R"), "root", ["spine05", "spine04", "spine03", "spine02", "spine01", "neck01"],
                      ["upperarm01.L", "upperarm02.L", "lowerarm01.L", "lowerarm02.L", "wrist.L"],
                      ["upperleg01.L", "upperleg02.L", "lowerleg01.L", "lowerleg02.L", "foot.L"]),
    "unreal_mannequin": body(lr("_l", "_r"), "pelvis", ["spine_01", "spine_02", "spine_03", "neck_01"],
                             ["upperarm_l", "lowerarm_l", "hand_l"], ["thigh_l", "calf_l", "foot_l"]),
    "vroid": body(lr("_L_", "_R_"), "J_Bip_C_Hips", ["J_Bip_C_Spine", "J_Bip_C_Chest", "J_Bip_C_UpperChest", "J_Bip_C_Neck"],
                  ["J_Bip_L_UpperArm", "J_Bip_L_LowerArm", "J_Bip_L_Hand"], ["J_Bip_L_UpperLeg", "J_Bip_L_LowerLeg", "J_Bip_L_Foot"]),
    "vrm_humanoid": body(lr("left", "right"), "hips", ["spine", "chest", "upperChest", "neck"],
                         ["leftUpperArm", "leftLowerArm", "leftHand"], ["leftUpperLeg", "leftLowerLeg", "leftFoot"]),
    "cmu_12_01_walk.bvh": body(lr("Left", "Right"), "Hips", ["LowerBack", "Spine", "Spine1"],
                               ["LeftArm", "LeftForeArm", "LeftHand"], ["LeftUpLeg", "LeftLeg", "LeftFoot"]),
    "dataset-1_walk-right_normal_001.bvh": body(lr("_L", "_R"), "Hips", ["Spine", "Chest", "Neck"],
                                                ["UpperArm_L", "LowerArm_L", "Hand_L"], ["UpperLeg_L", "LowerLeg_L", "Foot_L"]),
    "dataset-1_kick_normal_001.bvh": body(lr("_L", "_R"), "Hips", ["Spine", "Chest", "Neck"],
                                          ["UpperArm_L", "LowerArm_L", "Hand_L"], ["UpperLeg_L", "LowerLeg_L", "Foot_L"]),
    "lafan1_push1_subject2.bvh": body(lr("Left", "Right"), "Hips", ["Spine", "Spine1", "Spine2", "Neck"],
                                      ["LeftArm", "LeftForeArm", "LeftHand"], ["LeftUpLeg", "LeftLeg", "LeftFoot"]),
    "pybvh_bvh_test1.bvh": body(lr("Left", "Right"), "Hips", ["Spine", "Spine1", "Spine2", "Spine3", "Neck"],
                                ["LeftArm", "LeftForeArm", "LeftHand"], ["LeftUpLeg", "LeftLeg", "LeftFoot"]),
    "RiggedFigure.glb": body(lr("_L_", "_R_"), "torso_joint_1", ["torso_joint_2", "torso_joint_3", "neck_joint_1"],
                             ["arm_joint_L_1", "arm_joint_L_2", "arm_joint_L_3"], ["leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"]),
}
# Renamed layouts: the same answer by joint index as the layout they were made from.
RENAMED = {"guid_named": "unreal_mannequin", "unnamed": "mixamo_colon_big_hands"}


def expected(name: str) -> dict:
    if name not in RENAMED:
        return HUMANOIDS[name]
    src, _ = load(RENAMED[name])
    sk, _ = load(name)
    to = dict(zip(src.names, sk.names))
    return {k: to[v] if isinstance(v, str) else tuple(to[j] for j in v) for k, v in HUMANOIDS[RENAMED[name]].items()}


@pytest.mark.parametrize("name", sorted(HUMANOIDS) + sorted(RENAMED))
def test_humanoid_arms_legs_and_spine(name):
    want = expected(name)
    sk, pose = load(name)
    found = {p.name: p for p in propose_chains(sk, pose)}
    for key in ("spine", "left_arm", "right_arm", "left_leg", "right_leg"):
        assert found[key].joints == want[key], (key, found[key].joints)
    assert find_hips(sk, pose) == want["hips"]
    # The spine runs from the hips' child up to the neck; no finger chains on a body.
    assert sk.parents[sk.index(want["spine"][0])] == sk.index(want["hips"])
    assert not {"thumb", "index", "finger_1", "tail"} & set(found)
    assert not hand_alone(sk)


def test_no_skirt_or_hair_chains_and_no_ik_bones_as_limbs():
    # VRoid's skirt hangs from the hips in left-right pairs: not a tail. Unreal's ik_foot_l
    # lies where the foot is, one bone off the root: not a leg.
    assert not any("Sec" in j for js in chains("vroid").values() for j in js)
    assert not any(j.startswith("ik_") or "twist" in j for js in chains("unreal_mannequin").values() for j in js)


@pytest.mark.parametrize("name", ["hand_alone", "hand_with_forearm"])
@pytest.mark.parametrize("rename", [False, True])
def test_a_hand_alone_gets_finger_chains_and_no_body(name, rename):
    sk, _ = load(name)
    if rename:  # nothing in the names: fingers numbered in the file's order
        sk = Skeleton([f"j{k}" for k in range(len(sk))], sk.parents, sk.offsets, sk.rest_rotations)
    proposals = propose_chains(sk)
    assert hand_alone(sk) and find_hips(sk) is None
    names = [p.name for p in proposals]
    if rename:
        assert names == [f"finger_{k}" for k in range(1, 6)]
    else:
        assert names == ["thumb", "index", "middle", "ring", "pinky"]
    wrist = sk.index("RightHand") if not rename else int(np.bincount(sk.parents[sk.parents >= 0]).argmax())
    for p in proposals:
        idx = sk.chain_indices(p.joints)
        assert sk.parents[idx[0]] == wrist and not any(sk.parents == idx[-1])  # knuckle to tip
        assert p.solver == "fabrik"


@pytest.mark.parametrize("rename", [False, True])
def test_a_quadruped_gets_four_legs(rename):
    sk, _ = load("fox")
    if rename:
        sk = Skeleton([str(uuid.UUID(int=k * 7919 + 1)) for k in range(len(sk))], sk.parents, sk.offsets, sk.rest_rotations)
    found = {p.name for p in propose_chains(sk)}
    assert {"front_left_leg", "front_right_leg", "hind_left_leg", "hind_right_leg"} <= found
    assert not any("arm" in n for n in found)
    assert not hand_alone(sk)


@pytest.mark.parametrize("legs", [5, 8])
def test_a_creature_with_legs_round_one_joint_is_no_hand(legs):
    # As many legs as a hand has fingers, or more, but all round the body: no hand.
    turn = [(np.cos(2 * np.pi * k / legs), np.sin(2 * np.pi * k / legs)) for k in range(legs)]
    sk = Skeleton.from_joints([("Body", None, (0.0, 0.4, 0.0))] + [
        j for k, (c, s) in enumerate(turn) for j in (
            (f"a{k}", "Body", (0.1 * c, 0.0, 0.1 * s)), (f"b{k}", f"a{k}", (0.2 * c, 0.1, 0.2 * s)),
            (f"c{k}", f"b{k}", (0.05 * c, -0.5, 0.05 * s)))])
    assert not hand_alone(sk)
    assert not any(p.name in ("thumb", "index", "finger_1") for p in propose_chains(sk))


def test_a_robot_with_guid_names_gets_arms_and_legs():
    sk, _ = load("robot_expressive")
    named = {p.name: p.joints for p in propose_chains(sk)}
    guid = Skeleton([str(uuid.UUID(int=k * 104729 + 3)) for k in range(len(sk))], sk.parents, sk.offsets, sk.rest_rotations)
    to = dict(zip(sk.names, guid.names))
    renamed = {p.name: p.joints for p in propose_chains(guid)}
    for key in ("left_arm", "right_arm", "left_leg", "right_leg", "spine"):
        assert renamed[key] == tuple(to[j] for j in named[key]), key
