"""Plant and release keys (issue 8): a leg's IK weight eases in as its foot plants and out as
it lifts, keyed from the animated clip.

A foot is planted on a clip frame when its tip (ankle) is near the clip's floor and nearly
still: within `height_m` of the clip's floor under it (the height it is at or below on
FLOOR_PERCENT of the frames: where it stands; the rest pose cannot say, a mocap skeleton's
rest pose hangs from its hips at the origin) and moving slower than `speed_mps` toward at least one neighbouring frame (a foot
that has just landed, or is about to lift, is still on one side).
Each run of planted frames is a contact. The leg's weight curve then holds 1 over every
contact, rises to it over the `ease_s` before the plant and falls from it over the `ease_s`
after the release, with the timeline's ease ramps; between contacts it is 0, so a swinging
leg plays the clip.

A lift too short for a full ramp out and a full ramp back in (or a contact that starts or
ends too near the clip's ends for its ramp) is bridged at full weight instead of snapped by
shortened ramps: a grounded foot at full weight still follows the clip's lift above the
terrain, so nothing is pinned, and every ramp keeps the length asked for.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .curve import Curve, weight_curve
from .ik import registry
from .skeleton import Pose
from .timeline import EASE_DEFAULT_S, EASE_MAX_S, EASE_MIN_S, Track, ease_in_keys, ease_out_keys

# Measured on CMU 12_01 (a walk): stance ankles sit 1-4 cm over the floor as the heel rolls
# and slide under 0.1 m/s; swing ankles that low move at 0.8-3 m/s. These defaults sit
# between the two.
PLANT_HEIGHT_M = 0.05
PLANT_SPEED_MPS = 0.3
# The floor under a foot is the height it is at or below on this share of the clip's frames:
# the lowest would be one glitch away (CMU 12_01's first frame is 4 cm under the walk), and a
# walking foot spends far more than this on the floor.
FLOOR_PERCENT = 5.0


@dataclass(frozen=True)
class PlantSettings:
    """How plants are found and keyed: the ramp length in seconds (the timeline's ease range),
    how far above the clip's floor (metres) and how fast (metres per second) a planted foot
    may be."""

    ease_s: float = EASE_DEFAULT_S
    height_m: float = PLANT_HEIGHT_M
    speed_mps: float = PLANT_SPEED_MPS

    def __post_init__(self) -> None:
        for name, lo, hi in (("ease_s", EASE_MIN_S, EASE_MAX_S), ("height_m", 0.0, 1.0), ("speed_mps", 0.0, 10.0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"plant settings: {name} must be a finite number, got {value!r}")
            if not lo <= value <= hi or (name == "speed_mps" and value == 0.0):
                unit = {"ease_s": "s", "height_m": "m", "speed_mps": "m/s"}[name]
                raise ValueError(f"plant settings: {name} must be {'above' if name == 'speed_mps' else 'at least'} "
                                 f"{lo:g} and at most {hi:g} {unit}, got {value!r}")
            object.__setattr__(self, name, float(value))


def find_contacts(rig, leg: str, settings: PlantSettings = PlantSettings()) -> list[tuple[int, int]]:
    """The contacts of a leg chain's tip in the rig's clip: (first, last) planted clip frames,
    inclusive, in time order."""
    clip = _clip_of(rig)
    sk = rig.skeleton
    tip = sk.index(_leg(rig, leg).joints[-1])
    feet = sk.fk(Pose(clip.rotations, clip.translations))[0][:, tip]
    near = feet[:, 1] - np.percentile(feet[:, 1], FLOOR_PERCENT) <= settings.height_m
    step = np.linalg.norm(np.diff(feet, axis=0), axis=1) / clip.frame_time
    inf = np.array([np.inf])
    still = np.minimum(np.concatenate([inf, step]), np.concatenate([step, inf])) <= settings.speed_mps
    return _runs(near & still)


def plant_curve(contacts: Iterable[tuple[int, int]], n_frames: int, frame_time: float, ease_s: float) -> Curve:
    """The weight curve for contacts (first, last) on a clip of `n_frames` frames: 1 over each
    contact, eased in over `ease_s` before and out over `ease_s` after it (a whole number of
    frames, half a frame rounding up, at least one), 0 between; lifts too short for two ramps
    are bridged (see the module docstring)."""
    ramp = max(1, math.floor(ease_s / frame_time + 0.5 + 1e-9))
    merged: list[list[int]] = []
    for first, last in sorted(contacts):
        if merged and first - merged[-1][1] < 2 * ramp:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    if not merged:
        raise ValueError("no contacts to key")
    if merged[0][0] < ramp:
        merged[0][0] = 0  # landing too soon after the clip starts to ease in: planted from the start
    if n_frames - 1 - merged[-1][1] < ramp:
        merged[-1][1] = n_frames - 1
    curve = weight_curve()
    for first, last in merged:
        if first > 0:
            curve = ease_in_keys(curve, first * frame_time, (first - ramp) * frame_time)
        else:
            curve = curve.with_key(0.0, 1.0)
        if last < n_frames - 1:
            curve = ease_out_keys(curve, last * frame_time, (last + ramp) * frame_time)
        else:
            curve = curve.with_key(last * frame_time, 1.0)
    return curve


def plant_tracks(rig, legs: Iterable[str] | None = None, settings: PlantSettings = PlantSettings()) -> dict[str, Track]:
    """Each leg's timeline track with its weight curve replaced by plant keys (target and
    pole curves kept); the rig is not changed. `legs` None: every ground-feet chain."""
    clip = _clip_of(rig)
    if legs is None:
        legs = [ch.name for ch in rig.chains if ch.ground_feet and registry.get(ch.solver).reaches]
        if not legs:
            raise ValueError("key plants: no leg chain has ground feet on; name the legs to key")
    out = {}
    for leg in legs:
        contacts = find_contacts(rig, leg, settings)
        if not contacts:
            raise ValueError(
                f"key plants: {leg!r} never plants in the clip (its tip is never within {settings.height_m:g} m "
                f"of the floor and slower than {settings.speed_mps:g} m/s)"
            )
        curve = plant_curve(contacts, clip.n_frames, clip.frame_time, settings.ease_s)
        out[leg] = rig.timeline.track(leg).with_curve("weight", curve)
    return out


def key_plants(rig, legs: Iterable[str] | None = None, settings: PlantSettings = PlantSettings()) -> dict[str, Track]:
    """Key plant and release ramps on the legs' weight tracks in the rig's timeline (see
    plant_tracks); returns each leg's previous track, the undo of this edit."""
    tracks = plant_tracks(rig, legs, settings)
    return {leg: rig.timeline.set_track(leg, track) for leg, track in tracks.items()}


def _clip_of(rig):
    if rig.clip is None:
        raise ValueError("key plants: the rig has no clip (plants are found in the animated clip)")
    if rig.clip.n_frames < 2:
        raise ValueError("key plants: the clip has a single frame (a foot needs frames to plant and lift)")
    return rig.clip


def _leg(rig, name: str):
    ch = rig.chain(name)  # KeyError names an unknown chain
    if not registry.get(ch.solver).reaches:
        raise ValueError(f"key plants: {name!r} is a {ch.solver} chain, not a leg")
    return ch


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) index of each run of True, inclusive."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    edges = np.diff(padded)
    return list(zip(np.nonzero(edges == 1)[0].tolist(), (np.nonzero(edges == -1)[0] - 1).tolist()))
