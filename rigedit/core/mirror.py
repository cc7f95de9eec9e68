"""Mirror a pose left <-> right across the character's own symmetry plane (issue 25).

Partners come from names first (mirror_names.py), then, for joints no name pairs, from
positions: a joint whose reflection lands on itself is on the centre line (its own partner),
two whose reflections land on each other are partners. The plane is found from a reference
pose, not assumed to be X = 0: the rest pose, or the clip's first frame when that is the
more symmetric (a BVH's rest pose is often no pose at all). With name pairs, its normal is
the mean left-minus-right direction and it passes through their midpoints; without any,
the principal axis of the joint positions that reflects them best onto one another.

Rotations are reflected in world space: with h the half turn about the plane's normal
(reflection R -> M R M is h R h*), a joint's turn from the reference, D = W W_ref*, is
reflected onto its partner: W'_partner = h D h* W_ref_partner; so a symmetric reference
mirrors to itself and, on a skeleton symmetric at the reference, the partner's joints land
on the mirror images of the joint's to round-off. The roots' translations are reflected.
Mirroring twice gives the pose back on any skeleton.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .mirror_names import partners_by_name
from .skeleton import Pose, Skeleton
from .transforms import quat_conj, quat_mul, quat_normalize

# Two joints are partners by position when each one's reflection lands within this share
# of the skeleton's height of the other (and a joint within it of its own reflection is on
# the centre line). Loose enough for measured mocap, far tighter than any two limbs.
POSITION_SHARE = 0.01


@dataclass(frozen=True)
class Symmetry:
    """A skeleton's left/right structure: each joint's partner index (itself on the centre
    line), the plane (unit `normal`, a `point` on it, world metres) and the reference pose."""

    partners: tuple[int, ...]
    normal: np.ndarray
    point: np.ndarray
    reference: Pose

    def reflect_points(self, p: np.ndarray) -> np.ndarray:
        n = self.normal
        return p - 2.0 * ((p - self.point) @ n)[..., None] * n


def symmetry(skeleton: Skeleton, candidates: list[Pose] | None = None) -> Symmetry:
    """The symmetry of `skeleton` found from the most symmetric of `candidates` (default:
    its rest pose)."""
    poses = candidates or [skeleton.rest_pose()]
    named = partners_by_name(list(skeleton.names))
    best = None
    for pose in poses:
        world = skeleton.fk_matrices(pose)[0]
        normal, point = _plane(world, named, skeleton.height())
        partners = _fill_by_position(world, named, normal, point, skeleton.height())
        score = _asymmetry(world, partners, normal, point)
        if best is None or score < best[0]:
            best = (score, Symmetry(tuple(partners), normal, point, pose))
    return best[1]


def mirror_map(skeleton: Skeleton) -> list[int]:
    """Each joint's partner index (itself on the centre line), from the rest pose."""
    return list(symmetry(skeleton).partners)


def _plane(world: np.ndarray, named: list, height: float) -> tuple[np.ndarray, np.ndarray]:
    pairs = [(i, j) for i, j in enumerate(named) if j is not None and i < j]
    diffs = np.array([world[i] - world[j] for i, j in pairs]).reshape(-1, 3)
    # Left minus right, each pair turned to agree with the first that has a length.
    lengths = np.linalg.norm(diffs, axis=1)
    usable = diffs[lengths > 1e-6 * max(height, 1e-9)]
    if len(usable):
        signs = np.where(usable @ usable[0] < 0.0, -1.0, 1.0)
        normal = np.sum(usable * signs[:, None], axis=0)
        normal = normal / np.linalg.norm(normal)
        mids = np.array([(world[i] + world[j]) / 2.0 for i, j in pairs])
        return normal, mids.mean(axis=0)
    return _plane_by_shape(world)


def _plane_by_shape(world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """No name pairs: the principal axis whose plane through the centroid reflects the
    joints best onto one another."""
    centre = world.mean(axis=0)
    spread = world - centre
    _, vectors = np.linalg.eigh(spread.T @ spread)
    best = None
    for k in range(3):
        n = vectors[:, k]
        reflected = world - 2.0 * ((world - centre) @ n)[:, None] * n
        gaps = np.min(np.linalg.norm(reflected[:, None, :] - world[None, :, :], axis=2), axis=1)
        if best is None or gaps.sum() < best[0]:
            best = (gaps.sum(), n)
    return best[1], centre


def _fill_by_position(world, named: list, normal, point, height: float) -> list[int]:
    """Name partners kept; every other joint paired with the mutually nearest reflection
    among the unpaired, within POSITION_SHARE of the height, or its own partner."""
    reflected = world - 2.0 * ((world - point) @ normal)[:, None] * normal
    tol = POSITION_SHARE * max(height, 1e-9)
    partners = [j if j is not None else -1 for j in named]
    free = [i for i, j in enumerate(partners) if j < 0]
    for i in free:
        if partners[i] >= 0:
            continue
        others = [k for k in free if partners[k] < 0 and k != i]
        if others:
            gaps = np.linalg.norm(world[others] - reflected[i], axis=1)
            k = others[int(np.argmin(gaps))]
            back = [o for o in free if partners[o] < 0 and o != k]
            mutual = back[int(np.argmin(np.linalg.norm(world[back] - reflected[k], axis=1)))] == i
            if gaps.min() <= tol and mutual and np.linalg.norm(reflected[i] - world[i]) > tol:
                partners[i], partners[k] = k, i
                continue
        partners[i] = i
    return partners


def _asymmetry(world, partners: list[int], normal, point) -> float:
    reflected = world - 2.0 * ((world - point) @ normal)[:, None] * normal
    return float(np.mean(np.linalg.norm(reflected - world[partners], axis=1)))


def mirrored(skeleton: Skeleton, sym: Symmetry, pose: Pose) -> Pose:
    """`pose` mirrored: every joint takes its partner's reflected turn, the roots'
    translations are reflected (other joints' translations are kept)."""
    parents = np.asarray(skeleton.parents)
    world = skeleton.fk(pose)[1]
    ref = skeleton.fk(sym.reference)[1]
    h = np.append(sym.normal, 0.0)
    turn = quat_mul(world, quat_conj(ref))  # each joint's turn from the reference
    partners = list(sym.partners)
    reflected = quat_mul(quat_mul(h, turn[partners]), quat_conj(h))
    new_world = quat_normalize(quat_mul(reflected, ref))
    rot = new_world.copy()
    child = parents >= 0
    rot[child] = quat_normalize(quat_mul(quat_conj(new_world[parents[child]]), new_world[child]))
    trans = pose.translations.copy()
    roots = ~child
    trans[roots] = sym.reflect_points(pose.translations[np.asarray(partners)[roots]])
    return Pose(rot, trans)
