"""Write the skeleton-family fixtures (tests/core/skeletons/families/*.json) from each family's
documented joint names and hierarchy, laid out on one plausible humanoid (metres, Y up, facing
+Z, the figure's left at +X, zero rest rotations): see tests/core/skeletons/families/SOURCES.md.

    python scripts/skeleton_families.py tests/core/skeletons/families
"""
from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import numpy as np

# role -> (parent role, position in metres). Left side only; the right side mirrors x.
BODY = {
    "hips": (None, (0, 1.0, 0)),
    "spine": ("hips", (0, 1.1, -0.01)),
    "chest": ("spine", (0, 1.25, -0.01)),
    "upper_chest": ("chest", (0, 1.38, -0.01)),
    "neck": ("upper_chest", (0, 1.5, 0)),
    "head": ("neck", (0, 1.6, 0.01)),
    "head_top": ("head", (0, 1.78, 0.02)),
    "l_collar": ("upper_chest", (0.03, 1.45, 0)),
    "l_upper_arm": ("l_collar", (0.17, 1.45, -0.01)),
    "l_forearm": ("l_upper_arm", (0.45, 1.44, -0.03)),
    "l_hand": ("l_forearm", (0.70, 1.43, 0)),
    "l_thigh": ("hips", (0.09, 0.94, 0)),
    "l_shin": ("l_thigh", (0.095, 0.51, 0.01)),
    "l_foot": ("l_shin", (0.10, 0.09, -0.02)),
    "l_toe": ("l_foot", (0.10, 0.02, 0.11)),
    "l_toe_end": ("l_toe", (0.10, 0.02, 0.18)),
}
FINGERS = ("thumb", "index", "middle", "ring", "pinky")


def finger_layout(hand_x: float, hand_y: float, hand_len: float = 0.09, knuckles: int = 3):
    """Per finger: positions of its joints, from the knuckle out (left hand, palm down)."""
    out = {}
    for k, f in enumerate(FINGERS):
        z = 0.035 - 0.0175 * k
        if f == "thumb":
            start, step = np.array([hand_x + 0.025, hand_y - 0.01, 0.03]), np.array([0.025, -0.005, 0.02])
        else:
            start = np.array([hand_x + hand_len - 0.005 * abs(k - 2), hand_y, z])
            step = np.array([0.028 - 0.002 * abs(k - 2), -0.002, 0.0])
        out[f] = [tuple(start + i * step) for i in range(knuckles + 1)]
    return out


class Build:
    def __init__(self) -> None:
        self.joints: list[tuple[str, str | None, tuple]] = []  # name, parent name, world position

    def add(self, name, parent, pos) -> None:
        self.joints.append((name, parent, tuple(float(v) for v in pos)))

    def both(self, left: list[tuple[str, str | None, tuple]], swap) -> None:
        for n, p, pos in left:
            self.add(n, p, pos)
        for n, p, pos in left:
            self.add(swap(n), swap(p) if p is not None else None, (-pos[0], pos[1], pos[2]))

    def write(self, out: Path, source: str) -> None:
        names = [n for n, _, _ in self.joints]
        assert len(set(names)) == len(names), "joint names repeat"
        index = {n: i for i, n in enumerate(names)}
        world = {n: np.array(pos) for n, _, pos in self.joints}
        rows = []
        for n, p, pos in self.joints:
            off = world[n] - (world[p] if p is not None else 0.0)
            rows.append({"name": n, "parent": -1 if p is None else index[p],
                         "offset": [round(float(v), 6) for v in off], "rotation": [0.0, 0.0, 0.0, 1.0]})
        out.write_text(json.dumps({"source": source, "joints": rows}, indent=0) + "\n")
        print(f"{out}: {len(rows)} joints")


def humanoid(names: dict[str, str], swap, fingers: dict[str, list[str]] | None = None, hand_len=0.09,
             scale=1.0, extra=()) -> Build:
    """The body of BODY with `names` for the roles it names (a role left out is skipped, its
    children hang from its parent), fingers named per finger, extra (name, parent, pos) joints."""
    b = Build()

    def parent_of(role):
        p = BODY[role][0]
        while p is not None and p not in names:
            p = BODY[p][0]
        return None if p is None else names[p]

    centre, left = [], []
    for role, (_, pos) in BODY.items():
        if role in names:
            (left if role.startswith("l_") else centre).append((names[role], parent_of(role), np.array(pos) * scale))
    for n, p, pos in extra:
        (left if swap(n) != n else centre).append((n, p, np.array(pos) * scale))
    for n, p, pos in centre:
        b.add(n, p, pos)
    hand = np.array(BODY["l_hand"][1])
    if fingers:
        for f, pts in finger_layout(hand[0], hand[1], hand_len).items():
            if f not in fingers:
                continue
            prev = names["l_hand"]
            for name, pos in zip(fingers[f], pts):
                left.append((name, prev, np.array(pos) * scale))
                prev = name
    b.both(left, swap)
    return b


def lr(a, b):
    return lambda n: n.replace(a, b) if n is not None else None


def mixamo(prefix: str, big_hands: bool) -> Build:
    r = {"hips": "Hips", "spine": "Spine", "chest": "Spine1", "upper_chest": "Spine2", "neck": "Neck", "head": "Head",
         "head_top": "HeadTop_End", "l_collar": "LeftShoulder", "l_upper_arm": "LeftArm", "l_forearm": "LeftForeArm",
         "l_hand": "LeftHand", "l_thigh": "LeftUpLeg", "l_shin": "LeftLeg", "l_foot": "LeftFoot",
         "l_toe": "LeftToeBase", "l_toe_end": "LeftToe_End"}
    names = {k: prefix + v for k, v in r.items()}
    fingers = {f: [f"{prefix}LeftHand{f.title()}{i}" for i in range(1, 5)] for f in FINGERS}
    # A cartoon character's hand: from the wrist to the knuckles more than half the forearm.
    return humanoid(names, lr("Left", "Right"), fingers, hand_len=0.15 if big_hands else 0.09)


def cmu_daz() -> Build:
    names = {"hips": "hip", "spine": "abdomen", "chest": "chest", "neck": "neck", "head": "head",
             "head_top": "head_End", "l_collar": "lCollar", "l_upper_arm": "lShldr", "l_forearm": "lForeArm",
             "l_hand": "lHand", "l_thigh": "lThigh", "l_shin": "lShin", "l_foot": "lFoot", "l_toe": "lToe_End"}
    fingers = {"thumb": ["lThumb1", "lThumb2", "lThumb2_End"], "index": ["lIndex1", "lIndex2", "lIndex2_End"],
               "middle": ["lMid1", "lMid2", "lMid2_End"], "ring": ["lRing1", "lRing2", "lRing2_End"],
               "pinky": ["lPinky1", "lPinky2", "lPinky2_End"]}
    b = humanoid(names, lambda n: "r" + n[1:] if n and n[0] == "l" and n[1].isupper() else n, fingers,
                 extra=[("lButtock", "hip", (0.05, 0.97, 0)), ("lEye", "head", (0.03, 1.68, 0.08))])
    # CMU's Daz conversion hangs the thigh from the buttock joint.
    b.joints = [(n, "lButtock" if n == "lThigh" else "rButtock" if n == "rThigh" else p, pos) for n, p, pos in b.joints]
    key = {n: (depth(b, n), i) for i, (n, _, _) in enumerate(b.joints)}
    b.joints.sort(key=lambda j: key[j[0]])
    return b


def depth(b: Build, name: str) -> int:
    parents = {n: p for n, p, _ in b.joints}
    d = 0
    while parents[name] is not None:
        name, d = parents[name], d + 1
    return d


def sfu() -> Build:
    names = {"hips": "Hips", "spine": "Spine", "chest": "Spine1", "neck": "Neck", "head": "Head",
             "head_top": "Head_End", "l_collar": "LeftShoulder", "l_upper_arm": "LeftArm", "l_forearm": "LeftForeArm",
             "l_hand": "LeftHand", "l_thigh": "LeftUpLeg", "l_shin": "LeftLeg", "l_foot": "LeftFoot",
             "l_toe": "LeftToeBase", "l_toe_end": "LeftToe_End"}
    return humanoid(names, lr("Left", "Right"), extra=[("LeftHand_End", "LeftHand", (0.78, 1.43, 0))], scale=1 / 0.0254)


def makehuman() -> Build:
    """MakeHuman's default skeleton: upper arm, forearm, thigh and shin each in two bones (01, 02)."""
    b = Build()
    b.add("root", None, (0, 1.0, 0))
    spine = [("spine05", 1.05), ("spine04", 1.13), ("spine03", 1.22), ("spine02", 1.3), ("spine01", 1.38),
             ("neck01", 1.48), ("neck02", 1.53), ("neck03", 1.57), ("head", 1.61)]
    prev = "root"
    for n, y in spine:
        b.add(n, prev, (0, y, -0.01))
        prev = n
    b.add("jaw", "head", (0, 1.62, 0.05))
    b.add("special01", "head", (0, 1.66, 0.06))
    left = [("pelvis.L", "root", (0.0, 1.0, 0)), ("upperleg01.L", "pelvis.L", (0.09, 0.94, 0)),
            ("upperleg02.L", "upperleg01.L", (0.091, 0.88, 0)), ("lowerleg01.L", "upperleg02.L", (0.095, 0.51, 0.01)),
            ("lowerleg02.L", "lowerleg01.L", (0.097, 0.30, 0)), ("foot.L", "lowerleg02.L", (0.10, 0.09, -0.02)),
            ("special06.L", "head", (0.03, 1.68, 0.05)), ("eye.L", "special06.L", (0.03, 1.68, 0.08)),
            ("clavicle.L", "spine01", (0.03, 1.43, 0.02)), ("shoulder01.L", "clavicle.L", (0.15, 1.45, -0.01)),
            ("upperarm01.L", "shoulder01.L", (0.18, 1.44, -0.01)), ("upperarm02.L", "upperarm01.L", (0.31, 1.44, -0.02)),
            ("lowerarm01.L", "upperarm02.L", (0.45, 1.44, -0.03)), ("lowerarm02.L", "lowerarm01.L", (0.575, 1.435, -0.015)),
            ("wrist.L", "lowerarm02.L", (0.70, 1.43, 0))]
    for k in range(1, 6):  # five toes fan out of the foot
        x = 0.085 + 0.008 * k
        left += [(f"toe{k}-1.L", "foot.L", (x, 0.03, 0.1 - 0.005 * k)), (f"toe{k}-2.L", f"toe{k}-1.L", (x, 0.02, 0.13 - 0.006 * k))]
    fingers = finger_layout(0.70, 1.43)
    for k, f in enumerate(FINGERS, 1):
        pts = fingers[f]
        first = "wrist.L"
        if f != "thumb":  # the four long fingers start at a metacarpal in the palm
            left.append((f"metacarpal{k - 1}.L", "wrist.L", (0.72, 1.43, pts[0][2])))
            first = f"metacarpal{k - 1}.L"
        prev = first
        for i, pos in enumerate(pts[:3], 1):
            left.append((f"finger{k}-{i}.L", prev, pos))
            prev = f"finger{k}-{i}.L"
    b.both(left, lr(".L", ".R"))
    return b


def unreal() -> Build:
    names = {"hips": "pelvis", "spine": "spine_01", "chest": "spine_02", "upper_chest": "spine_03", "neck": "neck_01",
             "head": "head", "l_collar": "clavicle_l", "l_upper_arm": "upperarm_l", "l_forearm": "lowerarm_l",
             "l_hand": "hand_l", "l_thigh": "thigh_l", "l_shin": "calf_l", "l_foot": "foot_l", "l_toe": "ball_l"}
    fingers = {"thumb": [f"thumb_0{i}_l" for i in (1, 2, 3)], "index": [f"index_0{i}_l" for i in (1, 2, 3)],
               "middle": [f"middle_0{i}_l" for i in (1, 2, 3)], "ring": [f"ring_0{i}_l" for i in (1, 2, 3)],
               "pinky": [f"pinky_0{i}_l" for i in (1, 2, 3)]}
    extra = [("upperarm_twist_01_l", "upperarm_l", (0.3, 1.445, -0.02)), ("lowerarm_twist_01_l", "lowerarm_l", (0.6, 1.435, -0.01)),
             ("thigh_twist_01_l", "thigh_l", (0.092, 0.72, 0.005)), ("calf_twist_01_l", "calf_l", (0.097, 0.3, 0))]
    b = Build()
    b.add("root", None, (0, 0, 0))
    body = humanoid(names, lr("_l", "_r"), fingers, extra=extra)
    b.joints += [(n, p if p is not None else "root", pos) for n, p, pos in body.joints]
    # The IK bones: copies of the feet and hands' places, hanging from the root.
    b.add("ik_foot_root", "root", (0, 0, 0))
    b.add("ik_foot_l", "ik_foot_root", (0.10, 0.09, -0.02))
    b.add("ik_foot_r", "ik_foot_root", (-0.10, 0.09, -0.02))
    b.add("ik_hand_root", "root", (0, 0, 0))
    b.add("ik_hand_gun", "ik_hand_root", (-0.70, 1.43, 0))
    b.add("ik_hand_r", "ik_hand_gun", (-0.70, 1.43, 0))
    b.add("ik_hand_l", "ik_hand_gun", (0.70, 1.43, 0))
    return b


def vroid() -> Build:
    names = {"hips": "J_Bip_C_Hips", "spine": "J_Bip_C_Spine", "chest": "J_Bip_C_Chest", "upper_chest": "J_Bip_C_UpperChest",
             "neck": "J_Bip_C_Neck", "head": "J_Bip_C_Head", "l_collar": "J_Bip_L_Shoulder", "l_upper_arm": "J_Bip_L_UpperArm",
             "l_forearm": "J_Bip_L_LowerArm", "l_hand": "J_Bip_L_Hand", "l_thigh": "J_Bip_L_UpperLeg",
             "l_shin": "J_Bip_L_LowerLeg", "l_foot": "J_Bip_L_Foot", "l_toe": "J_Bip_L_ToeBase", "l_toe_end": "J_Bip_L_ToeBase_end"}
    fingers = {f: [f"J_Bip_L_{f.title() if f != 'pinky' else 'Little'}{i}" for i in (1, 2, 3)] for f in FINGERS}
    extra = []
    for k, x in enumerate((0.06, 0.1)):  # long hair down the back, and a skirt off the hips
        extra += [(f"J_Sec_L_HairBack{k}_01", "J_Bip_C_Head", (x, 1.7, -0.1)),
                  (f"J_Sec_L_HairBack{k}_02", f"J_Sec_L_HairBack{k}_01", (x + 0.02, 1.5, -0.12)),
                  (f"J_Sec_L_HairBack{k}_03", f"J_Sec_L_HairBack{k}_02", (x + 0.03, 1.3, -0.12))]
    extra += [("J_Sec_L_SkirtBack_01", "J_Bip_C_Hips", (0.08, 0.98, -0.1)), ("J_Sec_L_SkirtBack_02", "J_Sec_L_SkirtBack_01", (0.1, 0.85, -0.12)),
              ("J_Sec_L_SkirtBack_03", "J_Sec_L_SkirtBack_02", (0.12, 0.72, -0.13)),
              ("J_Sec_L_Bust1", "J_Bip_C_UpperChest", (0.08, 1.35, 0.08))]
    b = Build()
    b.add("Root", None, (0, 0, 0))
    body = humanoid(names, lr("_L_", "_R_"), fingers, extra=extra)
    b.joints += [(n, p if p is not None else "Root", pos) for n, p, pos in body.joints]
    return b


def vrm_humanoid() -> Build:
    names = {"hips": "hips", "spine": "spine", "chest": "chest", "upper_chest": "upperChest", "neck": "neck", "head": "head",
             "l_collar": "leftShoulder", "l_upper_arm": "leftUpperArm", "l_forearm": "leftLowerArm", "l_hand": "leftHand",
             "l_thigh": "leftUpperLeg", "l_shin": "leftLowerLeg", "l_foot": "leftFoot", "l_toe": "leftToes"}
    fingers = {"thumb": ["leftThumbMetacarpal", "leftThumbProximal", "leftThumbDistal"]}
    for f in FINGERS[1:]:
        t = "Little" if f == "pinky" else f.title()
        fingers[f] = [f"left{t}Proximal", f"left{t}Intermediate", f"left{t}Distal"]
    return humanoid(names, lr("left", "right"), fingers)


def renamed(b: Build, rename) -> Build:
    out = Build()
    new = {n: rename(i, n) for i, (n, _, _) in enumerate(b.joints)}
    out.joints = [(new[n], None if p is None else new[p], pos) for n, p, pos in b.joints]
    return out


def hand(with_forearm: bool) -> Build:
    """A hand-only take (a data glove's): the wrist at the root, five fingers; centimetre-sized bones."""
    b = Build()
    top = None
    if with_forearm:
        b.add("RightForeArm", None, (0.45, 1.0, 0))
        top = "RightForeArm"
    b.add("RightHand", top, (0.70, 1.0, 0))
    for f, pts in finger_layout(0.70, 1.0, knuckles=3).items():
        prev = "RightHand"
        for i, pos in enumerate(pts, 1):
            name = f"RightHand{f.title()}{i}"
            b.add(name, prev, pos)
            prev = name
    return b


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    made = {
        "mixamo_colon_big_hands": (mixamo("mixamorig:", True), "Mixamo names with mixamorig: (FBX), a cartoon's big hands"),
        "mixamo_underscore": (mixamo("mixamorig_", False), "Mixamo names as Blender writes them (mixamorig_)"),
        "mixamo_bare": (mixamo("", False), "Mixamo names without a prefix"),
        "cmu_daz": (cmu_daz(), "CMU's Daz-friendly BVH conversion"),
        "sfu_inches": (sfu(), "SFU motion capture BVH (inches)"),
        "makehuman": (makehuman(), "MakeHuman default skeleton (body part)"),
        "unreal_mannequin": (unreal(), "Unreal Engine 4 Mannequin"),
        "vroid": (vroid(), "VRoid Studio export"),
        "vrm_humanoid": (vrm_humanoid(), "VRM humanoid bone names"),
        "guid_named": (renamed(unreal(), lambda i, n: str(uuid.UUID(int=(i * 2654435761 + 12345) ** 3 % (1 << 128)))),
                       "the Unreal Mannequin layout with GUID-like joint names"),
        "unnamed": (renamed(mixamo("", True), lambda i, n: f"Node_{i}"), "the Mixamo layout with numbered node names"),
        "hand_alone": (hand(False), "a hand-only take"),
        "hand_with_forearm": (hand(True), "a hand-only take with the forearm above the wrist"),
    }
    for name, (b, source) in made.items():
        b.write(out / f"{name}.json", source)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
