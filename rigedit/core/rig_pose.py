"""A rig's solved pose as plain data, to save it and put it back (issue 13).

What a frame shows depends on history: every chain warm-starts from its own last solution
(rig_chain.ChainState), so a limited chain, an unreachable target or a limb without a pole
lands where its past solves led it, and a fresh solve of the same settings lands elsewhere.
A saved rig therefore keeps each chain's last solution (`SolvedChain`) and opening it puts
those back (`Rig.restore_state`): the first solve takes each chain's rotations as they were,
on its base as the rig builds it, instead of solving again, and a later solve warm-starts
from them exactly as the saved rig would have.

A solution that does not fit its chain (an edited file: another joint count, a target or
bones moved so the rotations no longer put the tip where the saved error says) is dropped,
and that chain is solved afresh from the animated pose, as a rig without a saved pose is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from . import scalar_quat as sq
from .ik.chain_frames import PreparedLimits, packed_limits
from .rig_chain import ChainState, LimitedWarm, SolveInputs
from .bone_turns import chain_pose

# A saved solution fits its chain when its rotations put the tip within this of where the
# saved error says (metres, plus the same again per metre of chain and target distance):
# the write-back's round-off is ~1e-15 of the chain's size, an edit to a target or a bone
# in a file is at least a written decimal.
FIT_M = 1e-7


@dataclass(frozen=True)
class LimitedStart:
    """A limited FABRIK chain's next warm start as its last solve left it: the solved
    points (n, 3), its bones' world frames (n - 1, 4) and its limits' reference bone
    directions and hinge axes there (n - 1, 3 each; zero where a joint has none)."""

    points: np.ndarray
    frames: np.ndarray
    dirs: np.ndarray
    axes: np.ndarray


@dataclass(frozen=True)
class SolvedChain:
    """A chain's last solution: its IK local rotations (x, y, z, w; every joint but the
    tip), the tip's error and whether it reached, whether solving the same again could
    change anything (`settled`: False for FABRIK still closing in, which the next solve
    takes on), and a limited chain's warm start."""

    rotations: tuple
    error: float
    reached: bool
    settled: bool
    limited: LimitedStart | None = None


@dataclass(frozen=True, eq=False)  # arrays: compared by identity
class FullBodySolution:
    """The full-body solve's last result (rig_full_body.py) at weight 1: every joint's local
    rotation (J, 4), the root's translation (3,), and each chain's tip error then (metres,
    by chain name), which says whether it still fits the rig's goals."""

    rotations: np.ndarray
    root: np.ndarray
    errors: Mapping[str, float]


@dataclass(frozen=True)
class SolvedPose:
    """Every chain's last solution, by chain name (chains never solved are not there), and
    the whole body's when the rig was last solved with full_body on."""

    chains: Mapping[str, SolvedChain] = field(default_factory=dict)
    full_body: FullBodySolution | None = None


def exported(state: ChainState) -> SolvedChain:
    """A chain state as data (sharing its arrays: states are never changed in place)."""
    if isinstance(state, PendingState):
        return state.saved
    limited = None
    start = state.start
    if start is not None:
        ready = start.prepared
        axes = ready.ref_axes
        if type(axes) is not np.ndarray:
            axes = [(0.0, 0.0, 0.0) if a is None else a for a in axes]
        limited = LimitedStart(_rows(start.points, 3), _rows(start.frames, 4), _rows(ready.ref_dirs, 3), _rows(axes, 3))
    return SolvedChain(tuple(tuple(q) for q in state.ik), float(state.error), bool(state.reached), bool(state.final), limited)


def _rows(value, width: int) -> np.ndarray:
    if type(value) is np.ndarray and value.dtype == np.float64 and value.ndim == 2:
        return value
    return np.asarray(value, dtype=np.float64).reshape(-1, width)


class PendingState(ChainState):
    """A saved solution put back but not yet placed: the rig's next solve places it on the
    chain's base (placed) and takes it as that frame's result."""

    __slots__ = ("saved",)

    def __init__(self, saved: SolvedChain) -> None:
        super().__init__([tuple(q) for q in saved.rotations], None, None, saved.error, saved.reached, saved.settled)
        self.saved = saved


def pending(rig, solved: SolvedPose) -> dict[str, ChainState]:
    """The states to put back: one per saved solution that fits its chain's shape (a
    chain of the rig, not look_at, one rotation per joint but the tip, a limited start
    only on a limited FABRIK chain, everything finite and unit where it must be)."""
    out: dict[str, ChainState] = {}
    for name, saved in solved.chains.items():
        if name in rig.chain_names and fits_shape(rig.chain(name), saved):
            out[name] = PendingState(saved)
    return out


def fits_shape(ch, saved: SolvedChain) -> bool:
    # Plain floats, not numpy: the editor puts every solve's snapshot back on its own rig.
    m = len(ch.joints) - 1
    if ch._kind.aims or len(saved.rotations) != m:
        return False
    for q in saved.rotations:
        if len(q) != 4:
            return False
        n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
        if not abs(n2 - 1.0) <= 2e-9:  # also refuses NaN
            return False
    if not (math.isfinite(saved.error) and saved.error >= 0.0):
        return False
    lim = saved.limited
    if lim is None:
        return True
    if ch._kind.closed_form or not ch.limits:  # only an iterative chain keeps a limited warm start
        return False
    shapes = (lim.points.shape, lim.frames.shape, lim.dirs.shape, lim.axes.shape)
    if shapes != ((m + 1, 3), (m, 4), (m, 3), (m, 3)):
        return False
    # A sum is finite only when every term is (no overflow at these sizes).
    return all(math.isfinite(float(a.sum())) for a in (lim.points, lim.frames, lim.dirs, lim.axes))


def placed(state: ChainState, ch, inputs: SolveInputs, setup) -> ChainState | None:
    """A pending saved solution as the chain's state on the base in `inputs`, or None when
    it does not fit there: its rotations must put the tip where its saved error says."""
    saved = state.saved
    base_pos, base_rot, offsets = inputs.base_pos, inputs.base_rot, inputs.offsets
    points, _ = chain_pose(base_pos, base_rot, offsets, state.ik)
    size = 1.0 + setup.total + sq.dist(points[0], ch._target)
    if abs(sq.dist(points[-1], ch._target) - saved.error) > FIT_M * size:
        return None
    start = None
    if saved.limited is not None:
        if setup.plan is None:
            return None
        start = LimitedWarm(base_pos, base_rot, offsets, *_limited_start(saved.limited, setup, base_rot, offsets))
    return ChainState(state.ik, inputs, ch._limit_key, saved.error, saved.reached, saved.settled, start)


def _limited_start(lim: LimitedStart, setup, base_rot, offsets) -> tuple:
    """(points, frames, PreparedLimits) as rig_chain.solve_chain keeps them for a limited
    warm start: the limits' per-chain part from the chain's plan (what planned_limits
    gives), their reference directions and axes as the saved solve left them."""
    pts = lim.points
    lengths = [float(v) for v in np.sqrt(np.sum((pts[1:] - pts[:-1]) ** 2, axis=1))]
    kinds = [None if kind is not None and lengths[k] <= sq.TINY else kind for k, kind in enumerate(setup.plan.kinds)]
    root_dir = sq.unit_or(sq.qrot(base_rot, offsets[0]), None) if setup.root_limited else None
    ready = PreparedLimits(kinds, setup.plan.params, lim.dirs.copy(), lim.axes.copy(), root_dir, None, lengths)
    packed_limits(ready)  # fills ready.packed, which a warm start hands on
    return pts.copy(), lim.frames.copy(), ready
