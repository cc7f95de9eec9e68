"""Feet on uneven ground, for a rig (issue 8): the rig's ground and the per-frame grounding
of its "ground feet" leg chains.

Each animated frame, every grounded chain's target is moved onto the ground under its
animated tip (rigedit.core.ground.ground_feet: a foot's lift above the flat floor the clip
was made on is kept above the terrain), and the root (pelvis) is lowered by pelvis_drop so
every grounded leg can reach. The result is a function of the animated pose and the ground
alone, so the rig computes it once per animated frame, with the animated pose. After the
legs are solved, each foot takes its sole's grounded rotation (the compiled frame's soles,
ik/frame_kernel._soles).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ground import HeightField, flat_ground, ground_feet, pelvis_drop, slope_ground
from .skeleton import Pose, Skeleton
from .transforms import quat_mul

GROUND_KINDS = ("flat", "slope")


@dataclass(frozen=True)
class Ground:
    """A rig's ground: `kind` is "flat", "slope" (the bundled terrains) or "field" (a height
    field given in full), and `field` the height field itself."""

    kind: str
    field: HeightField


def make_ground(spec) -> Ground | None:
    """None, "flat", "slope", a HeightField or a Ground -> Ground (or None)."""
    if spec is None or isinstance(spec, Ground):
        return spec
    if isinstance(spec, HeightField):
        return Ground("field", spec)
    if spec == "flat":
        return Ground("flat", flat_ground())
    if spec == "slope":
        return Ground("slope", slope_ground())
    raise ValueError(f"ground must be 'flat', 'slope', a HeightField or None, got {spec!r}")


def ground_frame(skeleton: Skeleton, anim: Pose, ground: Ground, legs: list) -> tuple[float, dict, dict]:
    """(root height change in metres, {chain name: grounded target}, {chain name: the tip's
    world rotation with its sole turned onto the ground}) for one animated pose; `legs`
    lists (chain name, joint indices root to tip, reach clamp, IK weight) of the grounded
    chains.

    The body first rides the terrain (the root goes up or down by the ground height under
    it: a clip made on flat ground walks up a step instead of crouching under it), then
    drops by pelvis_drop so the lower foot can still reach. Both follow the legs' weights
    (the ride by the largest, the drop by each leg's: pelvis_drop): grounding is part of
    the legs' IK, so with every leg at weight 0 the body stays exactly where the clip puts
    it, and a leg easing in eases the body down with it."""
    roots = [j for j, p in enumerate(skeleton.parents) if p < 0]
    pos, quats = skeleton.fk(anim)
    lift = float(ground.field.height_at(pos[roots[0]]))
    # Feet are grounded from where the clip puts them over its flat floor; hips are where
    # the body rides, `lift` higher.
    rest = skeleton.fk_matrices(skeleton.rest_pose())[0]
    targets, hips, lengths, names, soles, weights, clamp = [], [], [], [], [], [], 1.0
    for name, idx, reach_clamp, weight in legs:
        ankle_height = max(float(rest[idx[-1], 1]), 0.0)  # the rest pose stands on y = 0
        grounded = ground_feet(ground.field, pos[idx[-1]], ankle_height)
        targets.append(grounded.targets)
        # The foot keeps its animated orientation, tilted with the ground (limited, and
        # fading as the foot lifts: ground_feet).
        soles.append(quat_mul(grounded.sole_rotations, quats[idx[-1]]))
        hips.append(pos[idx[0]] + (0.0, lift, 0.0))
        lengths.append(float(np.linalg.norm(skeleton.offsets[idx[1:]], axis=1).sum()))
        names.append(name)
        weights.append(weight)
        clamp = min(clamp, reach_clamp)
    drop = pelvis_drop(np.array(hips), np.array(targets), np.array(lengths), clamp, weights) if names else 0.0
    lift *= max(weights, default=0.0)  # 1.0 * lift is lift to the bit: full weight as before
    as_tuple = lambda v: tuple(float(x) for x in v)  # noqa: E731
    return lift - drop, {n: as_tuple(t) for n, t in zip(names, targets)}, {n: as_tuple(q) for n, q in zip(names, soles)}
