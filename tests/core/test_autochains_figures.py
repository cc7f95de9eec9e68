"""Chains proposed on whole figures: the glTF samples' layouts (fixtures extracted from the
files, which the tests may not read) and Mixamo, Daz Genesis and SFU humanoids built here
with their own joint names, units and rest offsets."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.autochains import find_hips, propose_chains
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_mul

SKELETONS = Path(__file__).with_name("skeletons")


def fixture(name: str) -> Skeleton:
    joints = json.loads((SKELETONS / name).read_text())["joints"]
    return Skeleton(
        [j["name"] for j in joints], [j["parent"] for j in joints],
        np.array([j["offset"] for j in joints]), np.array([j["rotation"] for j in joints]),
    )


def chains(sk: Skeleton) -> dict[str, tuple[str, ...]]:
    return {p.name: p.joints for p in propose_chains(sk)}


def check_poles(sk: Skeleton, forward: np.ndarray) -> None:
    """Knee poles in front of the knee, elbow poles behind the elbow, one limb length away."""
    pos = sk.fk_matrices(sk.rest_pose())[0]
    for p in propose_chains(sk):
        if p.pole is None:
            continue
        mid = pos[sk.index(p.joints[1] if len(p.joints) == 3 else p.joints[len(p.joints) // 2])]
        d = (p.pole - mid) / np.linalg.norm(p.pole - mid)
        knee = p.name.endswith("leg") and not p.name.startswith("front")
        assert d @ forward == pytest.approx(1.0 if knee else -1.0, abs=1e-9), p.name


def test_robot_expressive():
    # Three palms on one spot below LowerArm (one a finger); the legs end in the `_end`
    # nodes the reader keeps; the feet and pole bones hang from the root, not the legs.
    sk = fixture("robot_expressive.json")
    assert chains(sk) == {
        "spine": ("Hips", "Abdomen", "Torso_1", "Neck"),
        "head": ("Neck", "Head", "Head_end"),
        "left_leg": ("UpperLegL", "LowerLegL", "LowerLegL_end"),
        "right_leg": ("UpperLegR", "LowerLegR", "LowerLegR_end"),
        "left_arm": ("UpperArmL", "LowerArmL", "Palm2L"),
        "right_arm": ("UpperArmR", "LowerArmR", "Palm2R"),
    }
    assert find_hips(sk) == "Body"  # where the legs branch; the root `Bone` lies on the floor
    check_poles(sk, np.array([0.0, 0.0, 1.0]))  # glTF figures face +Z


def test_fox():
    sk = fixture("fox.json")
    assert chains(sk) == {
        "spine": ("b_Spine01", "b_Spine02", "b_Neck"),
        "head": ("b_Neck", "b_Head"),
        "hind_left_leg": ("b_LeftLeg01", "b_LeftLeg02", "b_LeftFoot01", "b_LeftFoot02"),
        "hind_right_leg": ("b_RightLeg01", "b_RightLeg02", "b_RightFoot01", "b_RightFoot02"),
        "front_left_leg": ("b_LeftUpperArm", "b_LeftForeArm", "b_LeftHand"),
        "front_right_leg": ("b_RightUpperArm", "b_RightForeArm", "b_RightHand"),
        "tail": ("b_Tail01", "b_Tail02", "b_Tail03"),
    }
    solvers = {p.name: p.solver for p in propose_chains(sk)}
    assert solvers["hind_left_leg"] == "fabrik" and solvers["front_left_leg"] == "two_bone"
    assert find_hips(sk) == "b_Hip"
    check_poles(sk, np.array([0.0, 0.0, 1.0]))


# --- humanoids by naming scheme, each in its own units ------------------------------------------


def build(joints: list[tuple[str, str | None, tuple[float, float, float]]], swap) -> Skeleton:
    """The joints given for the figure's left (+X, facing +Z) plus their mirror images."""
    out = []
    for name, parent, (x, y, z) in joints:
        out.append((name, parent, (x, y, z)))
        mirrored = swap(name)
        if mirrored != name:
            out.append((mirrored, None if parent is None else swap(parent), (-x, y, z)))
    return Skeleton.from_joints(out)


def fingers(hand: str, prefix: str, unit: float, names) -> list:
    out = []
    for finger, (x, z), lengths in names:
        parent = hand
        for k, length in enumerate(lengths, 1):
            out.append((f"{prefix}{finger}{k}", parent, ((x if k == 1 else length) * unit, 0, (z if k == 1 else 0) * unit)))
            parent = f"{prefix}{finger}{k}"
    return out


def mixamo() -> Skeleton:
    cm, m = 1.0, "mixamorig:"  # Mixamo's FBX and BVH are in centimetres

    def j(name, parent, off):
        return (m + name, None if parent is None else m + parent, tuple(v * cm for v in off))

    body = [
        j("Hips", None, (0, 100, 0)),
        j("Spine", "Hips", (0, 10, 0)), j("Spine1", "Spine", (0, 12, 0)), j("Spine2", "Spine1", (0, 14, 0)),
        j("Neck", "Spine2", (0, 16, 0)), j("Head", "Neck", (0, 9, 1)), j("HeadTop_End", "Head", (0, 18, 2)),
        j("LeftShoulder", "Spine2", (6, 12, 0)), j("LeftArm", "LeftShoulder", (12, 0, 0)),
        j("LeftForeArm", "LeftArm", (27, 0, 0)), j("LeftHand", "LeftForeArm", (25, 0, 0)),
        j("LeftUpLeg", "Hips", (9, -6, 0)), j("LeftLeg", "LeftUpLeg", (0, -43, 0.5)),
        j("LeftFoot", "LeftLeg", (0, -41, -1)), j("LeftToeBase", "LeftFoot", (0, -6, 12)),
        j("LeftToe_End", "LeftToeBase", (0, 0, 7)),
    ]
    hand = fingers("mixamorig:LeftHand", "mixamorig:LeftHand", cm, [
        ("Thumb", (3, 3), (3, 3, 3, 2)), ("Index", (9, 2), (4, 3, 2, 2)),
        ("Middle", (9.5, 0), (4, 3, 2, 2)), ("Ring", (9, -2), (4, 3, 2, 2)), ("Pinky", (8, -4), (3, 2, 2, 2)),
    ])
    return build(body + hand, lambda n: n.replace("Left", "Right"))


def daz_genesis() -> Skeleton:
    body = [
        ("hip", None, (0, 105, 0)), ("pelvis", "hip", (0, -2, 0)),
        ("lThighBend", "pelvis", (8, -6, 0)), ("lThighTwist", "lThighBend", (0, -22, 0)),
        ("lShin", "lThighTwist", (0, -24, 1)), ("lFoot", "lShin", (0, -41, -1)),
        ("lMetatarsals", "lFoot", (0, -6, 6)), ("lToe", "lMetatarsals", (0, -1, 9)),
        ("abdomenLower", "hip", (0, 3, 0)), ("abdomenUpper", "abdomenLower", (0, 9, 0)),
        ("chestLower", "abdomenUpper", (0, 12, 0)), ("chestUpper", "chestLower", (0, 13, 0)),
        ("neckLower", "chestUpper", (0, 14, 0)), ("neckUpper", "neckLower", (0, 5, 0)),
        ("head", "neckUpper", (0, 6, 0)), ("lEye", "head", (3, 8, 8)), ("lowerJaw", "head", (0, -2, 3)),
        ("lCollar", "chestUpper", (3, 9, 0)), ("lShldrBend", "lCollar", (13, 0, 0)),
        ("lShldrTwist", "lShldrBend", (14, 0, 0)), ("lForearmBend", "lShldrTwist", (14, 0, 0)),
        ("lForearmTwist", "lForearmBend", (13, 0, 0)), ("lHand", "lForearmTwist", (13, 0, 0)),
    ]
    hand = fingers("lHand", "l", 1.0, [("Thumb", (3, 3), (3, 3, 2)), ("Index", (9, 1), (4, 2.5, 2)),
                                        ("Mid", (9, 0), (4.5, 3, 2)), ("Ring", (8.5, -1), (4, 2.5, 2))])

    def swap(n):
        return "r" + n[1:] if n[0] == "l" and n[1:2].isupper() else n

    return build(body + hand, swap)


def sfu() -> Skeleton:
    inch = 1.0  # SFU's BVH files are in inches, laid out as CMU's
    body = [
        ("Hips", None, (0, 37, 0)),
        ("LeftUpLeg", "Hips", (3.5, -3, 0)), ("LeftLeg", "LeftUpLeg", (0, -17, 0.3)),
        ("LeftFoot", "LeftLeg", (0, -16.5, -0.3)), ("LeftToeBase", "LeftFoot", (0, -2, 5)),
        ("LeftToe_End", "LeftToeBase", (0, 0, 2)),
        ("Spine", "Hips", (0, 4, 0)), ("Spine1", "Spine", (0, 8, 0)),
        ("Neck", "Spine1", (0, 9, 0)), ("Head", "Neck", (0, 4, 0)), ("Head_End", "Head", (0, 7, 0)),
        ("LeftShoulder", "Spine1", (1.5, 7, 0)), ("LeftArm", "LeftShoulder", (5, 0, 0)),
        ("LeftForeArm", "LeftArm", (11, 0, 0)), ("LeftHand", "LeftForeArm", (9.5, 0, 0)),
        ("LeftHand_End", "LeftHand", (3, 0, 0)),
    ]
    body = [(n, p, tuple(v * inch for v in o)) for n, p, o in body]
    return build(body, lambda n: n.replace("Left", "Right"))


def both(left: dict[str, tuple[str, ...]], swap) -> dict[str, tuple[str, ...]]:
    out = dict(left)
    for name, joints in left.items():
        if name.startswith("left_"):
            out["right_" + name[5:]] = tuple(swap(j) for j in joints)
    return out


def test_mixamo():
    m = "mixamorig:"
    expected = both({
        "spine": tuple(m + n for n in ("Spine", "Spine1", "Spine2", "Neck")),
        "head": tuple(m + n for n in ("Neck", "Head", "HeadTop_End")),
        "left_leg": tuple(m + n for n in ("LeftUpLeg", "LeftLeg", "LeftFoot")),
        "left_arm": tuple(m + n for n in ("LeftArm", "LeftForeArm", "LeftHand")),
    }, lambda n: n.replace("Left", "Right"))
    sk = mixamo()
    assert chains(sk) == expected
    assert find_hips(sk) == "mixamorig:Hips"
    check_poles(sk, np.array([0.0, 0.0, 1.0]))


def test_daz_genesis():
    # Twist joints halve the thigh, upper arm and forearm. Two-bone chains are exactly three
    # joints in a row, so a limb with twist joints in it is a FABRIK chain over all of them.
    expected = both({
        "spine": ("abdomenLower", "abdomenUpper", "chestLower", "chestUpper", "neckLower"),
        "head": ("neckLower", "neckUpper", "head"),  # not on into an eye
        "left_leg": ("lThighBend", "lThighTwist", "lShin", "lFoot"),
        "left_arm": ("lShldrBend", "lShldrTwist", "lForearmBend", "lForearmTwist", "lHand"),
    }, lambda n: "r" + n[1:] if n[0] == "l" else n)
    sk = daz_genesis()
    assert chains(sk) == expected
    assert {p.solver for p in propose_chains(sk)} == {"fabrik"}
    assert find_hips(sk) == "pelvis"  # the legs branch there; the spine from `hip` above it
    check_poles(sk, np.array([0.0, 0.0, 1.0]))


def test_sfu_in_inches():
    expected = both({
        "spine": ("Spine", "Spine1", "Neck"),
        "head": ("Neck", "Head", "Head_End"),
        "left_leg": ("LeftUpLeg", "LeftLeg", "LeftFoot"),
        "left_arm": ("LeftArm", "LeftForeArm", "LeftHand"),
    }, lambda n: n.replace("Left", "Right"))
    sk = sfu()
    assert chains(sk) == expected
    check_poles(sk, np.array([0.0, 0.0, 1.0]))


@pytest.mark.parametrize("make", [mixamo, daz_genesis, sfu])
def test_no_finger_or_toe_chains(make):
    sk = make()
    for p in propose_chains(sk):
        assert not any(w in j.lower() for j in p.joints for w in ("thumb", "index", "toe_end", "metatarsals")), p


@pytest.mark.parametrize("make", [mixamo, daz_genesis, sfu])
def test_sides_come_from_the_shape_not_the_names(make):
    # The same figure with every side word swapped: the limb on the figure's left (+X when
    # facing +Z, which the toes say) is still the left leg, whatever it is called.
    sk = make()

    def rename(n: str) -> str:
        if "Left" in n or "Right" in n:
            return n.replace("Left", "\0").replace("Right", "Left").replace("\0", "Right")
        if len(n) > 1 and n[0] in "lr" and n[1].isupper():
            return {"l": "r", "r": "l"}[n[0]] + n[1:]
        return n

    other = Skeleton([rename(n) for n in sk.names], sk.parents, sk.offsets, sk.rest_rotations)
    pos = other.fk_matrices(other.rest_pose())[0]
    found = {p.name: p for p in propose_chains(other)}
    assert pos[other.index(found["left_leg"].joints[0])][0] > 0
    assert pos[other.index(found["left_arm"].joints[0])][0] > 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["mixamo", "daz_genesis", "sfu", "robot", "fox"]), st.floats(0.01, 100.0),
       st.floats(-np.pi, np.pi), st.tuples(*[st.floats(-50.0, 50.0)] * 3))
def test_units_turns_and_places_change_nothing_but_the_poles_with_them(which, scale, yaw, shift):
    # The rules are fractions of the figure's size and read the facing from the pose, so a
    # figure in other units, turned about the vertical and moved elsewhere gets the same
    # chains, with targets and poles moved as its joints are.
    sk = {"mixamo": mixamo, "daz_genesis": daz_genesis, "sfu": sfu,
          "robot": lambda: fixture("robot_expressive.json"), "fox": lambda: fixture("fox.json")}[which]()
    base = {p.name: p for p in propose_chains(sk)}
    pose = sk.rest_pose()
    root = int(np.flatnonzero(sk.parents < 0)[0])
    turn = np.array([0.0, np.sin(yaw / 2), 0.0, np.cos(yaw / 2)])
    c, s = np.cos(yaw), np.sin(yaw)
    rot = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])  # the same turn as a matrix
    scaled = Skeleton(sk.names, sk.parents, sk.offsets * scale, sk.rest_rotations)
    pose = scaled.rest_pose()
    pose.rotations[root] = quat_mul(turn, pose.rotations[root])
    pose.translations[root] = rot @ pose.translations[root] + np.array(shift)
    moved = {p.name: p for p in propose_chains(scaled, pose)}
    assert {k: p.joints for k, p in moved.items()} == {k: p.joints for k, p in base.items()}
    place = lambda v: rot @ (v * scale) + np.array(shift)  # noqa: E731
    for k, p in base.items():
        np.testing.assert_allclose(moved[k].target, place(p.target), atol=1e-9 * scale + 1e-9)
        if p.pole is None:
            assert moved[k].pole is None
        else:
            np.testing.assert_allclose(moved[k].pole, place(p.pole), atol=1e-7 * scale + 1e-7)


def test_a_centipede_gets_every_pair_of_legs_numbered():
    joints = [("s0", None, (0.0, 1.0, 0.0))]
    for k in range(5):
        if k:
            joints.append((f"s{k}", f"s{k - 1}", (0.0, 0.0, 0.1)))
        for side, x in (("a", 0.1), ("b", -0.1)):  # no side words: the sides come from the shape
            joints += [(f"{side}1_{k}", f"s{k}", (x, 0.0, 0.0)), (f"{side}2_{k}", f"{side}1_{k}", (0.0, -0.5, 0.05)),
                       (f"{side}3_{k}", f"{side}2_{k}", (0.0, -0.5, -0.05)), (f"{side}4_{k}", f"{side}3_{k}", (0.0, -0.02, 0.05))]
    found = chains(Skeleton.from_joints(joints))
    for k in range(5):
        assert found[f"left_leg_{k + 1}"] == (f"a1_{k}", f"a2_{k}", f"a3_{k}")
        assert found[f"right_leg_{k + 1}"] == (f"b1_{k}", f"b2_{k}", f"b3_{k}")
    assert len(found) == 10 + 1  # and a spine (s1 .. s4) over the body
    assert found["spine"] == ("s1", "s2", "s3", "s4")
