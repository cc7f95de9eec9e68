"""Regenerate the bundled presets: `.venv/bin/python resources/presets/generate_presets.py`.

The JSON files are what ships; this script only records how their numbers were chosen.
Conventions: metres, Y up, the character faces +Z, its left is +X. Every rest rotation is
identity, so each joint's frame is the world frame at rest and a hinge axis can be written
in world terms. Targets start on the tips and poles lie in each limb's bend plane,
so solving a freshly loaded rig changes nothing; the files hold that solved pose.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from rigedit.core.ik.limits import ConeLimit, HingeLimit  # noqa: E402
from rigedit.core.rig import Rig  # noqa: E402
from rigedit.core.skeleton import Skeleton  # noqa: E402
from rigedit.io.preset import save_preset  # noqa: E402


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def rounded(v, digits: int = 6) -> tuple:
    # Short decimals keep the files readable; the rig is defined by what the file says.
    return tuple(round(float(x), digits) + 0.0 for x in v)


def rest_angle_deg(rig: Rig, a: str, b: str, c: str, axis) -> float:
    """The rest angle of bone b->c relative to bone a->b about `axis`, as limits.py
    measures it: right-handed about the axis, 0 = straight on."""
    pa, pb, pc = (rig.world_position(n) for n in (a, b, c))
    parent, bone = unit(pb - pa), pc - pb
    side = np.cross(unit(axis), parent)
    return math.degrees(math.atan2(bone @ side, bone @ parent))


def hinge(rig: Rig, a: str, b: str, c: str, axis, min_deg: float, max_deg: float) -> HingeLimit:
    rest = rest_angle_deg(rig, a, b, c, axis)
    assert min_deg <= rest <= max_deg, f"{b}: rest angle {rest:.1f} outside [{min_deg}, {max_deg}]"
    return HingeLimit(rounded(unit(axis)), min_deg, max_deg)


# --- humanoid ------------------------------------------------------------------------------


def humanoid() -> Rig:
    j = [
        ("Hips", None, (0.0, 0.98, 0.0)),
        ("Spine", "Hips", (0.0, 0.10, 0.0)),
        ("Spine1", "Spine", (0.0, 0.10, 0.0)),
        ("Spine2", "Spine1", (0.0, 0.10, 0.0)),
        ("Chest", "Spine2", (0.0, 0.11, 0.0)),
        ("Neck", "Chest", (0.0, 0.12, 0.0)),
        ("Head", "Neck", (0.0, 0.10, 0.01)),
        ("HeadTop_End", "Head", (0.0, 0.14, -0.01)),
    ]
    # Arms hang 16 degrees out from vertical (a 7-24-25 triangle, so the numbers stay short)
    # with the elbows 2.5 cm back: a relaxed A-pose whose slight bend gives the two-bone
    # solver a plane before any pole is placed.
    for side, sx in (("Left", 1.0), ("Right", -1.0)):
        down = np.array([sx * 0.28, -0.96, 0.0])
        j += [
            (f"{side}Shoulder", "Chest", (sx * 0.03, 0.07, 0.0)),
            (f"{side}Arm", f"{side}Shoulder", (sx * 0.15, 0.0, 0.0)),
            (f"{side}ForeArm", f"{side}Arm", rounded(0.29 * down + [0.0, 0.0, -0.025])),
            (f"{side}Hand", f"{side}ForeArm", rounded(0.26 * down + [0.0, 0.0, 0.03])),
            (f"{side}Hand_End", f"{side}Hand", rounded(0.09 * down)),
        ]
    # Legs: 42 cm thigh and shin, knees 2.5 cm forward, an ankle 8 cm up, a 25 cm foot.
    for side, sx in (("Left", 1.0), ("Right", -1.0)):
        j += [
            (f"{side}UpLeg", "Hips", (sx * 0.09, -0.06, 0.0)),
            (f"{side}Leg", f"{side}UpLeg", (0.0, -0.42, 0.025)),
            (f"{side}Foot", f"{side}Leg", (0.0, -0.42, -0.03)),
            (f"{side}ToeBase", f"{side}Foot", (0.0, -0.06, 0.13)),
            (f"{side}Toe_End", f"{side}ToeBase", (0.0, -0.02, 0.06)),
        ]
    rig = Rig(Skeleton.from_joints(j), name="humanoid")
    # The spine goes first so the arms solve on the spine it produced.
    rig.add_chain(
        "spine",
        ["Spine", "Spine1", "Spine2", "Chest", "Neck"],
        solver="fabrik",
        max_iterations=20,
        limits={n: ConeLimit(20.0) for n in ("Spine1", "Spine2", "Chest")},
    )
    for side, sx in (("Left", 1.0), ("Right", -1.0)):
        arm = [f"{side}Arm", f"{side}ForeArm", f"{side}Hand"]
        # Both arm bones lie in the plane of the hang direction and Z; the elbow turns
        # about that plane's normal, hang x Z, which folds the forearm forward.
        elbow = hinge(rig, *arm, axis=(-0.96, -sx * 0.28, 0.0), min_deg=0.0, max_deg=150.0)
        rig.add_chain(
            f"{side.lower()}_arm",
            arm,
            solver="two_bone",
            # 40 cm straight behind the elbow: in the arm's bend plane (which holds Z).
            pole=rig.world_position(arm[1]) + [0.0, 0.0, -0.4],
            limits={arm[1]: elbow},
        )
    for side in ("Left", "Right"):
        leg = [f"{side}UpLeg", f"{side}Leg", f"{side}Foot"]
        # About +X, positive angles swing the shin back: knees bend one way.
        knee = hinge(rig, *leg, axis=(1.0, 0.0, 0.0), min_deg=0.0, max_deg=150.0)
        rig.add_chain(
            f"{side.lower()}_leg",
            leg,
            solver="two_bone",
            # 50 cm straight in front of the knee: in the leg's bend plane (which holds Z).
            pole=rig.world_position(leg[1]) + [0.0, 0.0, 0.5],
            limits={leg[1]: knee},
        )
    return rig


# --- creature ------------------------------------------------------------------------------


def creature() -> Rig:
    """A spider-like body on eight legs, each hip -> knee -> ankle -> foot (three bones)
    in a vertical plane through the body's centre: up and out, then down to the ground."""
    j = [
        ("Body", None, (0.0, 0.35, 0.0)),
        ("Head", "Body", (0.0, 0.03, 0.2)),
        ("Abdomen", "Body", (0.0, 0.05, -0.22)),
        ("Abdomen_End", "Abdomen", (0.0, 0.0, -0.25)),
    ]
    legs = []
    # Leg directions from 3-4-5 and 7-24-25 triangles: short exact decimals, so every bone
    # of a leg lies in its vertical plane (the hinges' plane) to round-off.
    for side, sx in (("L", 1.0), ("R", -1.0)):
        for n, (cx, cz) in enumerate(((0.8, 0.6), (0.96, 0.28), (0.96, -0.28), (0.8, -0.6)), start=1):
            out = np.array([sx * cx, 0.0, cz])
            name = f"{side}{n}"
            j += [
                (f"{name}_Hip", "Body", rounded(0.13 * out)),
                (f"{name}_Knee", f"{name}_Hip", rounded(0.18 * out + [0.0, 0.15, 0.0])),
                (f"{name}_Ankle", f"{name}_Knee", rounded(0.12 * out + [0.0, -0.30, 0.0])),
                (f"{name}_Foot", f"{name}_Ankle", rounded(0.05 * out + [0.0, -0.20, 0.0])),
            ]
            legs.append((name, out))
    rig = Rig(Skeleton.from_joints(j), name="creature")
    for name, out in legs:
        # Right-handed about up x out, positive angles turn a bone down toward the ground.
        axis = tuple(np.cross([0.0, 1.0, 0.0], out).tolist())
        hip, knee, ankle, foot = (f"{name}_{p}" for p in ("Hip", "Knee", "Ankle", "Foot"))
        rig.add_chain(
            f"leg_{name}",
            [hip, knee, ankle, foot],
            solver="fabrik",
            max_iterations=20,
            # Knees (rest ~108 degrees) hinge between 40 and 150. Ankles swing in a cone:
            # with a second parallel hinge a leg could only move in its own plane, and
            # FABRIK, which turns bones by the shortest arc, cannot swing that plane round.
            limits={
                knee: hinge(rig, hip, knee, ankle, axis, min_deg=40.0, max_deg=150.0),
                ankle: ConeLimit(45.0),
            },
        )
    return rig


# --- tentacle ------------------------------------------------------------------------------


def tentacle() -> Rig:
    """A tentacle rising from a base: 13 bones, 12 cm tapering to 6 cm, each curling 6
    degrees toward +Z from the one before (well inside its 25 degree cone)."""
    n_bones = 13
    j = [("Base", None, (0.0, 0.0, 0.0))]
    direction = np.array([0.0, 1.0, 0.0])
    turn = math.radians(6.0)
    parent = "Base"
    for k in range(n_bones + 1):
        name = f"Tentacle{k:02d}"
        if k == 0:
            offset = (0.0, 0.1, 0.0)
        else:
            length = 0.12 - 0.06 * (k - 1) / (n_bones - 1)
            offset = rounded(length * direction)
            c, s = math.cos(turn), math.sin(turn)
            direction = np.array([0.0, c * direction[1] - s * direction[2], s * direction[1] + c * direction[2]])
        j.append((name, parent, offset))
        parent = name
    rig = Rig(Skeleton.from_joints(j), name="tentacle")
    names = [f"Tentacle{k:02d}" for k in range(n_bones + 1)]
    rig.add_chain(
        "tentacle",
        names,
        solver="fabrik",
        max_iterations=30,
        limits={n: ConeLimit(25.0) for n in names[1:-1]},
    )
    return rig


def main() -> None:
    for build in (humanoid, creature, tentacle):
        rig = build()
        for ch in rig.chains:
            # Positions here are sums of short decimals; rounding drops only float noise.
            ch.target = rounded(ch.target)
            if ch.pole is not None:
                ch.pole = rounded(ch.pole)
        rig.solve()  # the file holds the solved pose (issue 13): opening shows it as it is
        path = HERE / f"{rig.name}.json"
        save_preset(rig, path)
        bak = path.with_name(path.name + ".bak")
        if bak.exists():
            bak.unlink()  # the generator has no use for the previous version
        print(f"{path.name}: {len(rig.skeleton)} joints, chains {', '.join(rig.chain_names)}, height {rig.skeleton.height():.3f} m")


if __name__ == "__main__":
    main()
