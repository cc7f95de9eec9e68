"""Which source joint drives which target joint, matched by role (roles.py), and each pair's
anatomical frame: how a bone lies in its body, whatever its joint axes.

- hips to hips; the spine and head chains each spread over the other's joints by their place
  along the chain (a 3-joint spine drives a 5-joint one: first to first, last to last);
- each limb's root, middle and tip (hip, knee, ankle; shoulder, elbow, wrist), the bone past
  the tip (toes, fingers) and the collar bone above an arm when both skeletons have one.

A pair's frame has its first axis along the bone (toward the next joint of its role) and its
second toward the figure's left (legs, trunk) or forward (arms: a T-pose arm lies along
left). Built in each skeleton's reference pose, it says how the source's rest differs from the
target's bone by bone (a T-pose onto an A-pose, +X bones onto +Y bones): rest.py.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..transforms import quat_conj, quat_from_matrix, quat_mul
from .roles import ARMS, LEGS, UP, Roles

TINY = 1e-9


@dataclass(frozen=True)
class Pair:
    role: str
    target: int
    source: int
    target_bone: tuple[int, int]  # the two joints whose line is the bone's direction (-1: up)
    source_bone: tuple[int, int]
    side_axis: str  # "left" or "forward": the frame's second axis
    flat: bool = False  # a foot or toe: its frame is the bone laid flat (see frame)


def _spread(t: list[int], s: list[int]) -> list[tuple[int, int]]:
    """(target index, source index): each target joint onto the source joint as far along."""
    if not t or not s:
        return []
    if len(t) == 1:
        return [(0, 0)]
    return [(i, round(i * (len(s) - 1) / (len(t) - 1))) for i in range(len(t))]


def _bone(line: list[int], i: int) -> tuple[int, int]:
    return (line[i], line[i + 1]) if i + 1 < len(line) else (line[i - 1], line[i]) if i > 0 else (-1, line[i])


def _past_tip(roles: Roles, tip: int) -> int | None:
    """The bone past a limb's tip (toes, fingers): its child whose branch runs furthest."""
    sk = roles.skeleton
    kids = [c for c in sk.children(tip) if np.linalg.norm(roles.pos[c] - roles.pos[tip]) > TINY]
    if not kids:
        return None
    return max(kids, key=lambda c: float(np.linalg.norm(roles.pos[c] - roles.pos[tip])))


def _collar(roles: Roles, root: int, body: set[int]) -> int | None:
    p = int(roles.skeleton.parents[root])
    return p if p >= 0 and p not in body else None


def map_joints(t: Roles, s: Roles) -> tuple[list[Pair], list[str]]:
    """The pairs, and the roles mapped (chains both skeletons have)."""
    pairs: list[Pair] = []
    mapped: list[str] = []
    t_up = t.spine[0] if t.spine else t.head[0] if t.head else -1
    s_up = s.spine[0] if s.spine else s.head[0] if s.head else -1
    pairs.append(Pair("hips", t.hips, s.hips, (t.hips, t_up) if t_up >= 0 else (-1, t.hips),
                      (s.hips, s_up) if s_up >= 0 else (-1, s.hips), "left"))
    for role in ("spine", "head"):
        tl, sl = getattr(t, role), getattr(s, role)
        for i, k in _spread(tl, sl):
            pairs.append(Pair(role, tl[i], sl[k], _bone(tl, i), _bone(sl, k), "left"))
        if tl and sl:
            mapped.append(role)
    t_body = {t.hips, *t.spine, *t.head}
    s_body = {s.hips, *s.spine, *s.head}
    for role in t.limbs:
        if role not in s.limbs:
            continue
        mapped.append(role)
        side = "forward" if role in ARMS else "left"
        tj, sj = t.limbs[role], s.limbs[role]
        tl = [tj[0], tj[len(tj) // 2], tj[-1]]
        sl = [sj[0], sj[len(sj) // 2], sj[-1]]
        t_toe, s_toe = _past_tip(t, tl[-1]), _past_tip(s, sl[-1])
        if t_toe is not None and s_toe is not None:
            tl.append(t_toe)
            sl.append(s_toe)
        for i in range(len(tl)):
            pairs.append(Pair(role, tl[i], sl[i], _bone(tl, i), _bone(sl, i), side, flat=role in LEGS and i >= 2))
        tc, sc = _collar(t, tj[0], t_body), _collar(s, sj[0], s_body)
        if role in ARMS and tc is not None and sc is not None:
            pairs.append(Pair(role, tc, sc, (tc, tj[0]), (sc, sj[0]), side))
    # A joint given twice (the spine's last is the head's first) keeps its last pair.
    last = {p.target: p for p in pairs}
    return list(last.values()), mapped


def frame(roles: Roles, bone: tuple[int, int], side_axis: str, flat: bool = False,
          pos: np.ndarray | None = None) -> np.ndarray:
    """The world rotation (4,) whose x axis lies along the bone and whose z axis is toward
    the figure's side axis (made square to the bone), in the reference pose or at `pos`.

    A flat bone's x axis is the bone laid flat on the ground: a foot's line from ankle to toe
    joint is pitched down by as much as the ankle stands above the toes, which differs from
    skeleton to skeleton (Bandai's 40 degrees, the humanoid's 25); a foot flat on the ground
    must go onto a foot flat on the ground."""
    pos = roles.pos if pos is None else pos
    a, b = bone
    x = UP.copy() if a < 0 else pos[b] - pos[a]
    if np.linalg.norm(x) <= TINY and a >= 0:
        p = int(roles.skeleton.parents[a])
        x = pos[a] - pos[p] if p >= 0 else UP.copy()
    if flat:
        x = x - (x @ UP) * UP
        if np.linalg.norm(x) <= 1e-6 * max(1.0, float(np.abs(pos).max())):
            x = roles.forward.copy()
    n = np.linalg.norm(x)
    x = UP.copy() if n <= TINY else x / n
    side = roles.left if side_axis == "left" else roles.forward
    z = side - (side @ x) * x
    if np.linalg.norm(z) <= 1e-6:  # a bone along the side axis: the other one
        other = roles.forward if side_axis == "left" else roles.left
        z = other - (other @ x) * x
    return axes_rotation(x, z)


def axes_rotation(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The rotation (..., 4) taking the world x axis onto unit x and z onto z made square to
    it (z not along x)."""
    z = z - np.sum(z * x, axis=-1, keepdims=True) * x
    z = z / np.linalg.norm(z, axis=-1, keepdims=True)
    return quat_from_matrix(np.stack([x, np.cross(z, x), z], axis=-1))


def anatomical_offsets(roles: Roles, pairs: list[Pair], which: str,
                       planted: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> np.ndarray:
    """(pairs, 4): per pair, its frame in its joint's local terms, conj(world) * frame. A flat
    pair's is read in `planted[role]` (world positions and rotations of a frame with that foot
    flat on the ground) when given, else in the reference pose (a rest pose stands flat)."""
    out = []
    for p in pairs:
        j = p.target if which == "target" else p.source
        bone = p.target_bone if which == "target" else p.source_bone
        pos, quat = roles.pos, roles.quat
        if p.flat and planted and p.role in planted:
            pos, quat = planted[p.role]
        out.append(quat_mul(quat_conj(quat[j]), frame(roles, bone, p.side_axis, p.flat, pos)))
    return np.array(out)
