"""Regenerate the bundled scenes (issue 8): `.venv/bin/python resources/presets/generate_scenes.py`.

Scenes are presets that show one typical use and play from the timeline: "look at" (a
humanoid whose head follows a keyed target), "uneven ground walk" (a humanoid walking a
procedural clip over the stepped ground with its feet grounded) and "creature gait" (the
creature walking a keyed body path, its legs stepping procedurally). Like generate_presets.py,
this only records how the shipped JSON was made.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from generate_presets import creature, humanoid, rounded  # noqa: E402

from rigedit.core.chain_uses import LookAtSettings  # noqa: E402
from rigedit.core.plant import key_plants  # noqa: E402
from rigedit.core.rig import Rig  # noqa: E402
from rigedit.core.timeline import Timeline  # noqa: E402
from rigedit.io.preset import save_preset  # noqa: E402


def look_at_scene() -> Rig:
    """The humanoid; neck and head share a look-at (40/60) within a 70 degree cone; the target
    starts 1.5 m straight ahead (where the head looks at rest, so the loaded rig is already
    solved) and loops left, up, right and down over 4 s."""
    rig = humanoid()
    rig.name = "look at"
    head = rig.world_position("Head")
    ahead = rounded(head + [0.0, 0.0, 1.5])
    rig.add_chain(
        "look",
        ["Neck", "Head"],
        solver="look_at",
        target=ahead,
        look_at=LookAtSettings(weights=(0.4, 0.6), max_angle_deg=70.0),
    )
    tl = Timeline(frame_rate=30.0, start=0.0, end=4.0)
    path = [(0.0, 0.0, 1.5), (1.2, 0.2, 1.2), (0.0, 0.9, 0.8), (-1.2, 0.1, 1.0), (-0.3, -0.8, 1.0), (0.0, 0.0, 1.5)]
    for k, offset in enumerate(path):
        tl.key_target("look", round(k * 0.8, 3), rounded(head + offset))
    rig.timeline = tl
    return rig


def walk_clip(rig: Rig, *, speed: float = 0.8, period: float = 1.0, seconds: float = 4.0, fps: float = 30.0,
              start_z: float = -1.2, hip_height: float = 0.9):
    """A procedural walk on flat ground (y = 0), made with the rig's own leg IK: the hips
    travel +Z at `speed`, each foot is planted for 60 % of a `period` and swings forward along
    an arc for the rest, left and right half a period apart. Returns a Clip."""
    from rigedit.core.clip import Clip

    walker = rig.copy()
    for ch in walker.chains:
        ch.weight = 1.0 if ch.name in ("left_leg", "right_leg") else 0.0  # only the legs walk
    sk = walker.skeleton
    n = int(round(seconds * fps)) + 1
    times = np.arange(n) / fps
    stride = speed * period
    rest = {leg: walker.world_position(walker.chain(leg).joints[-1]).copy() for leg in ("left_leg", "right_leg")}
    drift = np.zeros((n, sk.offsets.shape[0], 3)) + sk.offsets
    drift[:, 0] = np.stack([np.zeros(n), hip_height + 0.015 * np.cos(4 * np.pi * times / period), start_z + speed * times], axis=1)
    walker.clip = Clip(np.broadcast_to(sk.rest_rotations, (n,) + sk.rest_rotations.shape).copy(), drift, 1.0 / fps)
    rotations = []
    for t in times:
        walker.time = float(t)
        for leg, offset in (("left_leg", 0.0), ("right_leg", 0.5)):
            c = t / period + offset
            f = c % 1.0
            swing = 0.0 if f < 0.6 else (f - 0.6) / 0.4
            ease = swing * swing * (3 - 2 * swing)
            z = start_z + stride * (np.floor(c) + ease + 0.3 - offset)
            y = rest[leg][1] + 0.09 * np.sin(np.pi * swing)
            walker.chain(leg).target = (float(rest[leg][0]), float(y), float(z))
            walker.chain(leg).pole = (float(rest[leg][0]), 0.5, float(start_z + speed * t + 0.6))
        walker.solve()
        walker.solve()
        rotations.append(walker.pose.rotations)
    return Clip(np.array(rotations), drift, 1.0 / fps)


def uneven_ground_walk_scene() -> Rig:
    """The humanoid walking its procedural clip over the stepped slope (ground 'slope': 5
    degrees up along +x, 12 cm steps at z = 1 and 2.5 m), both legs' targets grounded under
    the animated feet; the pelvis drops as the lower foot needs. Each leg's weight is keyed
    from the clip's contacts (core/plant.py): 1 while its foot is planted, eased out over
    0.15 s at the release and back in over 0.15 s before the next plant."""
    rig = humanoid()
    rig.name = "uneven ground walk"
    clip = walk_clip(rig)
    rig.clip = clip
    rig.clip_in_preset = True
    rig.ground = "slope"
    for leg in ("left_leg", "right_leg"):
        rig.chain(leg).ground_feet = True
    for name in ("spine", "left_arm", "right_arm"):
        rig.remove_chain(name)  # the upper body plays the clip as it is: this scene is the feet
    rig.reset()
    for leg in ("left_leg", "right_leg"):
        # A pole is a fixed world point: the walker would pass it and bend its knees back.
        # Without one the knee keeps its bend plane (the clip's), and the hinge keeps it forward.
        rig.chain(leg).pole = None
    rig.solve()
    for ch in rig.chains:  # the file's targets are where the first frame puts them
        ch.target = tuple(float(v) for v in ch.target)
    rig.timeline = Timeline(frame_rate=30.0, start=0.0, end=round(clip.duration, 6))
    key_plants(rig)  # each leg's weight eases in as its foot plants and out as it lifts
    return rig


def creature_gait_scene() -> Rig:
    """The creature walking a keyed body path: 2 m forward along a gentle S over 6 s, its
    body turning along the path; the eight legs step procedurally (rig.gait) and each is
    solved by its FABRIK chain with its limits."""
    from rigedit.core.clip import Clip
    from rigedit.core.ik.limits import ConeLimit
    from rigedit.core.rig_gait import GaitSettings
    from rigedit.core.transforms import quat_from_axis_angle

    rig = creature()
    rig.name = "creature gait"
    sk = rig.skeleton
    fps, seconds = 30.0, 6.0
    n = int(round(seconds * fps)) + 1
    u = np.arange(n) / (n - 1)
    # Ease in and out along the path so the walk starts and ends at rest.
    s = u * u * (3 - 2 * u)
    z = 2.0 * s - 1.0  # centred on the origin, where the camera looks
    x = 0.25 * np.sin(np.pi * s)
    dx, dz = np.gradient(x), np.gradient(z)
    yaw = np.arctan2(dx, np.where(np.hypot(dx, dz) > 1e-12, dz, 1.0))
    yaw[np.hypot(dx, dz) <= 1e-9] = 0.0
    rot = np.broadcast_to(sk.rest_rotations, (n,) + sk.rest_rotations.shape).copy()
    trans = np.broadcast_to(sk.offsets, (n,) + sk.offsets.shape).copy()
    trans[:, 0] = np.stack([x, np.full(n, sk.offsets[0, 1]), z], axis=1)
    rot[:, 0] = quat_from_axis_angle(np.tile([0.0, 1.0, 0.0], (n, 1)), yaw)
    rig.clip = Clip(rot, trans, 1.0 / fps)
    rig.clip_in_preset = True
    for ch in rig.chains:
        # Planted feet under a turning body pull the ankles further round than the posing
        # preset's 45 degree cones allow (FABRIK then stalls 3-10 mm short on the front
        # legs, measured): the walking creature's ankles get 60 degrees.
        ch.limits = {**ch.limits, ch.joints[2]: ConeLimit(60.0)}
        ch.max_iterations = 100  # a planted foot under a moving body: more passes per frame
        ch.tolerance = 2e-4  # planted feet must hold still to well under a millimetre
    rig.gait = GaitSettings(tuple(rig.chain_names), step_length=0.12, step_time=0.2, step_height=0.05)
    rig.timeline = Timeline(frame_rate=30.0, start=0.0, end=seconds)
    rig.reset()
    rig.advance_gait()  # the file's targets: the feet planted at the first frame
    return rig


def save(rig: Rig, stem: str) -> None:
    rig.solve()  # the file holds the first frame's solved pose (issue 13), as it opens
    path = HERE / f"{stem}.json"
    save_preset(rig, path)
    bak = path.with_name(path.name + ".bak")
    if bak.exists():
        bak.unlink()
    print(f"{path.name}: {len(rig.skeleton)} joints, chains {', '.join(rig.chain_names)}")


def main() -> None:
    save(look_at_scene(), "look_at")
    save(uneven_ground_walk_scene(), "uneven_ground_walk")
    save(creature_gait_scene(), "creature_gait")


if __name__ == "__main__":
    main()
