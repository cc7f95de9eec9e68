"""Bone directions and frames along a chain of points, and limits expressed in them.

A point chain has no rotations, yet a hinge axis is given "in the parent bone's frame". The
frames are known where the solve starts (`ChainLimits.frames`, e.g. a skeleton's joint
rotations, or built by parallel transport from one root frame) and, as bones move, each
bone's frame is carried pass by pass by the shortest-arc turn from where its parent's turn
left it to where it now points (a CCD sweep turns the rest of the chain rigidly). The solve
hands back the frames it ended with (FabrikResult.frames, the rig's turned_locals), and a
skeleton written from them has the frames the limits were checked in.

A zero-length bone has no direction of its own: it points where its parent bone pointed
(turned with it) and never turns itself, as the skeleton write-back leaves it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._floats import TINY, Y_UP, qrot, unit_or
from .limits import (
    ConeLimit,
    HingeLimit,
    Limit,
    cone_params,
    hinge_axis,
    hinge_params,
)


@dataclass(frozen=True)
class ChainLimits:
    """Limits for `fabrik`'s point API, and where their frames are.

    joints: {joint index: HingeLimit | ConeLimit}, or a LimitPlan made from one; the index is into fabrik's points and
        the limit acts on the bone leaving that joint. A limit on the tip is ignored (no
        bone leaves it).
    root_dir: world direction of the bone entering joint 0 (the chain root's parent bone);
        required when joint 0 has a limit. It never moves: the solver never moves the root.
    root_frame: world rotation (x, y, z, w) of that parent bone's frame (a hinge on joint 0
        has its axis in it); identity when None.
    frames: (n - 1, 4) world rotations of each bone's frame at the points given to fabrik
        (for a skeleton: the world rotation of each chain joint but the tip). When None,
        they are built by parallel transport: root_frame turned by the shortest arc from
        root_dir to bone 0 (not turned when root_dir is None), then from bone to bone.
        A warm-started caller passes the previous result's `frames` back in.
    """

    joints: Mapping[int, Limit]
    root_dir: Sequence[float] | None = None
    root_frame: Sequence[float] | None = None
    frames: np.ndarray | None = None


def bone_directions(points, before=None, toward=None) -> list:
    """Unit direction of every bone of `points` (a list of (x, y, z)); a zero-length bone
    takes its parent's (`before` for bone 0), the first bones with no parent direction take
    the first real one, and a chain with no length at all points `toward` (or up)."""
    dirs = []
    prev = before
    x0, y0, z0 = points[0]
    for x1, y1, z1 in points[1:]:
        u = unit_or((x1 - x0, y1 - y0, z1 - z0), None)
        if u is not None:
            prev = u
        dirs.append(prev)
        x0, y0, z0 = x1, y1, z1
    first = next((u for u in dirs if u is not None), None)
    if first is None:
        first = unit_or(toward, Y_UP) if toward is not None else Y_UP
    return [first if u is None else u for u in dirs]


class PreparedLimits:
    """One solve's limits, in floats: per bone its clamp, reference direction and axis."""

    __slots__ = ("kinds", "params", "ref_dirs", "ref_axes", "root_dir", "frames", "lengths", "packed")

    def __init__(self, kinds, params, ref_dirs, ref_axes, root_dir, frames, lengths, packed=None):
        self.kinds = kinds  # per bone: None, "cone" or "hinge"
        self.params = params
        self.ref_dirs = ref_dirs  # bone directions where the frames are known (or an (m, 3) array)
        self.ref_axes = ref_axes  # hinge axes in world space there (or an (m, 3) array)
        self.root_dir = root_dir
        self.frames = frames  # bone frames there
        self.lengths = lengths
        # kinds, params, root_dir and lengths as packed_limits gives them: they stay the same
        # from solve to solve of a chain, so a warm start hands them on.
        self.packed = packed


def packed_limits(prep: PreparedLimits) -> tuple:
    """prep as the compiled passes (fabrik_kernel.py) take it: (kind codes, params (m, 2),
    ref_dirs (m, 3), ref_axes (m, 3), root_dir (3,), lengths (m,)) arrays."""
    if prep.packed is None:
        m = len(prep.kinds)
        kinds = np.zeros(m, np.int64)
        params = np.zeros((m, 2))
        for k, kind in enumerate(prep.kinds):
            if kind is not None:
                kinds[k] = _KIND_CODES[kind] if prep.params[k] is not None else _FREE_CONE
                params[k] = prep.params[k] if prep.params[k] is not None else 0.0
        root_dir = np.zeros(3) if prep.root_dir is None else np.array(prep.root_dir, dtype=np.float64)
        prep.packed = (kinds, params, root_dir, np.array(prep.lengths, dtype=np.float64))
    kinds, params, root_dir, lengths = prep.packed
    dirs, axes = prep.ref_dirs, prep.ref_axes
    if type(dirs) is not np.ndarray:
        dirs = np.array(dirs, dtype=np.float64)
    if type(axes) is not np.ndarray:
        axes = np.array([(0.0, 0.0, 0.0) if a is None else a for a in axes], dtype=np.float64)
    return kinds, params, dirs, axes, root_dir, lengths


# fabrik_kernel's NONE, CONE, HINGE, FREE_CONE (written here so the codes need no numba import).
_KIND_CODES = {"cone": 1, "hinge": 2}
_FREE_CONE = 3


class LimitPlan:
    """The part of a chain's limits that does not depend on the pose, validated once:
    per bone its kind (None, "cone", "hinge"), clamp parameters and unit hinge axis in the
    parent bone's frame. `plan_limits` makes one; pass it as ChainLimits.joints (or as
    `limits=`) to skip the validation on every solve: the rig keeps one per chain and
    makes a new one only when the chain's limits change."""

    __slots__ = ("n", "kinds", "params", "local_axes", "on_root", "_rows")

    def __init__(self, n, kinds, params, local_axes):
        self.n = n
        self.kinds, self.params, self.local_axes = kinds, params, local_axes
        self.on_root = kinds[0] is not None
        self._rows = None

    def rows(self) -> np.ndarray:
        """The plan as the compiled single-chain solve reads it (single_kernel.py): per bone
        (kind code, two parameters, unit hinge axis in the parent bone's frame), (n - 1, 6);
        packed on first use and kept (a plan does not change): not to be written to (numba's
        typed entry points take no read-only array)."""
        if self._rows is None:
            rows = np.zeros((self.n - 1, 6))
            for k, kind in enumerate(self.kinds):
                if kind is not None:
                    par = self.params[k]
                    rows[k, 0] = _KIND_CODES[kind] if par is not None else _FREE_CONE
                    rows[k, 1:3] = 0.0 if par is None else par
                    if self.local_axes[k] is not None:
                        rows[k, 3:6] = self.local_axes[k]
            self._rows = rows
        return self._rows


def plan_limits(joints, n: int) -> LimitPlan | None:
    """Validate {joint index: limit} for an n-point chain; None when no limit is in play."""
    if isinstance(joints, LimitPlan):
        if joints.n != n:
            raise ValueError(f"these limits were planned for a {joints.n}-point chain, not a {n}-point one")
        return joints
    if not isinstance(joints, Mapping):
        raise ValueError(f"ChainLimits.joints must map joint index -> limit, got {type(joints).__name__}")
    kinds = [None] * (n - 1)
    params = [None] * (n - 1)
    local_axes = [None] * (n - 1)
    any_active = False
    for key, lim in joints.items():
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or not 0 <= key < n:
            raise ValueError(f"limit key {key!r} is not a joint index of this {n}-point chain")
        if lim is None:
            continue
        if isinstance(lim, ConeLimit):
            kind, par, axis = "cone", cone_params(lim), None
        elif isinstance(lim, HingeLimit):
            kind, par, axis = "hinge", hinge_params(lim), unit_or(lim.axis, None)
        else:
            raise ValueError(f"limit on joint {key}: must be a HingeLimit or a ConeLimit, got {type(lim).__name__}")
        if key < n - 1:
            k = int(key)
            kinds[k], params[k], local_axes[k] = kind, par, axis
            any_active = True
    return LimitPlan(n, kinds, params, local_axes) if any_active else None


def planned_limits(plan: LimitPlan, ref_dirs, lengths, root_dir, root_frame, frames) -> PreparedLimits:
    """The per-solve part of a chain's limits (what single_kernel.solve_chain does compiled
    for fabrik() and ccd()), for inputs already checked: the start pose's
    bone directions (bone_directions), bone lengths, unit root_dir (or None when joint 0
    has no limit), root_frame and the bones' frames there. Frames are read only for
    hinges (a cone needs none), so a caller with no hinge may pass None; the result then
    has no frames to give solved_frames. The rig calls this every frame with its chain's
    plan and the frames of its warm start, which it builds itself."""
    kinds = list(plan.kinds)
    ref_axes = [None] * len(kinds)
    for k, kind in enumerate(plan.kinds):
        if kind is None:
            continue
        if lengths[k] <= TINY:
            kinds[k] = None  # a zero-length bone cannot point anywhere wrong
        elif kind == "hinge":
            parent = root_dir if k == 0 else ref_dirs[k - 1]
            axis = qrot(root_frame if k == 0 else frames[k - 1], plan.local_axes[k])
            if hinge_axis(axis, parent) is None:
                raise ValueError(f"hinge on joint {k}: its axis is parallel to the parent bone, leaving no plane to bend in")
            ref_axes[k] = axis
    return PreparedLimits(kinds, plan.params, ref_dirs, ref_axes, root_dir, frames, lengths)
