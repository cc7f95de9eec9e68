"""Reach clamp and soft IK: move a chain's target so the limb never snaps straight.

Two problems at full reach, both fixed by moving the target along the root -> target line
before the solver sees it (the solver itself stays exact):

- A perfectly straight limb has no bend plane, so the next small move can flip the knee or
  elbow to any side. Clamping the reach to a hair under full length (99.9% by default: a
  1 m leg keeps a ~2.5 degree bend) keeps the bend plane defined.
- As the target crosses full reach, the joint angle of an exact two-bone solve moves like
  sqrt(L - d): infinitely fast at the end. Soft IK replaces the last `softness` metres of
  reach with an exponential approach, so the limb straightens smoothly and only
  asymptotically: d' = L - s + s * (1 - exp(-(d - (L - s)) / s)) for d > L - s.

The mapping d -> d' has slope <= 1 and d' <= d, so the effective target never moves
farther than the real one did (it is 1-Lipschitz): no jump, whatever the target does.
"""
from __future__ import annotations

import math

import numpy as np

# Default fraction of the full chain length a target may ask for (see module docstring).
DEFAULT_REACH_CLAMP = 0.999


def soft_distance(distance, chain_length, reach_clamp: float = DEFAULT_REACH_CLAMP, softness=0.0) -> np.ndarray:
    """The root -> target distance the solver should aim for, element-wise.

    `reach_clamp` >= 1 with `softness` 0 is the identity (clamp and soft IK both off);
    softness under a nanometre counts as 0.
    With `reach_clamp` < 1 the reachable length is `reach_clamp * chain_length`, and soft IK
    eases into that length, never past it.
    """
    d = np.asarray(distance, dtype=np.float64)
    length = np.asarray(chain_length, dtype=np.float64)
    s = np.asarray(softness, dtype=np.float64)
    _check(d, "distance")
    _check(length, "chain_length")
    _check(s, "softness")
    if not (np.isfinite(reach_clamp) and 0.0 < reach_clamp):
        raise ValueError(f"reach_clamp must be a positive fraction of the chain length, got {reach_clamp!r}")
    d, length, s = np.broadcast_arrays(d, length, s)
    limit = length * min(reach_clamp, 1.0)
    # Softness larger than the reach would start easing before the root; cap it at the reach.
    s = np.minimum(s, limit)
    # Sub-nanometre softness is no softness; dividing by it would only overflow.
    s = np.where(s < 1e-9, 0.0, s)
    knee = limit - s
    soft = s > 0.0
    excess = np.maximum(d - knee, 0.0)
    safe_s = np.where(soft, s, 1.0)
    eased = knee + s * -np.expm1(-excess / safe_s)
    out = np.where(soft & (d > knee), eased, d)
    if reach_clamp < 1.0:
        out = np.minimum(out, limit)
    return out


def effective_target(root, target, chain_length, reach_clamp: float = DEFAULT_REACH_CLAMP, softness=0.0) -> np.ndarray:
    """The target moved along root -> target to the soft/clamped distance.

    root, target: (..., 3); chain_length and softness: scalars or (...,) arrays (one per
    chain), so a whole crowd of legs goes through in one call. A target on the root is
    returned as it is (it has no direction to move along, and needs no clamp).
    """
    root = np.asarray(root, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    if root.shape[-1:] != (3,) or target.shape[-1:] != (3,):
        raise ValueError(f"root and target must end in a 3-vector axis, got shapes {root.shape} and {target.shape}")
    if not (np.all(np.isfinite(root)) and np.all(np.isfinite(target))):
        raise ValueError("root and target must be finite")
    offset = target - root
    d = np.linalg.norm(offset, axis=-1)
    new_d = soft_distance(d, chain_length, reach_clamp, softness)
    # Scale factor new_d / d: 1 where d is 0 (nothing to move) without dividing by zero.
    scale = np.where(d > 0.0, new_d / np.where(d > 0.0, d, 1.0), 1.0)
    moved = root + offset * scale[..., None]
    # Untouched targets are returned bit for bit (root + (target - root) can round off), so
    # switching the feature off really is the identity.
    return np.where((new_d == d)[..., None], target, moved)


def soft_distance_float(d: float, chain_length: float, reach_clamp: float, softness: float) -> float:
    """soft_distance for one chain on plain floats: Rig.solve calls it for every chain every
    frame, where the array form's dozen numpy calls cost more than the solve itself.
    Inputs are the rig's own validated settings, so they are not checked again here."""
    limit = chain_length * min(reach_clamp, 1.0)
    s = min(softness, limit)
    if s < 1e-9:
        s = 0.0
    knee = limit - s
    out = d
    if s > 0.0 and d > knee:
        out = knee + s * -math.expm1(-(d - knee) / s)
    if reach_clamp < 1.0 and out > limit:
        out = limit
    return out


def effective_target_float(root, target, chain_length: float, reach_clamp: float, softness: float) -> tuple[float, float, float]:
    """effective_target for one chain on float 3-tuples (see soft_distance_float)."""
    ox, oy, oz = target[0] - root[0], target[1] - root[1], target[2] - root[2]
    d = math.sqrt(ox * ox + oy * oy + oz * oz)
    new_d = soft_distance_float(d, chain_length, reach_clamp, softness)
    if new_d == d or d == 0.0:
        return (float(target[0]), float(target[1]), float(target[2]))
    k = new_d / d
    return (root[0] + ox * k, root[1] + oy * k, root[2] + oz * k)


def _check(a: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite")
    if np.any(a < 0.0):
        raise ValueError(f"{name} must not be negative")
