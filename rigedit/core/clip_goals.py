"""Goals that follow the clip (issue 14), as HumanIK effectors do.

A chain with `follow_clip` on has no fixed target: at every time its goal is where the
animated tip is (the clip's pose at that time, the body on the ground) plus an offset, and
its pole, if it has one, is placed from the animated limb's bend. So right after an import
the IK reproduces the clip, and an animator's drag at a frame is stored as an offset keyed
at that frame (`offset_keys`, a vector curve eased like any blend key: the first key comes
with zero keys one ease ramp before and after it, so the offset eases in and out around
the frame and the clip plays as recorded elsewhere). A chain without the flag keeps the
absolute target it always had.

Poles: each frame the pole is the animated mid joint pushed out from the root-tip line by
the limb's length. Down to a numerically straight limb the side is the clip's own (any other
side would make a zero-offset solve differ from the clip, and bend a knee the other way
than it); a straight limb keeps the previous frame's side, and with none, the chain's pole.

One implementation serves the live solve (per frame, through `followed_goals` and rig_goals.py) and
the bake (`clip_goal_frames`, over all frames at once).
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from .curve import Curve, Key, position_curve
from .rig_anim import animated
from .skeleton import Pose

# A limb whose mid joint is nearer the root-tip line than this fraction of the limb's length
# counts as straight: its bend direction is round-off. Any larger bend is the clip's and is
# followed (a flip there would move the solved mid by twice that distance off the clip).
STRAIGHT_REL = 1e-7

# The ease ramp a first offset key gets on each side, in seconds (timeline.EASE_DEFAULT_S:
# the weight keys' ramp), rounded to whole frames and at least one.
RAMP_S = 0.15


def follow_kwargs(clip) -> dict:
    """Rig.add_chain's settings for a chain proposed on a character with a clip (File >
    Import, `rigedit import`): its goal follows the clip, so the rig plays the clip as
    recorded until a goal is moved, and no reach clamp (the clip, not the clamp, says how
    straight a limb gets; a clamp would bend every straight frame a hair off the clip)."""
    return {} if clip is None else {"follow_clip": True, "reach_clamp": 1.0}


def offset_curve(keys) -> Curve:
    """The offset keys as a vector curve (metres; (0, 0, 0) with no keys)."""
    return position_curve(keys)


def check_offset_keys(keys) -> tuple[Key, ...]:
    """Offset keys cleaned (sorted Key values, float tuples); ValueError names the problem."""
    if keys is None:
        return ()
    try:
        return offset_curve(tuple(keys)).keys
    except TypeError:
        raise ValueError(f"must be a list of keys (time, (x, y, z), interpolation), got {keys!r}") from None


def keyed_offset(keys, time: float, offset, frame_rate: float) -> tuple[Key, ...]:
    """`keys` with `offset` keyed at `time` (replacing a key there). With no key before
    `time` a zero key goes one ramp before it, with none after one ramp after it, so the
    offset eases in and out around the frame instead of holding for the whole clip."""
    curve = offset_curve(keys)
    time = float(time)
    curve = curve.with_key(time, tuple(float(v) for v in offset))
    frames = max(1, math.floor(RAMP_S * frame_rate + 0.5))
    ramp = frames / frame_rate
    times = curve.times
    if not np.any(times < time):
        curve = curve.with_key(time - ramp, (0.0, 0.0, 0.0))
    if not np.any(times > time):
        curve = curve.with_key(time + ramp, (0.0, 0.0, 0.0))
    return curve.keys


def bend_pole(root, mid, tip, previous=None) -> tuple[tuple | None, tuple | None]:
    """One frame of a limb (root, mid, tip: 3 floats each): the pole, the mid joint pushed
    out from the root-tip line by the limb's length, and the unit bend direction used. A
    straight limb takes `previous` (the frame before's direction) or, with none, gives
    (None, None). Plain floats: the live solve calls it per chain per frame."""
    rx, ry, rz = root
    mx, my, mz = mid
    tx, ty, tz = tip
    ax, ay, az = mx - rx, my - ry, mz - rz
    lx, ly, lz = tx - rx, ty - ry, tz - rz
    length = math.sqrt(ax * ax + ay * ay + az * az) + math.sqrt((tx - mx) ** 2 + (ty - my) ** 2 + (tz - mz) ** 2)
    n2 = lx * lx + ly * ly + lz * lz
    u = (ax * lx + ay * ly + az * lz) / n2 if n2 > 0.0 else 0.0
    px, py, pz = ax - u * lx, ay - u * ly, az - u * lz
    size = math.sqrt(px * px + py * py + pz * pz)
    if size > STRAIGHT_REL * length and size > 0.0:
        side = (px / size, py / size, pz / size)
    elif previous is not None:
        side = tuple(float(v) for v in previous)
    else:
        return None, None
    return (mx + side[0] * length, my + side[1] * length, mz + side[2] * length), side


def bend_poles(root, mid, tip, previous=None) -> tuple[np.ndarray, tuple | None]:
    """bend_pole over frames (root, mid, tip each (F, 3)), in order, each straight frame
    keeping the side of the frame before it: poles (F, 3), NaN rows where a straight frame
    has no side yet (the caller's fallback), and the last side, for the next call."""
    root, mid, tip = (np.atleast_2d(np.asarray(a, dtype=np.float64)).tolist() for a in (root, mid, tip))
    out = np.full((len(root), 3), np.nan)
    side = previous
    for f, (r, m, t) in enumerate(zip(root, mid, tip)):
        pole, got = bend_pole(r, m, t, side)
        if pole is not None:
            out[f] = pole
            side = got
    return out, side


def _pole_joints(idx: list[int]) -> tuple[int, int, int]:
    return idx[0], idx[len(idx) // 2] if len(idx) != 3 else idx[1], idx[-1]


def clip_goal_frames(ch, idx: list[int], world: np.ndarray, times: np.ndarray):
    """A follow-clip chain's goals (F, 3) and poles (F, 3) or None over frames, from the
    animated world positions (F, joints, 3) at `times`: what the live solve gives frame by
    frame (the bake's side of `followed_goals`)."""
    target = world[:, idx[-1]] + offset_curve(ch.offset_keys).sample(times)
    if ch.own_pole is None:
        return target, None
    r, m, t = _pole_joints(idx)
    poles, _ = bend_poles(world[:, r], world[:, m], world[:, t])
    missing = np.isnan(poles[:, 0])
    if np.any(missing):
        poles[missing] = np.asarray(ch.own_pole, dtype=np.float64)
    return target, poles


class ClipGoals:
    """A rig's source of follow-clip goals: the animated world positions at its current
    time (computed once per animated frame) and each chain's last bend side."""

    def __init__(self, rig) -> None:
        self._rig = weakref.ref(rig)
        self._frame = None  # the AnimatedFrame the positions are for
        self._world: np.ndarray | None = None
        self._sides: dict[str, np.ndarray] = {}
        self._cache: dict[str, tuple] = {}  # chain -> (frame, offset curve, pole on, (goal, pole))

    def copy_for(self, rig) -> "ClipGoals":
        other = ClipGoals(rig)
        other._sides = dict(self._sides)
        return other

    def world(self, anim=None) -> np.ndarray:
        rig = self._rig()
        if anim is None:
            anim = animated(rig)
        if anim is not self._frame:
            rot = np.array(anim.rot, dtype=np.float64).reshape(-1, 4)
            self._world = rig.skeleton.fk_matrices(Pose(rot, anim.translations))[0]
            self._frame = anim
        return self._world

    def active(self, ch) -> bool:
        """Whether the chain's goal follows the clip now: the rig has a clip (without one,
        goals are absolute), and neither the ground (ground_feet) nor a gait places it."""
        rig = self._rig()
        return rig is not None and rig.clip is not None and not _placed_elsewhere(rig, ch)

    def time(self) -> float:
        return float(self._rig().time)

    def frame_rate(self) -> float:
        rig = self._rig()
        return float(rig.timeline.frame_rate) if rig.timeline is not None else 30.0

    def goal(self, ch, anim=None) -> tuple[float, float, float]:
        return self._placed(ch, anim)[0]

    def pole(self, ch, anim=None):
        if ch.own_pole is None:
            return None
        pole = self._placed(ch, anim)[1]
        return ch.own_pole if pole is None else pole  # straight, with no side yet: the chain's own

    def _placed(self, ch, anim) -> tuple:
        """(goal, pole or None) of a chain at the animated frame, computed once per frame
        and offset curve (the editor asks for every chain's settings at every mouse move)."""
        w = self.world(anim)
        got = self._cache.get(ch.name)
        pole_on = ch.own_pole is not None
        if got is not None and got[0] is self._frame and got[1] is ch.offsets and got[2] == pole_on:
            return got[3]
        idx = self._rig().plans[ch.name].idx
        tip = w[idx[-1]]
        off = ch.offsets.at(self.time()) if len(ch.offsets) else (0.0, 0.0, 0.0)
        goal = (float(tip[0] + off[0]), float(tip[1] + off[1]), float(tip[2] + off[2]))
        pole = None
        if pole_on:
            r, m, t = _pole_joints(idx)
            pole, side = bend_pole(w[r].tolist(), w[m].tolist(), w[t].tolist(), self._sides.get(ch.name))
            if side is not None:
                self._sides[ch.name] = side
        self._cache[ch.name] = (self._frame, ch.offsets, pole_on, (goal, pole))
        return goal, pole

    def tip(self, ch) -> np.ndarray:
        return self.world()[self._rig().plans[ch.name].idx[-1]].copy()


def followed_goals(rig, anim) -> dict[str, tuple]:
    """This frame's goal and pole of every follow-clip chain (rig_goals.placed_goals): name ->
    (goal, pole); a straight limb with no side yet keeps the chain's own pole. Nothing is
    written into the chains."""
    source = rig.clip_goals
    out = {}
    for ch in rig.chains_by_name.values():
        if ch.follow_clip and ch.kind.reaches and not _placed_elsewhere(rig, ch):
            goal, pole = source._placed(ch, anim)
            out[ch.name] = (goal, ch.own_pole if ch.own_pole is None or pole is None else pole)
    return out


def _placed_elsewhere(rig, ch) -> bool:
    """A grounded foot's target comes from the ground, a gait leg's from its steps: those win."""
    return (ch.ground_feet and rig.ground is not None) or (rig.gait is not None and ch.name in rig.gait.legs)
