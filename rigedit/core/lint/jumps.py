"""Discontinuities: a rotation, the root or an Euler curve jumping between two frames.

- Rotation jumps: a step whose turn is far off what the joint's own recent motion says it
  should be (rates.py: an acceleration spike, not a large steady speed). A jump away and a
  jump back within MAX_TURNED_S, the rotation after them within RETURN of the one before, are
  one span turned away (every frame off reported, the first and the last included); a limb's
  such span is its pole flip (pole_flip.py), any other joint's a discontinuity. A lone jump
  is an error at SEVERE times its yardstick or more, a warning below.
- Root jumps: the root's translation stepping further than JUMP_FACTOR times its
  TYPICAL_PERCENT-percentile step, and at least MIN_ROOT_JUMP leg lengths.
- Euler wraps: a BVH file's rotation channel jumping by more than 180 degrees between frames
  while the rotation itself does not jump (a 360 degree wrap: the pose is the same, but every
  curve editor and interpolator downstream sees a spin). One finding per joint, spanning its
  wraps: a warning, or info when every wrap is across +-180 (a file that keeps its angles in
  [-180, 180], as many exporters do: real, but nothing a reader that unwraps will see).
- A reference frame: mocap exports (the CMU files converted by cgspeed, many others) put a
  T-pose on frame 0 before the motion. When the step from frame 0 to 1 jumps on at least
  REFERENCE_JOINTS of the joints that move and nothing else in the clip jumps that much,
  frame 0 is a reference pose: reported once, as info, and the motion is linted from frame 1.

A lone jump's span is the two frames it is between.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..transforms import quat_angle, quat_conj, quat_mul
from .findings import Finding
from .motion import Motion
from .rates import SEVERE, jumps

JUMP_FACTOR = 8.0  # the reference frame's and the root's yardstick (their typical step)
TYPICAL_PERCENT = 90.0
MAX_TURNED_S = 1.0  # a jump away and one back within this long are one span
RETURN = 0.5  # back: the rotation after the span is this close (of the jumps) to the one before
MIN_ROOT_JUMP = 0.1
MIN_JUMP_DEG = 10.0  # the reference frame's joints that jump turn at least this much
REFERENCE_JOINTS = 0.25
MANY_JOINTS = 4  # more joints than this jumping on one step is reported as one finding
WRAP_DEG = 180.0
BOUNDARY_DEG = 150.0  # a wrap between two angles past this is across +-180


def rotation_steps(rotations: np.ndarray) -> np.ndarray:
    """Degrees each joint's local rotation turns from frame f-1 to f, (frames - 1, joints)."""
    rel = quat_mul(quat_conj(rotations[:-1]), rotations[1:])
    return np.degrees(quat_angle(rel))


def _thresholds(steps: np.ndarray) -> np.ndarray:
    if len(steps) == 0:
        return np.full(steps.shape[1:], np.inf)
    return np.maximum(JUMP_FACTOR * np.percentile(steps, TYPICAL_PERCENT, axis=0), MIN_JUMP_DEG)


def reference_frame(rotations: np.ndarray) -> bool:
    """True when frame 0 is a pose of its own before the motion (see the module docstring)."""
    if len(rotations) < 3:
        return False
    steps = rotation_steps(rotations)
    later = steps[1:]
    limit = _thresholds(later)
    moving = later.max(axis=0) > 1e-6
    if not moving.any():
        return False
    jumped = (steps[0] > limit) & moving
    return bool(jumped.sum() >= max(2, REFERENCE_JOINTS * moving.sum()))


@dataclass(frozen=True)
class Turned:
    """A joint's rotation jumping (rates.py): alone, between frames start and start + 1, or
    turned away and back (`back`): start..end are the frames off."""

    joint: int
    start: int
    end: int
    degrees: float  # the largest jump
    ratio: float  # its surprise over its yardstick
    back: bool


def turned(motion: Motion) -> list[Turned]:
    """Every rotation jump of the motion, a jump away and one back paired into a span."""
    s = motion.first
    rot = motion.clip.rotations[s:]
    if len(rot) < 3:
        return []
    jumped, sur, yard = jumps(rot, motion.fps)
    size = np.degrees(quat_angle(quat_mul(quat_conj(rot[:-1]), rot[1:])))
    longest = max(1, int(MAX_TURNED_S * motion.fps))
    out = []
    for j in range(rot.shape[1]):
        steps = list(np.nonzero(jumped[:, j])[0])
        i = 0
        while i < len(steps):
            f = int(steps[i])
            g = int(steps[i + 1]) if i + 1 < len(steps) else None
            if g is not None and g - f <= longest:
                away = float(np.degrees(quat_angle(quat_mul(quat_conj(rot[f, j]), rot[g + 1, j]))))
                if away < RETURN * min(size[f, j], size[g, j]):
                    ratio = float(max(sur[f, j] / yard[f, j], sur[g, j] / yard[g, j]))
                    out.append(Turned(j, s + f + 1, s + g, float(max(size[f, j], size[g, j])), ratio, True))
                    i += 2
                    continue
            out.append(Turned(j, s + f, s + f + 1, float(size[f, j]), float(sur[f, j] / yard[f, j]), False))
            i += 1
    return out


def discontinuities(motion: Motion, events: list[Turned] | None = None) -> list[Finding]:
    """Reference frame, rotation jumps and turned-away spans (`events`, default all of the
    motion's: pass those no other check has claimed), root jumps and Euler wraps."""
    out = []
    s = motion.first
    names = motion.skeleton.names
    if s == 1:
        steps0 = rotation_steps(motion.clip.rotations[:2])[0]
        out.append(Finding(
            "discontinuity", None, None, 0, 1, "info",
            f"frame 0 is a reference pose (a T-pose before the motion, as cgspeed's CMU files have): "
            f"{int((steps0 > MIN_JUMP_DEG).sum())} joints turn up to {float(steps0.max()):.0f} degrees into frame 1; "
            f"linted from frame 1", "reference_frame",
        ))
    if motion.n_frames - s < 3:
        return out
    events = turned(motion) if events is None else events
    lone: dict[int, list[Turned]] = {}
    for e in events:
        if e.back:
            out.append(Finding("discontinuity", _chain_of(motion, e.joint), names[e.joint], e.start, e.end, "error",
                               f"turned {e.degrees:.0f} degrees away for {e.end - e.start + 1} frame{'s' if e.end > e.start else ''} "
                               f"and back ({e.ratio:.1f} times what its own recent motion allows)", "turned_span"))
        else:
            lone.setdefault(e.start, []).append(e)
    for a, group in sorted(lone.items()):
        worst = max(group, key=lambda e: e.ratio)
        severity = "error" if worst.ratio >= SEVERE else "warning"
        if len(group) > MANY_JOINTS:
            out.append(Finding("discontinuity", _chain_of(motion, worst.joint), None, a, a + 1, severity,
                               f"{len(group)} joints' rotations jump (up to {worst.degrees:.0f} degrees at {names[worst.joint]})", "rotation_jump"))
            continue
        for e in group:
            out.append(Finding("discontinuity", _chain_of(motion, e.joint), names[e.joint], a, a + 1,
                               "error" if e.ratio >= SEVERE else "warning",
                               f"rotation jumps {e.degrees:.0f} degrees, {e.ratio:.1f} times what its own recent motion allows",
                               "rotation_jump"))
    root = np.nonzero(motion.skeleton.parents < 0)[0]
    for r in root:
        step = np.linalg.norm(np.diff(motion.clip.translations[s:, r], axis=0), axis=-1)
        typical = float(np.percentile(step, TYPICAL_PERCENT))
        lim = max(JUMP_FACTOR * typical, MIN_ROOT_JUMP * motion.leg_length)
        for f in np.nonzero(step > lim)[0]:
            out.append(Finding("discontinuity", None, names[r], s + int(f), s + int(f) + 1, "error",
                               f"the root jumps {100 * float(step[f]):.1f} cm in one frame (typically under {100 * typical:.1f} cm)", "root_jump"))
    jumped = np.zeros((motion.n_frames - s - 1, len(names)), dtype=bool)
    for e in events:
        jumped[e.start - s, e.joint] = True
        if e.back:
            jumped[e.end - s, e.joint] = True
    out += euler_wraps(motion, jumped, s)
    return out


def euler_wraps(motion: Motion, jumped: np.ndarray, s: int) -> list[Finding]:
    out = []
    if not motion.euler:
        return out
    for name, angles in motion.euler.items():
        j = motion.skeleton.index(name)
        d = np.abs(np.diff(np.asarray(angles, dtype=np.float64)[s:], axis=0))
        if len(d) != len(jumped):
            continue
        wrap = (d > WRAP_DEG).any(axis=1) & ~jumped[:, j]
        frames = np.nonzero(wrap)[0]
        if len(frames) == 0:
            continue
        v = np.asarray(angles, dtype=np.float64)[s:]
        at_edge = all(
            ((np.abs(v[f]) > BOUNDARY_DEG) & (np.abs(v[f + 1]) > BOUNDARY_DEG))[d[f] > WRAP_DEG].all() for f in frames
        )
        a, b = s + int(frames[0]), s + int(frames[-1]) + 1
        channel = sorted({int(np.argmax(d[f])) for f in frames})
        where = ", ".join(f"{s + int(f)}-{s + int(f) + 1}" for f in frames[:6]) + (" ..." if len(frames) > 6 else "")
        out.append(Finding(
            "discontinuity", _chain_of(motion, j), name, a, b, "info" if at_edge else "warning",
            f"Euler wrap{'s' if len(frames) > 1 else ''}: rotation channel{'s' if len(channel) > 1 else ''} "
            f"{', '.join(str(c + 1) for c in channel)} jump{'' if len(channel) > 1 else 's'} by up to {float(d[frames].max()):.0f} degrees "
            f"{len(frames)} time{'s' if len(frames) > 1 else ''} (frames {where}) while the rotation turns under "
            f"{float(rotation_steps(motion.clip.rotations[s:])[frames, j].max()) + 0.05:.1f} degrees"
            + (": angles kept in [-180, 180]" if at_edge else ""), "euler_wrap",
        ))
    return out


def _chain_of(motion: Motion, joint: int) -> str | None:
    for name, joints in motion.chains.items():
        if joint in joints[:-1] or (len(joints) == 1 and joint in joints):
            return name
    for name, joints in motion.chains.items():
        if joint in joints:
            return name
    return None
