"""Auto chains: limbs, spine and poles found on the real files and on the common naming schemes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.core.autochains import name_words, propose_chains
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf

DATA = Path("/work/shared/data")


def by_name(proposals):
    return {p.name: p for p in proposals}


# --- the real files ---------------------------------------------------------------------------

EXPECTED = {
    "cmu_12_01_walk.bvh": {
        "left_arm": ("LeftArm", "LeftForeArm", "LeftHand"),
        "right_arm": ("RightArm", "RightForeArm", "RightHand"),
        "left_leg": ("LeftUpLeg", "LeftLeg", "LeftFoot"),
        "right_leg": ("RightUpLeg", "RightLeg", "RightFoot"),
        # Neck sits on Spine1 with a zero-length bone, so the spine ends at the chest and
        # the head chain starts on that spot.
        "spine": ("LowerBack", "Spine", "Spine1"),
        "head": ("Neck", "Neck1", "Head", "Head_End"),
    },
    "dataset-1_walk-right_normal_001.bvh": {
        "left_arm": ("UpperArm_L", "LowerArm_L", "Hand_L"),
        "right_arm": ("UpperArm_R", "LowerArm_R", "Hand_R"),
        "left_leg": ("UpperLeg_L", "LowerLeg_L", "Foot_L"),
        "right_leg": ("UpperLeg_R", "LowerLeg_R", "Foot_R"),
        "spine": ("Spine", "Chest", "Neck"),
        "head": ("Neck", "Head"),  # Head_End has no length
    },
    "pybvh_bvh_test1.bvh": {
        "left_arm": ("LeftArm", "LeftForeArm", "LeftHand"),
        "right_arm": ("RightArm", "RightForeArm", "RightHand"),
        "left_leg": ("LeftUpLeg", "LeftLeg", "LeftFoot"),
        "right_leg": ("RightUpLeg", "RightLeg", "RightFoot"),
        "spine": ("Spine", "Spine1", "Spine2", "Spine3", "Neck"),
        "head": ("Neck", "Neck1", "Head", "Head_End"),
    },
    "CesiumMan.glb": {
        # CesiumMan's left arm is numbered backwards: __4_ is the shoulder, __2_ the wrist.
        "left_arm": ("Skeleton_arm_joint_L__4_", "Skeleton_arm_joint_L__3_", "Skeleton_arm_joint_L__2_"),
        "right_arm": ("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"),
        "left_leg": ("leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"),
        "right_leg": ("leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3"),
        "spine": ("Skeleton_torso_joint_2", "torso_joint_3", "Skeleton_neck_joint_1"),
        "head": ("Skeleton_neck_joint_1", "Skeleton_neck_joint_2"),
    },
    "RiggedSimple.glb": {"chain": ("Bone", "Bone.001")},
}
# The toe joint below each foot, to tell which way the figure faces without the code under test.
TOES = {
    "cmu_12_01_walk.bvh": ("LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase"),
    "dataset-1_walk-right_normal_001.bvh": ("Foot_L", "Toes_L", "Foot_R", "Toes_R"),
    "pybvh_bvh_test1.bvh": ("LeftFoot", "LeftToeBase", "RightFoot", "RightToeBase"),
    "CesiumMan.glb": ("leg_joint_L_3", "leg_joint_L_5", "leg_joint_R_3", "leg_joint_R_5"),
}
UP: dict = {}  # every file comes in Y-up (read_bvh turns the Z-up pybvh file)


def load(name):
    if name.endswith(".bvh"):
        imp = read_bvh(DATA / name)
        return imp.skeleton, imp.clip.frame(0)
    imp = read_gltf(DATA / name)
    return imp.skeleton, imp.skeleton.rest_pose()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_chains_found_on_each_data_file(name):
    skeleton, pose = load(name)
    proposals = propose_chains(skeleton, pose)
    found = by_name(proposals)
    assert {k: v.joints for k, v in found.items()} == EXPECTED[name]
    if "spine" in found:  # solved first: the arms hang from it
        assert proposals[0].name == "spine"
    pos, _ = skeleton.fk_matrices(pose)
    for p in found.values():
        skeleton.chain_indices(p.joints)  # connected, root to tip
        assert p.solver == ("two_bone" if len(p.joints) == 3 and p.name not in ("spine", "head") else "fabrik")
        np.testing.assert_allclose(p.target, pos[skeleton.index(p.joints[-1])], atol=1e-12)


@pytest.mark.parametrize("name", sorted(TOES))
def test_poles_in_front_of_knees_and_behind_elbows(name):
    skeleton, pose = load(name)
    pos, _ = skeleton.fk_matrices(pose)
    at = {n: pos[i] for i, n in enumerate(skeleton.names)}
    up = UP.get(name, np.array([0.0, 1.0, 0.0]))
    lf, lt, rf, rt = TOES[name]
    toes = (at[lt] - at[lf]) + (at[rt] - at[rf])
    forward = toes - (toes @ up) * up
    forward /= np.linalg.norm(forward)
    for p in propose_chains(skeleton, pose):
        if p.solver != "two_bone":
            continue
        root, mid, tip = (at[j] for j in p.joints)
        limb = np.linalg.norm(mid - root) + np.linalg.norm(tip - mid)
        d = p.pole - mid
        assert np.linalg.norm(d) == pytest.approx(limb, rel=1e-9)
        along = d @ forward / np.linalg.norm(d)
        if p.name.endswith("leg"):
            assert along > 0.9, (p.name, along)
        else:
            assert along < -0.9, (p.name, along)


# --- naming schemes on a made-up humanoid ---------------------------------------------------

# role -> (parent role, offset): Y up, facing +Z, the figure's left at +X, metres.
HUMANOID = {
    "hips": (None, (0, 1.0, 0)),
    "spine": ("hips", (0, 0.1, 0)),
    "chest": ("spine", (0, 0.25, 0)),
    "neck": ("chest", (0, 0.2, 0)),
    "head": ("neck", (0, 0.1, 0)),
    "l_collar": ("chest", (0.05, 0.15, 0)),
    "l_upper_arm": ("l_collar", (0.15, 0, 0)),
    "l_forearm": ("l_upper_arm", (0.28, 0, 0)),
    "l_hand": ("l_forearm", (0.25, 0, 0)),
    "l_finger": ("l_hand", (0.08, 0, 0)),
    "r_collar": ("chest", (-0.05, 0.15, 0)),
    "r_upper_arm": ("r_collar", (-0.15, 0, 0)),
    "r_forearm": ("r_upper_arm", (-0.28, 0, 0)),
    "r_hand": ("r_forearm", (-0.25, 0, 0)),
    "r_finger": ("r_hand", (-0.08, 0, 0)),
    "l_thigh": ("hips", (0.1, -0.05, 0)),
    "l_shin": ("l_thigh", (0, -0.45, 0.01)),
    "l_foot": ("l_shin", (0, -0.42, -0.01)),
    "l_toe": ("l_foot", (0, -0.05, 0.12)),
    "r_thigh": ("hips", (-0.1, -0.05, 0)),
    "r_shin": ("r_thigh", (0, -0.45, 0.01)),
    "r_foot": ("r_shin", (0, -0.42, -0.01)),
    "r_toe": ("r_foot", (0, -0.05, 0.12)),
}

SCHEMES = {
    "cmu": dict(hips="Hips", spine="LowerBack", chest="Spine1", neck="Neck1", head="Head", l_collar="LeftShoulder",
                l_upper_arm="LeftArm", l_forearm="LeftForeArm", l_hand="LeftHand", l_finger="LeftHandIndex1",
                l_thigh="LeftUpLeg", l_shin="LeftLeg", l_foot="LeftFoot", l_toe="LeftToeBase"),
    "daz": dict(hips="hip", spine="abdomen", chest="chest", neck="neck", head="head", l_collar="lCollar",
                l_upper_arm="lShldr", l_forearm="lForeArm", l_hand="lHand", l_finger="lIndex1",
                l_thigh="lThigh", l_shin="lShin", l_foot="lFoot", l_toe="lToe"),
    "mixamo": {k: "mixamorig:" + v for k, v in dict(
        hips="Hips", spine="Spine", chest="Spine2", neck="Neck", head="Head", l_collar="LeftShoulder",
        l_upper_arm="LeftArm", l_forearm="LeftForeArm", l_hand="LeftHand", l_finger="LeftHandIndex1",
        l_thigh="LeftUpLeg", l_shin="LeftLeg", l_foot="LeftFoot", l_toe="LeftToeBase").items()},
    "unreal": dict(hips="pelvis", spine="spine_01", chest="spine_03", neck="neck_01", head="head", l_collar="clavicle_l",
                   l_upper_arm="upperarm_l", l_forearm="lowerarm_l", l_hand="hand_l", l_finger="index_01_l",
                   l_thigh="thigh_l", l_shin="calf_l", l_foot="foot_l", l_toe="ball_l"),
    "blender": dict(hips="hips", spine="spine", chest="chest", neck="neck", head="head", l_collar="shoulder.L",
                    l_upper_arm="upper_arm.L", l_forearm="forearm.L", l_hand="hand.L", l_finger="f_index.01.L",
                    l_thigh="thigh.L", l_shin="shin.L", l_foot="foot.L", l_toe="toe.L"),
}


def mirror(name: str, scheme: str) -> str:
    swaps = {"cmu": [("Left", "Right")], "daz": [("l", "r")], "mixamo": [("Left", "Right")],
             "unreal": [("_l", "_r")], "blender": [(".L", ".R")]}[scheme]
    for a, b in swaps:
        if scheme == "daz":
            return b + name[1:] if name.startswith(a) else name
        if a in name:
            return name.replace(a, b)
    return name


def humanoid(scheme: str, layout=HUMANOID) -> Skeleton:
    names = {}
    for role in layout:
        if role.startswith("r_"):
            names[role] = mirror(SCHEMES[scheme]["l_" + role[2:]], scheme)
        else:
            names[role] = SCHEMES[scheme][role]
    joints = [(names[r], None if p is None else names[p], off) for r, (p, off) in layout.items()]
    return Skeleton.from_joints(joints)


@pytest.mark.parametrize("scheme", sorted(SCHEMES))
def test_naming_schemes(scheme):
    sk = humanoid(scheme)
    n = {r: sk.names[i] for i, r in enumerate(HUMANOID)}
    found = by_name(propose_chains(sk))
    assert {k: v.joints for k, v in found.items()} == {
        "left_arm": (n["l_upper_arm"], n["l_forearm"], n["l_hand"]),
        "right_arm": (n["r_upper_arm"], n["r_forearm"], n["r_hand"]),
        "left_leg": (n["l_thigh"], n["l_shin"], n["l_foot"]),
        "right_leg": (n["r_thigh"], n["r_shin"], n["r_foot"]),
        "spine": (n["spine"], n["chest"], n["neck"]),
        "head": (n["neck"], n["head"]),
    }
    # Facing +Z: knee poles at +Z of the knee, elbow poles at -Z of the elbow.
    pos, _ = sk.fk_matrices(sk.rest_pose())
    for p in found.values():
        if p.pole is not None:
            d = p.pole - pos[sk.index(p.joints[1])]
            assert np.sign(d[2]) == (1 if "leg" in p.name else -1)
            assert abs(d[2]) == pytest.approx(np.linalg.norm(d))


def test_name_words():
    assert name_words("mixamorig:LeftUpLeg") == ["left", "up", "leg"]
    assert name_words("lShldr") == ["l", "shldr"]
    assert name_words("LHipJoint") == ["l", "hip", "joint"]
    assert name_words("Skeleton_arm_joint_L__4_") == ["skeleton", "arm", "joint", "l", "4"]
    assert name_words("Bip01 R Thigh") == ["bip", "01", "r", "thigh"]


def test_facing_follows_the_skeleton_not_the_world():
    # The same humanoid turned to face +X: poles must turn with it.
    sk = humanoid("cmu")
    turn = np.array([0.0, np.sin(np.pi / 4), 0.0, np.cos(np.pi / 4)])  # +90 degrees about Y: +Z -> +X
    pose = sk.rest_pose()
    pose.rotations[0] = turn
    pos, _ = sk.fk_matrices(pose)
    for p in propose_chains(sk, pose):
        if p.pole is not None:
            d = p.pole - pos[sk.index(p.joints[1])]
            assert np.sign(d[0]) == (1 if "leg" in p.name else -1), p.name
            assert abs(d[0]) == pytest.approx(np.linalg.norm(d))


def test_twist_joints_make_a_fabrik_limb():
    sk = humanoid("cmu")
    joints = [(n, None if p < 0 else sk.names[p], o) for n, p, o in zip(sk.names, sk.parents, sk.offsets)]
    # MotionBuilder puts a roll joint half way down the forearm.
    i = [j[0] for j in joints].index("LeftHand")
    joints[i] = ("LeftHand", "LeftForeArmRoll", (0.125, 0, 0))
    joints.insert(i, ("LeftForeArmRoll", "LeftForeArm", (0.125, 0, 0)))
    sk2 = Skeleton.from_joints(joints)
    found = by_name(propose_chains(sk2))
    assert found["left_arm"].joints == ("LeftArm", "LeftForeArm", "LeftForeArmRoll", "LeftHand")
    assert found["left_arm"].solver == "fabrik"
    assert found["right_arm"].solver == "two_bone"


def quadruped(front="LeftArm"):
    """A dog-like skeleton facing +Z: spine along Z, four legs down to the ground, a tail."""
    j = [
        ("Hips", None, (0, 0.5, 0)),
        ("Spine", "Hips", (0, 0.02, 0.15)),
        ("Chest", "Spine", (0, 0.0, 0.3)),
        ("Neck", "Chest", (0, 0.1, 0.1)),
        ("Head", "Neck", (0, 0.05, 0.1)),
        ("Tail1", "Hips", (0, 0, -0.1)),
        ("Tail2", "Tail1", (0, 0, -0.1)),
        ("Tail3", "Tail2", (0, 0, -0.1)),
    ]
    for side, x in (("Left", 0.1), ("Right", -0.1)):
        if front == "LeftArm":
            names = [f"{side}Shoulder", f"{side}Arm", f"{side}ForeArm", f"{side}Hand"]
        else:
            names = [f"{side}FrontShoulder", f"{side}FrontLeg", f"{side}FrontKnee", f"{side}FrontFoot"]
        j += [
            (names[0], "Chest", (x * 0.5, 0, 0.05)),
            (names[1], names[0], (x * 0.5, -0.05, 0)),
            (names[2], names[1], (0, -0.25, -0.02)),
            (names[3], names[2], (0, -0.23, 0.02)),
            (f"{side}UpLeg", "Hips", (x, -0.05, 0)),
            (f"{side}Leg", f"{side}UpLeg", (0, -0.22, 0.03)),
            (f"{side}Foot", f"{side}Leg", (0, -0.23, -0.03)),
        ]
    return Skeleton.from_joints(j)


@pytest.mark.parametrize("front", ["LeftArm", "LeftFrontLeg"])
def test_four_legs(front):
    sk = quadruped(front)
    found = by_name(propose_chains(sk))
    assert set(found) == {"front_left_leg", "front_right_leg", "hind_left_leg", "hind_right_leg", "spine", "head", "tail"}
    if front == "LeftArm":
        assert found["front_left_leg"].joints == ("LeftArm", "LeftForeArm", "LeftHand")
    else:
        assert found["front_left_leg"].joints == ("LeftFrontLeg", "LeftFrontKnee", "LeftFrontFoot")
    assert found["hind_right_leg"].joints == ("RightUpLeg", "RightLeg", "RightFoot")
    assert found["spine"].joints == ("Spine", "Chest", "Neck")
    assert found["head"].joints == ("Neck", "Head")
    assert found["tail"].joints == ("Tail1", "Tail2", "Tail3")
    pos, _ = sk.fk_matrices(sk.rest_pose())
    for name in ("front_left_leg", "hind_left_leg"):
        p = found[name]
        d = p.pole - pos[sk.index(p.joints[1])]
        assert np.sign(d[2]) == (1 if name.startswith("hind") else -1)


def test_nothing_recognisable_gives_one_chain_per_branch():
    sk = Skeleton.from_joints([
        ("body", None, (0, 0, 0)),
        ("a1", "body", (0.1, 0, 0)), ("a2", "a1", (0.1, 0, 0)), ("a3", "a2", (0.1, 0, 0)),
        ("b1", "body", (-0.1, 0, 0)), ("b2", "b1", (-0.1, 0, 0)),
        ("c1", "body", (0, 0, 0.1)),
    ])
    found = by_name(propose_chains(sk))
    assert {k: v.joints for k, v in found.items()} == {"chain_a3": ("a1", "a2", "a3"), "chain_b2": ("b1", "b2")}
    assert all(p.solver == "fabrik" and p.pole is None for p in found.values())


def test_proposals_serialise_to_plain_data():
    p = by_name(propose_chains(humanoid("daz")))["left_leg"]
    d = p.to_dict()
    assert d["joints"] == list(p.joints) and d["solver"] == p.solver
    assert all(isinstance(v, float) for v in d["target"] + d["pole"])


def test_bent_limbs_without_a_left_right_pair_use_their_own_bend():
    # Only a left leg: no facing direction; the knee's bend decides the pole side.
    sk = Skeleton.from_joints([
        ("Hips", None, (0, 1, 0)),
        ("LeftUpLeg", "Hips", (0.1, 0, 0)),
        ("LeftLeg", "LeftUpLeg", (0, -0.45, 0.1)),
        ("LeftFoot", "LeftLeg", (0, -0.45, -0.1)),
    ])
    (p,) = propose_chains(sk, Pose(sk.rest_rotations, sk.offsets))
    assert p.name == "left_leg"
    assert p.pole[2] > 0.5


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh",
                                  "CesiumMan.glb"])
def test_the_same_chains_on_every_frame_of_the_clip(name):
    # Limbs come from mirrored pairs in the hierarchy, not from where the feet are: a lifted
    # foot, a stride or a frame in the air changes nothing (nor the sides: planted, flat
    # feet and bent knees say which way the figure faces).
    imp = read_bvh(DATA / name) if name.endswith(".bvh") else read_gltf(DATA / name)
    frames = np.linspace(0, imp.clip.n_frames - 1, 16).astype(int)
    first = {p.name: p.joints for p in propose_chains(imp.skeleton, imp.clip.frame(0))}
    for k in frames:
        assert {p.name: p.joints for p in propose_chains(imp.skeleton, imp.clip.frame(int(k)))} == first, k
