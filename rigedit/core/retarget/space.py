"""Arm space: hands kept off the body when the target is wider.

A wider target (a heavier torso, hips set further apart) given the source's arm directions
puts its hands through its own torso and thighs. The body is the report's (core/quality/
capsules.py): a capsule along the torso line from the hips up the spine, one on each thigh and
shin, radii as fractions of the figure's height. For each frame and part, the hand and the
forearm (points from the elbow to the wrist) must be at least the part's radius off its line,
or as far as the source's are off its own part (scaled by the heights) when that is nearer: a source hand on its hip stays on the target's
hip, it is not pushed out. Where the hand goal is nearer than that, it is moved straight away
from the part by the difference; elsewhere it is untouched, so the hand keeps the source's
path wherever it has the room.
"""
from __future__ import annotations

import numpy as np

from ..quality.capsules import SHIN_RADIUS, THIGH_RADIUS, TORSO_RADIUS
from .feet import foot_points
from .roles import ARMS, LEGS, Roles

PASSES = 3
# Along the forearm from the elbow, the elbow included: the report tests the whole forearm,
# and LaFAN1's crouch onto Xbot put elbows inside the thighs while the hands were clear
# (self-penetration 0.004 -> 0.015 with the far half only, 0.003 with the elbow). The elbow
# moves with the hand goal by less than the hand does; the passes below make up the rest.
FOREARM_POINTS = (0.0, 0.25, 0.5, 0.75)
RADII = (TORSO_RADIUS,) + (THIGH_RADIUS, SHIN_RADIUS) * len(LEGS)  # of the height, in _parts' order


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
    """goal (frames, 3): the target wrist's, moved out where the hand (the wrist and every
    joint under it: fingers the source may not have) is nearer a body part than the required
    clearance; `wrist` is the source's, t_pos, s_pos (frames, joints, 3). The hand keeps its
    world rotation through the solve, so it moves with the goal as one piece."""
    if len(t.spine) == 0 or len(s.spine) == 0:
        return goal  # no torso line to keep off (a figure without a spine chain)
    k = t.height / s.height
    role = _arm_of(t, s, wrist)
    offsets = _hand(t_pos, t, role) - t_pos[:, [t.limbs[role][-1]]]  # (frames, points, 3)
    s_hand = _hand(s_pos, s, role)
    out = goal.copy()
    parts = list(zip(_parts(t), _parts(s), RADII))
    needs = [np.minimum(k * np.min([_nearest(s_hand[:, i], s_pos, s_seg)[0] for i in range(s_hand.shape[1])], axis=0),
                        radius * t.height) for _, s_seg, radius in parts]
    # Out of one part may be into the next (a hand between the hip and the thigh): PASSES times round.
    for (t_seg, _, _), need in list(zip(parts, needs)) * PASSES:
        short, away = np.zeros(len(out)), np.zeros_like(out)
        for i in range(offsets.shape[1]):
            d_t, q = _nearest(out + offsets[:, i], t_pos, t_seg)
            gap = need - d_t
            worse = gap > short
            short[worse] = gap[worse]
            away[worse] = (out + offsets[:, i] - q)[worse]
        n = np.linalg.norm(away, axis=-1)
        move = (short > 0.0) & (n > 1e-12)
        out[move] += (short[move] / n[move])[:, None] * away[move]
    return out


def _hand(pos: np.ndarray, r: Roles, role: str) -> np.ndarray:
    """(frames, points, 3): the wrist and the joints under it, and points along the forearm
    from the elbow (the report tests forearms too)."""
    arm = r.limbs[role]
    elbow, wrist = pos[:, arm[len(arm) // 2]], pos[:, arm[-1]]
    forearm = [elbow + u * (wrist - elbow) for u in FOREARM_POINTS]
    return np.concatenate([pos[:, foot_points(r.skeleton, arm[-1])], np.stack(forearm, axis=1)], axis=1)


def _arm_of(t: Roles, s: Roles, wrist: int) -> str:
    return next(r for r in ARMS if r in s.limbs and s.limbs[r][-1] == wrist)
