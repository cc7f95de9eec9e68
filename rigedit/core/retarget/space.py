"""Arm space: hands kept as far off the body as the source's are, scaled with the figure.

A wider target (a heavier torso, hips set further apart) given the source's arm directions
puts its hands through its own torso and thighs. For each frame and each body part (the torso
line from the hips up the spine, each thigh, each shin), the source wrist's distance to that
part is scaled by the figures' height ratio; where the target's hand goal comes nearer the
same part than that, it is moved straight away from the part by the difference. Elsewhere the
goal is untouched, so the hand keeps the source's path wherever it has the room.
"""
from __future__ import annotations

import numpy as np

from .roles import LEGS, Roles


def _parts(r: Roles) -> list[list[tuple[int, int]]]:
    """Segments (joint pairs) per body part: torso, then each thigh and shin."""
    line = [r.hips] + [j for j in r.spine if j != r.hips] + r.head[:1]
    parts = [list(zip(line, line[1:]))]
    for role in LEGS:
        j = r.limbs[role]
        parts += [[(j[0], j[len(j) // 2])], [(j[len(j) // 2], j[-1])]]
    return parts


def _nearest(p: np.ndarray, pos: np.ndarray, segments: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(distance (frames,), nearest point (frames, 3)) from points p to the nearest segment."""
    best_d = np.full(len(p), np.inf)
    best_q = np.zeros_like(p)
    for a, b in segments:
        pa, ab = p - pos[:, a], pos[:, b] - pos[:, a]
        u = np.clip(np.einsum("fi,fi->f", pa, ab) / np.maximum(np.einsum("fi,fi->f", ab, ab), 1e-300), 0.0, 1.0)
        q = pos[:, a] + u[:, None] * ab
        d = np.linalg.norm(p - q, axis=-1)
        closer = d < best_d
        best_d[closer], best_q[closer] = d[closer], q[closer]
    return best_d, best_q


def keep_off_body(goal: np.ndarray, t: Roles, t_pos: np.ndarray, s: Roles, s_pos: np.ndarray, wrist: int) -> np.ndarray:
    """goal (frames, 3): the target hand's, moved out where it is nearer a body part than the
    source's wrist (`wrist`, a source joint) is, scaled; t_pos, s_pos (frames, joints, 3)."""
    if len(t.spine) == 0 or len(s.spine) == 0:
        return goal  # no torso line to keep off (a figure without a spine chain)
    k = t.height / s.height
    out = goal.copy()
    for t_seg, s_seg in zip(_parts(t), _parts(s)):
        d_s, _ = _nearest(s_pos[:, wrist], s_pos, s_seg)
        d_t, q = _nearest(out, t_pos, t_seg)
        short = k * d_s - d_t
        away = out - q
        n = np.linalg.norm(away, axis=-1)
        move = (short > 0.0) & (n > 1e-12)
        out[move] += (short[move] / n[move])[:, None] * away[move]
    return out
