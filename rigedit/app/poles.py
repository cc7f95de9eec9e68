"""Where a pole goes when the user switches one on."""
from __future__ import annotations

import numpy as np

from rigedit import Rig


def default_pole(rig: Rig, chain: str) -> tuple[float, float, float]:
    """Out from the chain's mid joint, on the side it already bends to, half a chain length away.

    A straight chain has no bend side; it gets the direction most perpendicular to it among
    the world axes, pointing backward (-Z) first, as elbows do on a character facing +Z.
    """
    ch = rig.chain(chain)
    pts = np.array([rig.world_position(j) for j in ch.joints])
    root, tip = pts[0], pts[-1]
    mid = pts[len(pts) // 2]
    length = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
    axis = tip - root
    n = np.linalg.norm(axis)
    axis = axis / n if n > 1e-9 else np.array([0.0, -1.0, 0.0])
    out = mid - root
    out = out - axis * (out @ axis)
    if np.linalg.norm(out) < 1e-3 * max(length, 1e-9):
        candidates = np.array([[0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        best = candidates[int(np.argmin(np.abs(candidates @ axis)))]
        out = best - axis * (best @ axis)
    out = out / np.linalg.norm(out)
    return tuple(float(v) for v in mid + out * 0.5 * max(length, 1e-3))
