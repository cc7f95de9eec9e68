"""FABRIK (forward and backward reaching IK) for one chain of points.

    r = fabrik(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10,
               limits=None, pole=None, arc_start=True)

The contract (DESIGN.md): r.points is a new (n, 3) float64 array, points[0] never moves and
bone lengths are kept to round-off; out of reach the chain is straight toward the target
with r.iterations == 0; otherwise backward-then-forward passes, warm-started from the given
points, until within tolerance. r.errors holds the tip error after each pass and never
grows. Passes stop on the tolerance, on max_iterations, or when a pass gains less than
STALL_RELATIVE of the chain's length. A pass that would move the tip away is dropped (its
slot in r.errors repeats the kept error) and ends the solve: FABRIK nearly always improves,
but with limits, or near a fold, it need not.

A straight start (a bind pose) is first bent into an arc toward the target, or toward the
`pole` side (arc_start.py), and kept when that is nearer; `arc_start=False` gives plain FABRIK.

`limits`: None; {joint index: HingeLimit | ConeLimit}; a list with one limit-or-None per
point; or a ChainLimits, which also says where the frames are (chain_frames.py). A limit
acts on the bone leaving its joint (index into `points`; one on the tip is ignored) and is
enforced in every forward pass. With limits:
- the start pose is first conformed to them (each bone keeps its angle to its parent where
  allowed), and there is no straight out-of-reach shortcut (a straight chain may not be
  allowed): iterations run as usual;
- an iteration is the FABRIK pass (limits read backwards in the backward pass, as caliko
  does); when that pass stalls (keeps more than CCD_WHEN_ABOVE of the error, or
  CONES_CCD_WHEN_ABOVE with cones only), also a CCD
  sweep (limited_kernel.ccd) from the old pose and one after the pass, keeping whichever ends
  nearest: FABRIK alone stalls when a hinge plane has to turn;
- r.frames gives each bone's frame at the result, (n - 1, 4), to pass back as
  ChainLimits.frames when warm-starting (None when no limit is in play).
`limits` may also be a LimitPlan (chain_frames.plan_limits), or a ChainLimits holding one:
validated once, so a caller solving the same chain every frame does not pay for it again.

Unlimited, the work is plain Python floats: numpy's per-call cost would be ten times the
arithmetic of a joint update (see _floats.py). Limited, the iterations run compiled
(limited_kernel.py): the clamps and sweeps cost several times the passes themselves, and a
rig solves its limited chains on every frame.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from math import isfinite, sqrt

import numpy as np

from ._floats import TINY
from .arc_start import ARC_GAIN_RELATIVE, arc_pose, is_straight
from .chain_frames import (
    PreparedLimits,
    bone_directions,
    packed_limits,
    hinge_bend_side,
    prepare_limits,
    solved_frames,
    within_limits,
)

# A pass that brings the tip in by less than this fraction of the chain's length has
# stalled (a fold, or a target inside the chain's inner reach): float64 round-off in a pass
# is ~1e-15 of the length, so this fires only when further passes would change nothing
# that matters, yet long before they reach any millimetre tolerance.
STALL_RELATIVE = 1e-9
# With limits, a pass (with its sweeps) that brings the tip in by less than this fraction of
# the error has stalled too: the limits hold the chain short of a target it cannot reach,
# and further passes creep by round-off-sized steps (an unreachable spine target crept by
# 1e-7 m a pass for 20 passes). A warm-started caller resumes next time if it can go on.
LIMITED_STALL = 1e-3
# With cones only, a FABRIK pass that ends farther from the target than it started
# typically means the target lies beyond what the cones let the chain reach (the backward
# pass pins the tip on it, the forward pass cannot follow), and what the iteration gained
# came from its CCD sweeps sliding the tip along that boundary. Then an iteration gaining less than this fraction of the error ends the solve:
# the sweeps' next steps along the boundary are ever smaller (the humanoid's spine, dragged
# out of reach, spent its second iteration of pass and two sweeps gaining under 1e-5 of the
# error), and a warm-started caller carries on next time. Hinges are left to LIMITED_STALL:
# turning a hinge plane takes many small sweeps that do add up.
OUT_OF_REACH_STALL = 1e-2
# With limits, a FABRIK pass that leaves more than this fraction of the error is stalling
# (typically a hinge plane that has to turn, which a pass cannot do): only then are the two
# CCD sweeps tried too. While passes at least halve the error, the sweeps (each as dear as
# two passes) would rarely beat them.
CCD_WHEN_ABOVE = 0.5
# With cones only there is no hinge plane for the pass to fail to turn: passes keep drawing
# the tip in, if slowly, and the sweeps pay only once a pass has all but stalled. In
# bench_rig's drags (humanoid spine, tentacle) this takes the sweeps from 1356 to 801 and from
# 643 to 18 a run for the same reached shares (bench_fabrik's cone rows are unchanged).
CONES_CCD_WHEN_ABOVE = 0.9


@dataclass(slots=True)
class FabrikResult:
    points: np.ndarray  # (n, 3)
    iterations: int
    error: float  # |tip - target|
    errors: tuple  # tip error after each pass
    reached: bool  # error <= tolerance
    frames: np.ndarray | None = None  # (n - 1, 4) bone frames, only with limits


def fabrik(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None, pole=None, arc_start=True):
    pts = read_points(points)
    n = len(pts)
    tgt = read_vec3(target, "target")
    tol = read_tolerance(tolerance)
    cap = read_iterations(max_iterations)
    if lengths is None:
        ls = measure_lengths(pts)
        check_finite(pts, ls)
    else:
        check_finite(pts, measure_lengths(pts))
        ls = read_lengths(lengths, n - 1)
    pole3 = None if pole is None else read_vec3(pole, "pole")
    pts, err, errors, prep, _ = fabrik_floats(
        pts, tgt, ls, tol, cap, limits, pole3, arc_start=arc_start, given_lengths=lengths is not None
    )
    if type(pts) is np.ndarray:  # a limited result: floats for solved_frames' per-joint loop
        pts = pts.tolist()
    frames = solved_frames(pts, prep) if prep is not None else None
    return FabrikResult(_to_array(pts), len(errors), err, errors, err <= tol, frames)


def fabrik_floats(pts, target, ls, tol, cap, limits, pole, *, arc_start=True, given_lengths=False, conforming=False):
    """fabrik on checked floats: points a list of (x, y, z), target and pole (x, y, z) or
    None, ls the bone lengths. Returns (points, error, errors, prepared limits or None,
    the result as forward_limited returns it (arrays), or None without limits; its turns
    are None when no pass moved the start).
    What the rig calls: its inputs are checked when they are set, not on every frame, and
    its `limits` come as PreparedLimits (chain_frames.planned_limits, or the result of its
    last solve), made without checking them again. `conforming` says the start is known to
    meet the limits (a limited solve's own result), so within_limits need not check it."""
    n = len(pts)
    tx, ty, tz = target
    root = tuple(pts[0].tolist()) if type(pts) is np.ndarray else tuple(pts[0])
    toward = (tx - root[0], ty - root[1], tz - root[2])
    hint = None
    if pole is not None:
        hint = (pole[0] - root[0], pole[1] - root[1], pole[2] - root[2])
    if limits is None or type(limits) is PreparedLimits:
        prep = limits  # the rig's: planned_limits from its own checked inputs
    else:
        prep = prepare_limits(limits, pts, ls, toward)
    dirs = None if prep is not None else StartDirections(pts, toward)
    limited = packed = None
    if prep is not None:
        packed = packed_limits(prep)
        if given_lengths or not (conforming or within_limits(prep)):
            limited = forward_limited(pts, prep, keep_shape=True)
        else:  # already conforming (a warm start): the pass would rebuild the same points
            limited = (as_rows(pts), packed[3], packed[2], None)
        pts = limited[0]
    elif given_lengths:
        pts = place_along(root, ls, [dirs[k] for k in range(n - 1)])
    total = sum(ls)
    reach = sqrt(toward[0] * toward[0] + toward[1] * toward[1] + toward[2] * toward[2])

    if prep is None and reach > total:
        u = (toward[0] / reach, toward[1] / reach, toward[2] / reach)
        pts = place_along(root, ls, [u] * (n - 1))
        return pts, _gap(pts, tx, ty, tz), (), None, None

    err = _gap(pts, tx, ty, tz)
    if arc_start and err > tol and cap > 0:
        x, y, z = tip_of(pts)
        span_dir = (x - root[0], y - root[1], z - root[2])
        span = sqrt(span_dir[0] * span_dir[0] + span_dir[1] * span_dir[1] + span_dir[2] * span_dir[2])
        if is_straight(span, total):
            straight = (span_dir[0] / span, span_dir[1] / span, span_dir[2] / span)
            if hint is None and prep is not None:
                hint = hinge_bend_side(prep, toward)
            arc = arc_pose(root, (tx, ty, tz), ls, total, straight, hint, tol)
            arc_limited = None
            if prep is not None:
                arc_limited = forward_limited(arc, prep)
                arc = arc_limited[0]
            arc_err = _gap(arc, tx, ty, tz)
            if arc_err < err - ARC_GAIN_RELATIVE * total:
                pts, limited, err = arc, arc_limited, arc_err

    if prep is None:
        ls_rev = ls[::-1]

        def step(p):
            q = backward_pass(p, ls_rev, dirs, tx, ty, tz)
            q[-1] = root  # the root never moves: the forward pass starts from it
            q.reverse()
            p = forward_pass(q, ls, dirs)
            return p, _gap(p, tx, ty, tz)

        pts, err, errors = iterate(pts, step, err, tol, cap, STALL_RELATIVE * total)
        return pts, err, errors, None, None
    # Limited: the iterations run compiled (limited_kernel.py), from the conformed start.
    moved = limited[3] is not None
    pose = limited if moved else limited[:3] + (np.zeros((n - 1, 4)),)
    out = empty_pose(n)
    buf = np.empty(max(cap, 1))
    cones_only = "hinge" not in prep.kinds
    err, count, kept = limited_kernel().iterate(
        *pose, *packed, float(tx), float(ty), float(tz), float(err), tol, cap, STALL_RELATIVE * total,
        CONES_CCD_WHEN_ABOVE if cones_only else CCD_WHEN_ABOVE, LIMITED_STALL, OUT_OF_REACH_STALL, cones_only, buf, *out,
    )  # fmt: skip
    if kept:
        limited = out  # else it stays as it came: turns None when no pass moved the start
    return limited[0], err, tuple(buf[:count].tolist()), prep, limited


def empty_pose(n: int) -> tuple:
    """Arrays for a limited pose of n points: points, hinge axes, directions, turns."""
    return np.empty((n, 3)), np.empty((n - 1, 3)), np.empty((n - 1, 3)), np.empty((n - 1, 4))


def forward_limited(aim, prep: PreparedLimits, keep_shape: bool = False) -> tuple:
    """FABRIK's forward pass with limits, compiled (limited_kernel.forward): from the root
    aim[0], each bone aimed at the next point of `aim` and clamped relative to its placed
    parent, the frame turns carried along (with keep_shape, each bone aims where its frame
    already points: that conforms a start pose to lengths and limits). Returns (points,
    hinge axes, directions, turns) as (n, 3), (n - 1, 3), (n - 1, 3), (n - 1, 4) arrays."""
    out = empty_pose(len(aim))
    limited_kernel().forward_into(as_rows(aim), *packed_limits(prep), keep_shape, *out)
    return out


def iterate(state, step, error, tolerance, cap, min_gain):
    """The shared loop (as Godot's IK nodes have it): the solver supplies
    `step(state) -> (new_state, new_error)`; stop within tolerance, at the cap, or when a
    step gains no more than min_gain. A step that would raise the error is dropped and ends
    the loop, its entry repeating the kept error, so the errors never grow. (The limited
    loop, limited_kernel.iterate, is this one with its stall ratios added.)"""
    errors = []
    while error > tolerance and len(errors) < cap:
        new_state, new_error = step(state)
        if new_error > error:
            errors.append(error)
            break
        errors.append(new_error)
        gain = error - new_error
        state, error = new_state, new_error
        if gain <= min_gain:
            break
    return state, error, tuple(errors)


def backward_pass(pts, ls_rev, dirs, tx, ty, tz) -> list:
    """Tip onto the target, then each joint pulled toward its old place, tip to root.
    Returns the new points tip first."""
    x1, y1, z1 = tx, ty, tz
    out = [(tx, ty, tz)]
    k = len(pts) - 1
    for (x, y, z), l in zip(pts[-2::-1], ls_rev):
        k -= 1
        dx = x - x1
        dy = y - y1
        dz = z - z1
        d = sqrt(dx * dx + dy * dy + dz * dz)
        if d > TINY:
            s = l / d
            x1 += dx * s
            y1 += dy * s
            z1 += dz * s
        else:  # the joint sits on its child: keep the bone's start direction
            u = dirs[k]
            x1 -= l * u[0]
            y1 -= l * u[1]
            z1 -= l * u[2]
        out.append((x1, y1, z1))
    return out


def forward_pass(aim, ls, dirs) -> list:
    """From the root aim[0] (the chain root, which never moves), each joint pulled toward
    its place in `aim`, root to tip. Returns the new points."""
    x0, y0, z0 = aim[0]
    out = [(x0, y0, z0)]
    k = -1
    for (x, y, z), l in zip(aim[1:], ls):
        k += 1
        dx = x - x0
        dy = y - y0
        dz = z - z0
        d = sqrt(dx * dx + dy * dy + dz * dz)
        if d > TINY:
            s = l / d
            x0 += dx * s
            y0 += dy * s
            z0 += dz * s
        else:
            u = dirs[k]
            x0 += l * u[0]
            y0 += l * u[1]
            z0 += l * u[2]
        out.append((x0, y0, z0))
    return out


class StartDirections:
    """The start pose's bone directions (bone_directions), the fallback when a pass finds a
    joint on top of the next one. Rarely needed, so worked out on first use."""

    __slots__ = ("_start", "_toward", "_dirs")

    def __init__(self, pts, toward):
        self._start = pts
        self._toward = toward
        self._dirs = None

    def __getitem__(self, k):
        if self._dirs is None:
            self._dirs = bone_directions(self._start, toward=self._toward)
        return self._dirs[k]


def measure_lengths(pts) -> list:
    out = []
    x0, y0, z0 = pts[0]
    for x1, y1, z1 in pts[1:]:
        dx = x1 - x0
        dy = y1 - y0
        dz = z1 - z0
        out.append(sqrt(dx * dx + dy * dy + dz * dz))
        x0, y0, z0 = x1, y1, z1
    return out


def place_along(root, ls, dirs) -> list:
    """The chain rebuilt from its root with these bone lengths and directions."""
    x, y, z = root
    out = [(x, y, z)]
    for l, u in zip(ls, dirs):
        x += l * u[0]
        y += l * u[1]
        z += l * u[2]
        out.append((x, y, z))
    return out


def limited_kernel():
    """The compiled limited passes, imported on first use: numba's import costs ~1 s, which
    only a limited solve should pay."""
    global _kernel
    if _kernel is None:
        from . import limited_kernel as kernel

        _kernel = kernel
    return _kernel


_kernel = None


def as_rows(pts) -> np.ndarray:
    return pts if type(pts) is np.ndarray else np.array(pts, dtype=np.float64)


def _to_array(pts) -> np.ndarray:
    return np.fromiter(chain.from_iterable(pts), np.float64, 3 * len(pts)).reshape(-1, 3)


def tip_of(pts) -> tuple:
    """The last point as floats, from a list of points or a limited pass's (n, 3) array (whose
    elements would otherwise make every later operation a numpy call)."""
    return tuple(pts[-1].tolist()) if type(pts) is np.ndarray else pts[-1]


def _gap(pts, tx, ty, tz) -> float:
    x, y, z = tip_of(pts)
    dx = x - tx
    dy = y - ty
    dz = z - tz
    return sqrt(dx * dx + dy * dy + dz * dz)


# Input checks: every public entry point turns bad input into one clear ValueError.


def read_points(points):
    """(n, 3) points as a list of [x, y, z]. Finiteness is checked by the caller, on the
    bone lengths, where it costs nothing: see check_finite."""
    try:
        a = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("points must be an (n, 3) array of numbers") from None
    if a.ndim != 2 or a.shape[1] != 3 or a.shape[0] < 2:
        raise ValueError(f"points must be an (n, 3) array with n >= 2, got shape {a.shape}")
    return a.tolist()


def check_finite(points, lengths) -> None:
    """Every coordinate feeds a bone length, so NaN or inf anywhere shows in their sum;
    only then are the points searched for the culprit."""
    if isfinite(sum(lengths)):
        return
    a = np.asarray(points, dtype=np.float64)
    bad = ~np.all(np.isfinite(a), axis=1)
    if bad.any():
        row = int(np.nonzero(bad)[0][0])
        raise ValueError(f"points must be finite; row {row} is {a[row].tolist()}")
    raise ValueError("points are too far apart: bone lengths overflow float64")


def read_vec3(v, what: str):
    if type(v) is np.ndarray and v.shape == (3,) and v.dtype == np.float64:
        x, y, z = v.tolist()
    else:
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be 3 numbers, got {v!r}") from None
        if a.shape != (3,):
            raise ValueError(f"{what} must be 3 numbers, got shape {a.shape}")
        x, y, z = a.tolist()
    if not (isfinite(x) and isfinite(y) and isfinite(z)):
        raise ValueError(f"{what} must be finite, got {[x, y, z]}")
    return x, y, z


def read_lengths(lengths, m: int) -> list:
    try:
        a = np.asarray(lengths, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"lengths must be {m} numbers, got {lengths!r}") from None
    if a.shape != (m,):
        raise ValueError(f"lengths must be {m} numbers (one per bone), got shape {a.shape}")
    if not (np.all(np.isfinite(a)) and np.all(a >= 0.0)):
        raise ValueError(f"lengths must be finite and >= 0, got {a.tolist()}")
    return a.tolist()


def read_tolerance(tolerance) -> float:
    try:
        t = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"tolerance must be a number, got {tolerance!r}") from None
    if not (isfinite(t) and t >= 0.0):
        raise ValueError(f"tolerance must be finite and >= 0, got {tolerance!r}")
    return t


def read_iterations(max_iterations) -> int:
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)) or max_iterations < 0:
        raise ValueError(f"max_iterations must be an integer >= 0, got {max_iterations!r}")
    return int(max_iterations)
