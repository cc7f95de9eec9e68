"""A look_at chain's settings as the compiled frame takes them (solve_methods.Aim packs them
into the frame's tables; ik/look_at_kernel.aim_chain runs them).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .chain_uses import LookAtSettings


@lru_cache(maxsize=64)
def look_params(look: LookAtSettings, n: int):
    """Shares (summing to 1), unit axes and radians of a chain's (frozen, checked) settings,
    as the kernel takes them."""
    from .ik.look_at_kernel import NO_TWIST_LIMIT  # numba's import waits for the first look-at solve

    weights = np.asarray(look.weights if look.weights is not None else (1.0,) * n, dtype=np.float64)
    twist = NO_TWIST_LIMIT if look.max_twist_deg is None else math.radians(look.max_twist_deg)
    return weights / weights.sum(), _unit(look.forward_axis), _unit(look.up_axis), math.radians(look.max_angle_deg), twist


def _unit(v) -> tuple[float, float, float]:
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (v[0] / n, v[1] / n, v[2] / n)
