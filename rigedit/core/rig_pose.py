"""A rig's solved pose as plain data, to save it and put it back (issue 13).

What a frame shows depends on history: every chain warm-starts from its own last solution
(rig_chain.ChainState), so a limited chain, an unreachable target or a limb without a pole
lands where its past solves led it, and a fresh solve of the same settings lands elsewhere.
A saved rig therefore keeps each chain's last solution (`SolvedChain`) with what it was
solved for: the base it stood on and whether the chain's settings and animated offsets are
still the ones it was solved with (`current`). Opening it (`Rig.restore_state`) puts each
back as the state the saving rig had (`put_back`) and shows those rotations without
solving (the compiled frame's show, rig_frame.py), and the next solve goes on from them
exactly as the saving rig's would: a current solution on an unchanged base is that
solve's answer when it was final (and its warm start when FABRIK was still closing in); a
solution of other settings is only the warm start of their solve, never their answer.

A current solution that does not fit its chain (an edited file: another joint count, a
target or bones moved so the rotations no longer put the tip where the saved error says)
is dropped, and that chain is solved afresh from the animated pose, as a rig without a
saved pose is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from . import scalar_quat as sq
from .ik.chain_frames import PreparedLimits, packed_limits
from .rig_chain import ChainState, LimitedWarm, SolveInputs, make
from .chain_setup import ChainSetup
from .skeleton import Pose
from .bone_turns import chain_pose

# A saved solution fits its chain when its rotations put the tip within this of where the
# saved error says (metres, plus the same again per metre of chain and target distance):
# the write-back's round-off is ~1e-15 of the chain's size, an edit to a target or a bone
# in a file is at least a written decimal.
FIT_M = 1e-7


@dataclass(frozen=True, eq=False)  # arrays: compared by value below
class LimitedStart:
    """A limited FABRIK chain's next warm start as its last solve left it: the solved
    points (n, 3), its bones' world frames (n - 1, 4) and its limits' reference bone
    directions and hinge axes there (n - 1, 3 each; zero where a joint has none), and the
    bone lengths its limits were prepared with (n - 1; None: an older file, taken from the
    points, which differ from them by round-off)."""

    points: np.ndarray
    frames: np.ndarray
    dirs: np.ndarray
    axes: np.ndarray
    lengths: tuple | None = None  # floats: compared by value

    def __eq__(self, other) -> bool:
        if not isinstance(other, LimitedStart):
            return NotImplemented
        mine, theirs = (self.points, self.frames, self.dirs, self.axes), (other.points, other.frames, other.dirs, other.axes)
        return self.lengths == other.lengths and all(np.array_equal(a, b) for a, b in zip(mine, theirs))

    __hash__ = None


@dataclass(frozen=True)
class SolvedChain:
    """A chain's last solution: its IK local rotations (x, y, z, w; every joint but the
    tip), the tip's error and whether it reached, whether solving the same again could
    change anything (`settled`: False for FABRIK still closing in, which the next solve
    takes on), and a limited chain's warm start. `base`: the world position and rotation
    (x, y, z, qx, qy, qz, qw) of the chain root's parent it was solved on (None: not known,
    an older file: taken as the base the rig builds); `current`: solved with the chain's
    settings, limits and animated offsets as they are (False: only a warm start)."""

    rotations: tuple
    error: float
    reached: bool
    settled: bool
    limited: LimitedStart | None = None
    base: tuple | None = None
    current: bool = True


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class FullBodySolution:
    """The full-body solve's last result (rig_full_body.py) at weight 1: every joint's local
    rotation (J, 4), the root's translation (3,), and each chain's tip error then (metres,
    by chain name), which says whether it still fits the rig's goals; `current`: solved for
    the goals and settings as they are (False: only the next solve's start); `warm_start`:
    solved for the chains and limits as they are (False: not even that, only shown)."""

    rotations: np.ndarray
    root: np.ndarray
    errors: Mapping[str, float]
    current: bool = True
    warm_start: bool = True
    anim_root: tuple | None = None  # the animated root's translation and rotation (7 floats) it was solved over


@dataclass(frozen=True)
class SolvedPose:
    """Every chain's last solution, by chain name (chains never solved are not there), and
    the whole body's when the rig was last solved with full_body on."""

    chains: Mapping[str, SolvedChain] = field(default_factory=dict)
    full_body: FullBodySolution | None = None


class _Stale:
    """Settings a solution was not solved with: equal to no chain's (a saved solution of
    other settings is their warm start, never their answer)."""

    __slots__ = ()

    def __eq__(self, other) -> bool:
        return False

    __hash__ = object.__hash__


STALE = _Stale()


def exported(state: ChainState, now: tuple) -> SolvedChain:
    """A chain state as data (sharing its arrays: states are never changed in place).
    `now`: the chain's (offsets, settings, limits) as they are (solved_for's order)."""
    inputs = state.inputs
    then = (inputs.offsets, inputs.settings, state.limits)
    saved = SolvedChain(tuple(tuple(q) for q in state.ik), float(state.error), bool(state.reached),
                        bool(state.final), _limited(state.start), tuple(inputs.base_pos) + tuple(inputs.base_rot))
    current = then[0] == now[0] and then[1] == now[1] and then[2] == now[2]
    # A limited warm start is used only on the offsets and limits it was made with.
    keep = saved.limited is not None and then[0] == now[0] and then[2] == now[2]
    if current == saved.current and keep == (saved.limited is not None):
        return saved
    return _replace(saved, current=current, limited=saved.limited if keep else None)


def _replace(saved: SolvedChain, **kw) -> SolvedChain:
    fields = dict(saved.__dict__)
    fields.update(kw)
    return SolvedChain(**fields)


def _limited(start: LimitedWarm | None) -> LimitedStart | None:
    if start is None:
        return None
    ready = start.prepared
    axes = ready.ref_axes
    if type(axes) is not np.ndarray:
        axes = [(0.0, 0.0, 0.0) if a is None else a for a in axes]
    lengths = tuple(float(v) for v in ready.lengths)
    return LimitedStart(_rows(start.points, 3), _rows(start.frames, 4), _rows(ready.ref_dirs, 3), _rows(axes, 3), lengths)


def _rows(value, width: int) -> np.ndarray:
    if type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == 2:
        return value
    return np.asarray(value, dtype=np.float64).reshape(-1, width)


def put_back(rig, solved: SolvedPose, now: dict, anim) -> dict[str, ChainState]:
    """The rig's states from saved solutions: each one that fits its chain's shape (a
    chain of the rig, not look_at, one rotation per joint but the tip, a limited start
    only on a limited loop-solver chain, everything finite and unit where it must be) and,
    where current, its chain (`placed`). `now`: each chain's (offsets, settings, limits)
    as the rig has them, what a solution is taken to be solved for (settings STALE where it
    was not current); `anim`: the animated frame, whose pose gives the base of a solution
    saved without one (an older file)."""
    out: dict[str, ChainState] = {}
    world = None
    for name, saved in solved.chains.items():
        if name not in rig.chain_names or not fits_shape(rig.chain(name), saved):
            continue
        ch = rig.chain(name)
        offsets, settings, limits = now[name]
        base = saved.base
        if base is None:
            if world is None:
                world = rig.skeleton.fk(Pose(np.asarray(anim.rot, dtype=np.float64).reshape(-1, 4), anim.translations))
            base = _base_in(world, rig.plans[name].parent)
        state = placed(saved, ch, (offsets, settings if saved.current else STALE, limits), base, ChainSetup(ch, offsets))
        if state is not None:
            out[name] = state
    return out


def _base_in(world: tuple, parent: int) -> tuple:
    """(x, y, z, qx, qy, qz, qw) of joint `parent` in the world FK `world` (the origin for none)."""
    if parent < 0:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    pos, rot = world
    return tuple(pos[parent].tolist()) + tuple(rot[parent].tolist())


def fits_shape(ch, saved: SolvedChain) -> bool:
    # Plain floats, not numpy: the editor puts every solve's snapshot back on its own rig.
    m = len(ch.joints) - 1
    if not ch.kind.reaches or len(saved.rotations) != m:
        return False
    for q in saved.rotations:
        if len(q) != 4:
            return False
        n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
        if not abs(n2 - 1.0) <= 2e-9:  # also refuses NaN
            return False
    if not (math.isfinite(saved.error) and saved.error >= 0.0):
        return False
    if saved.base is not None and not (len(saved.base) == 7 and all(math.isfinite(v) for v in saved.base)):
        return False
    lim = saved.limited
    if lim is None:
        return True
    if not ch.kind.method.warm_limited or not ch.limits:  # only a loop solver keeps a limited warm start
        return False
    shapes = (lim.points.shape, lim.frames.shape, lim.dirs.shape, lim.axes.shape)
    if shapes != ((m + 1, 3), (m, 4), (m, 3), (m, 3)):
        return False
    if lim.lengths is not None and (len(lim.lengths) != m or not all(v >= 0.0 for v in lim.lengths)):
        return False
    # A sum is finite only when every term is (no overflow at these sizes).
    return all(math.isfinite(float(a.sum())) for a in (lim.points, lim.frames, lim.dirs, lim.axes))


def placed(saved: SolvedChain, ch, solved_for: tuple, base: tuple, setup) -> ChainState | None:
    """A saved solution as the state the saving rig had: solved on `base` for `solved_for`
    ((offsets, settings, limits)), so the next solve compares it with its inputs as that rig
    would. None when a current solution does not fit there (an edited file): its rotations
    must put the tip where its saved error says."""
    offsets, settings, limits = solved_for
    base_pos, base_rot = tuple(base[:3]), tuple(base[3:])
    ik = [tuple(q) for q in saved.rotations]
    if settings is not STALE:
        target = settings[1]
        points, _ = chain_pose(base_pos, base_rot, offsets, ik)
        size = 1.0 + setup.total + sq.dist(points[0], target)
        if abs(sq.dist(points[-1], target) - saved.error) > FIT_M * size:
            return None
    start = None
    if saved.limited is not None:
        if setup.plan is None:
            return None
        start = LimitedWarm(base_pos, base_rot, offsets, *_limited_start(saved.limited, setup, base_rot, offsets))
    solved_on = make(SolveInputs, (base_pos, base_rot, offsets, settings))
    return ChainState(ik, solved_on, limits, saved.error, saved.reached, saved.settled, start)


def _limited_start(lim: LimitedStart, setup, base_rot, offsets) -> tuple:
    """(points, frames, PreparedLimits) as a limited warm start keeps them (LimitedWarm): the limits' per-chain part from the chain's plan (what planned_limits
    gives), their reference directions and axes as the saved solve left them."""
    pts = lim.points
    if lim.lengths is not None:
        lengths = list(lim.lengths)
    else:
        lengths = [float(v) for v in np.sqrt(np.sum((pts[1:] - pts[:-1]) ** 2, axis=1))]
    kinds = [None if kind is not None and lengths[k] <= sq.TINY else kind for k, kind in enumerate(setup.plan.kinds)]
    root_dir = sq.unit_or(sq.qrot(base_rot, offsets[0]), None) if setup.root_limited else None
    ready = PreparedLimits(kinds, setup.plan.params, lim.dirs.copy(), lim.axes.copy(), root_dir, None, lengths)
    packed_limits(ready)  # fills ready.packed, which a warm start hands on
    return pts.copy(), lim.frames.copy(), ready
