"""Pole flips: a knee or elbow that swings to the other side of its limb for a few frames.

A limb's bend direction is where its mid joint sits off the root -> end line, as a unit
vector in the frame of the root's parent (the pelvis for a leg, the shoulder for an arm), so
it turns with the body. Its usual side is the median of that direction over the frames where
the limb is bent by more than MIN_BEND_DEG (a straighter limb has no direction to speak of).
A frame is flipped when the limb is bent that much and its direction is more than 90 degrees
from the usual side; a run of such frames no longer than MAX_FLIP_S is a flip (longer, it is
how the clip moves: a dancer's knee turned in for a whole phrase) when it starts and ends
suddenly: at each end the direction jumps more than SUDDEN_DEG from the frame beside it, or
that frame is straight (how an IK flip happens: the limb passes straight and comes back bent
the other way). A knee or elbow that swings round over several frames is motion, not a flip
(RobotExpressive's punch flares the elbow 119 degrees off its usual side, turning 74 degrees
a frame at 24 fps); a thigh turned about the hip-ankle line jumps its knee 150-180 degrees.
"""
from __future__ import annotations

import numpy as np

from .findings import Finding, merge_close, runs
from .motion import Limb, Motion

MIN_BEND_DEG = 10.0
MAX_FLIP_S = 1.0
SUDDEN_DEG = 90.0


def bend_angle(motion: Motion, limb: Limb) -> np.ndarray:
    """Degrees the limb bends at its mid joint (0 straight), per frame."""
    p = motion.pos
    u, v = p[:, limb.mid] - p[:, limb.root], p[:, limb.end] - p[:, limb.mid]
    nu, nv = np.linalg.norm(u, axis=-1), np.linalg.norm(v, axis=-1)
    c = (u * v).sum(-1) / np.maximum(nu * nv, 1e-300)
    return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))


def bend_direction(motion: Motion, limb: Limb, frames=slice(None)) -> np.ndarray:
    """Unit bend directions (frames, 3) in the root's parent frame (zero for a straight limb)."""
    return to_parent(motion, limb, world_bend(motion.pos[frames], limb), frames)


def world_bend(pos: np.ndarray, limb: Limb) -> np.ndarray:
    a, b, c = pos[..., limb.root, :], pos[..., limb.mid, :], pos[..., limb.end, :]
    axis = c - a
    axis = axis / np.maximum(np.linalg.norm(axis, axis=-1, keepdims=True), 1e-300)
    off = b - a
    n = off - (off * axis).sum(-1, keepdims=True) * axis
    length = np.linalg.norm(n, axis=-1, keepdims=True)
    return np.where(length > 1e-12, n / np.maximum(length, 1e-300), 0.0)


def to_parent(motion: Motion, limb: Limb, world: np.ndarray, frames=slice(None)) -> np.ndarray:
    parent = int(motion.skeleton.parents[limb.root])
    if parent < 0:
        return world
    r = motion.rot[frames, parent]
    return np.einsum("...ji,...j->...i", r, world)


def usual_side(motion: Motion, limb: Limb, angle: np.ndarray, local: np.ndarray) -> np.ndarray | None:
    s = motion.first
    bent = angle[s:] > MIN_BEND_DEG
    if bent.sum() < 3:
        return None
    m = np.median(local[s:][bent], axis=0)
    n = float(np.linalg.norm(m))
    return None if n < 1e-9 else m / n


def pole_flips(motion: Motion, events: list | None = None) -> tuple[list[Finding], list]:
    """The pole flips, and the turned-away spans (jumps.Turned in `events`) they take: a
    limb's upper bone or its middle joint turned away and back is its flip, all of it (the
    frames where the limb is straight too: their knee has no side, but the leg is turned)."""
    out, taken = [], []
    longest = max(1, int(MAX_FLIP_S * motion.fps))
    for limb in motion.limbs:
        angle = bend_angle(motion, limb)
        local = bend_direction(motion, limb)
        usual = usual_side(motion, limb, angle, local)
        spans = []
        if usual is not None:
            cos = local @ usual
            flipped = (angle > MIN_BEND_DEG) & (cos < 0.0)
            flipped[: motion.first] = False
            straight = angle <= MIN_BEND_DEG
            for a, b in runs(flipped):
                if b - a + 1 <= longest and _sudden(local, straight, a, a - 1, motion.first) and _sudden(local, straight, b, b + 1, motion.first):
                    spans.append((a, b))
        mine = [e for e in events or () if e.back and e.joint in (limb.root, limb.mid)]
        mid = []  # spans where the middle joint itself turned (the fixer turns it back, not the limb)
        for e in mine:
            if usual is None or any(a <= e.end and e.start <= b for a, b in spans) or _off_side(cos, angle, e):
                spans.append((e.start, e.end))
                taken.append(e)
                if e.joint == limb.mid:
                    mid.append((e.start, e.end))
        for a, b in merge_close(spans, 0):
            worst = "" if usual is None else f" up to {float(np.degrees(np.arccos(np.clip(cos[a : b + 1].min(), -1, 1)))):.0f} degrees"
            out.append(Finding(
                "pole_flip", limb.chain, motion.name(limb.mid), a, b, "error",
                f"the {motion.name(limb.mid)} is turned{worst} away from its usual side "
                f"for {b - a + 1} frame{'s' if b > a else ''} (bent {float(angle[a:b + 1].max()):.0f} degrees at most)",
                "turned_mid" if any(a <= c and d <= b for c, d in mid) else "",
            ))
    return out, taken


def _off_side(cos: np.ndarray, angle: np.ndarray, e) -> bool:
    """A turned span is a flip when its bent frames (if any) have the knee on the wrong side."""
    bent = angle[e.start : e.end + 1] > MIN_BEND_DEG
    return not bent.any() or bool((cos[e.start : e.end + 1][bent] < 0.0).any())


def _sudden(local: np.ndarray, straight: np.ndarray, f: int, beside: int, first: int) -> bool:
    """Whether frame f's bend direction is a jump from the frame beside it (or that frame is
    straight, or outside the motion)."""
    if beside < first or beside >= len(local) or straight[beside]:
        return True
    return bool(local[f] @ local[beside] < np.cos(np.radians(SUDDEN_DEG)))
