"""A rig: a skeleton, its animated pose, and ordered IK chains solved and blended one frame at a time.

Solving a frame: start from the animated pose (the clip at `time`, or the rest pose); for each
chain in order, find the world transform of the chain root's parent in the pose built so far
(so an arm sees the solved spine), warm-start the solver from the chain's OWN last IK solution
(its local rotations put back on the current parent), turn each bone of the current pose
toward the solved positions by the shortest arc, and slerp those IK rotations with the
current ones by the chain's weight. The chain walk is plain floats (see scalar_quat.py): a
full FK per chain would cost more than the solvers.
"""
from __future__ import annotations

import copy as _copy
import math
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

from . import scalar_quat as sq
from .chain import Chain, ChainReport, check_finite, fmt
from .clip import Clip
from .ik.limits import Limit
from .skeleton import Pose, Skeleton
from .timeline import Timeline
from .transforms import quat_slerp

try:  # TEMPORARY until rigedit.core.ik exports the solvers
    from .ik import fabrik, two_bone_ik  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    from ._ik_standin import fabrik, two_bone_ik

# Bundled presets live beside the package: <checkout>/resources/presets.
BUNDLED_PRESETS = Path(__file__).resolve().parents[2] / "resources" / "presets"

# Reading and writing files is the io layer's job and core never imports io (the layering
# contract), so rigedit.io.preset registers its reader and writer here when imported
# (rigedit/__init__.py imports it, so `import rigedit` is enough).
_preset_reader: Callable[[str | Path], "Rig"] | None = None
_preset_writer: Callable[["Rig", str | Path], None] | None = None


def register_preset_io(reader: Callable[[str | Path], "Rig"], writer: Callable[["Rig", str | Path], None]) -> None:
    global _preset_reader, _preset_writer
    _preset_reader, _preset_writer = reader, writer


class Rig:
    def __init__(
        self,
        skeleton: Skeleton,
        chains: Iterable[Chain] = (),
        *,
        clip: Clip | None = None,
        time: float = 0.0,
        timeline=None,
        name: str = "",
    ) -> None:
        self._skeleton = skeleton
        self._parents = [int(p) for p in skeleton.parents]
        self._children = [[] for _ in skeleton.names]
        for j, p in enumerate(self._parents):
            if p >= 0:
                self._children[p].append(j)
        self._chains: dict[str, Chain] = {}
        self._plans: dict[str, _Plan] = {}
        self._ik_local: dict[str, list] = {}
        self._clip: Clip | None = None
        self._time = 0.0
        self.clip = clip
        self.time = time
        self.timeline = Timeline() if timeline is None else timeline  # keyed curves; opaque to the solver
        self.name = name
        self._pose = self.animated_pose()
        self._world_cache: np.ndarray | None = None
        for ch in chains:
            self._insert(ch)

    # --- files ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> "Rig":
        """Read a JSON preset; rigedit.PresetError names the file, field path and problem."""
        return _reader()(path)

    @classmethod
    def default(cls) -> "Rig":
        """The bundled humanoid."""
        return _reader()(BUNDLED_PRESETS / "humanoid.json")

    def save(self, path: str | Path) -> None:
        """Write a JSON preset atomically; the previous file is kept as NAME.json.bak."""
        if _preset_writer is None:
            raise RuntimeError("no preset writer registered: import rigedit (or rigedit.io.preset) first")
        _preset_writer(self, path)

    # --- structure -------------------------------------------------------------------------

    @property
    def skeleton(self) -> Skeleton:
        return self._skeleton

    @property
    def chain_names(self) -> list[str]:
        return list(self._chains)

    @property
    def chains(self) -> tuple[Chain, ...]:
        return tuple(self._chains.values())

    def chain(self, name: str) -> Chain:
        try:
            return self._chains[name]
        except KeyError:
            raise KeyError(f"no chain named {name!r} (chains: {', '.join(self._chains) or 'none'})") from None

    def add_chain(
        self,
        name: str,
        joints: Iterable[str],
        *,
        solver: str = "fabrik",
        target=None,
        pole=None,
        tolerance: float | None = None,
        max_iterations: int | None = None,
        weight: float = 1.0,
        limits: Mapping[str, Limit] | None = None,
    ) -> Chain:
        """Append a chain solved after the existing ones. The target defaults to where the
        chain's tip is now, so adding a chain changes no pose."""
        joints = list(joints)
        if target is None:
            self._check_joints(name, joints)
            target = self.world_position(joints[-1])
        kw = {}
        if tolerance is not None:
            kw["tolerance"] = tolerance
        if max_iterations is not None:
            kw["max_iterations"] = max_iterations
        ch = Chain(name, joints, solver=solver, target=target, pole=pole, weight=weight, limits=limits, **kw)
        self._insert(ch)
        return ch

    def remove_chain(self, name: str) -> None:
        self.chain(name)
        del self._chains[name], self._plans[name]
        self._ik_local.pop(name, None)

    def _check_joints(self, name: str, joints: list[str]) -> list[int]:
        try:
            return self._skeleton.chain_indices(joints)
        except (KeyError, ValueError) as e:
            raise ValueError(f"chain {name!r}: {e.args[0] if e.args else e}") from None

    def _insert(self, ch: Chain) -> None:
        if ch.name in self._chains:
            raise ValueError(f"a chain named {ch.name!r} already exists")
        idx = self._check_joints(ch.name, list(ch.joints))
        below, stack = [], [idx[0]]
        while stack:
            j = stack.pop()
            below.append(j)
            stack.extend(self._children[j])
        self._chains[ch.name] = ch
        self._plans[ch.name] = _Plan(idx, self._parents[idx[0]], below)

    # --- animation input -------------------------------------------------------------------

    @property
    def clip(self) -> Clip | None:
        return self._clip

    @clip.setter
    def clip(self, clip: Clip | None) -> None:
        if clip is not None and clip.rotations.shape[1] != len(self._skeleton):
            raise ValueError(f"clip has {clip.rotations.shape[1]} joints, the skeleton {len(self._skeleton)}")
        self._clip = clip

    @property
    def time(self) -> float:
        return self._time

    @time.setter
    def time(self, value: float) -> None:
        try:
            self._time = check_finite(value)
        except ValueError as e:
            raise ValueError(f"time {e}") from None

    def animated_pose(self) -> Pose:
        """The pose under the IK: the clip at `time`, or the rest pose when there is no clip."""
        if self._clip is None:
            return self._skeleton.rest_pose()
        return self._clip.pose_at(self._time)

    # --- output ----------------------------------------------------------------------------

    @property
    def pose(self) -> Pose:
        """The current output pose (solved and blended); a copy."""
        return self._pose.copy()

    @pose.setter
    def pose(self, pose: Pose) -> None:
        """Adopt a pose solved elsewhere (the editor's solver thread hands poses back)."""
        n = len(self._skeleton)
        rot = np.array(pose.rotations, dtype=np.float64)
        trans = np.array(pose.translations, dtype=np.float64)
        if rot.shape != (n, 4) or trans.shape != (n, 3):
            raise ValueError(f"pose must be rotations ({n}, 4) and translations ({n}, 3), got {rot.shape} and {trans.shape}")
        if not (np.all(np.isfinite(rot)) and np.all(np.isfinite(trans))):
            raise ValueError("pose must be finite")
        self._pose = Pose(rot, trans)
        self._world_cache = None

    def world_positions(self) -> np.ndarray:
        """World positions (n, 3) of every joint in the current pose."""
        if self._world_cache is None:
            self._world_cache = self._skeleton.fk_matrices(self._pose)[0]
        return self._world_cache.copy()

    def world_position(self, joint_name: str) -> np.ndarray:
        i = self._skeleton.index(joint_name)
        if self._world_cache is None:
            self._world_cache = self._skeleton.fk_matrices(self._pose)[0]
        return self._world_cache[i].copy()

    def reset(self) -> None:
        """Back to the animated pose, forgetting every chain's warm start."""
        self._ik_local.clear()
        self._pose = self.animated_pose()
        self._world_cache = None

    def copy(self) -> "Rig":
        """A deep copy (chains, warm starts, pose, clip, timeline) that shares nothing mutable."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._skeleton = _copy.deepcopy(self._skeleton)
        other._chains = {k: ch.copy() for k, ch in self._chains.items()}
        other._plans = dict(self._plans)  # immutable plans
        other._ik_local = dict(self._ik_local)  # values are lists of tuples, never mutated in place
        other._clip = _copy.deepcopy(self._clip)
        other.timeline = _copy.deepcopy(self.timeline)
        other._pose = self._pose.copy()
        other._world_cache = None
        return other

    # --- solving ---------------------------------------------------------------------------

    def solve(self) -> dict[str, ChainReport]:
        """Solve one frame: every chain in order, then blend by weight. Returns name -> report."""
        anim = self.animated_pose()
        rot = [tuple(q) for q in anim.rotations.tolist()]
        trans = [tuple(t) for t in anim.translations.tolist()]
        world: list = [None] * len(rot)
        reports = {}
        for name, ch in self._chains.items():
            plan = self._plans[name]
            idx = plan.idx
            if plan.parent >= 0:
                base_pos, base_rot = _world_of(plan.parent, self._parents, rot, trans, world)
            else:
                base_pos, base_rot = sq.ZERO, sq.IDENTITY
            offsets = [trans[j] for j in idx]
            current = [rot[j] for j in idx[:-1]]
            warm_rots = self._ik_local.get(name, current)
            warm = _chain_positions(base_pos, base_rot, offsets, warm_rots)
            solved, iterations = _run_solver(ch, warm)
            ik = _turn_toward(base_rot, current, offsets, solved)
            self._ik_local[name] = ik
            w = ch.weight
            if w != 0.0:
                blended = ik if w == 1.0 else [tuple(q) for q in quat_slerp(np.array(current), np.array(ik), w).tolist()]
                for j, q in zip(idx, blended):
                    rot[j] = q
                for j in plan.below:
                    world[j] = None
            error = sq.dist(solved[-1], ch._target)
            reports[name] = ChainReport(name, error, iterations, error <= ch.tolerance)
        self._pose = Pose(np.array(rot, dtype=np.float64).reshape(-1, 4), anim.translations)
        self._world_cache = None
        return reports

    def __repr__(self) -> str:
        return f"Rig({self.name!r}, {len(self._skeleton)} joints, chains={self.chain_names})"


class _Plan:
    """What the solve loop needs about a chain, resolved once: joint indices root to tip, the
    root's parent (-1 for none), and every joint at or below the root (whose world transforms
    go stale when the chain turns)."""

    __slots__ = ("idx", "parent", "below")

    def __init__(self, idx: list[int], parent: int, below: list[int]) -> None:
        self.idx, self.parent, self.below = idx, parent, below


def _reader() -> Callable[[str | Path], Rig]:
    if _preset_reader is None:
        raise RuntimeError("no preset reader registered: import rigedit (or rigedit.io.preset) first")
    return _preset_reader


def _world_of(j: int, parents: list[int], rot: list, trans: list, world: list):
    """World (position, rotation) of joint j, filling the cache from the nearest known ancestor."""
    path = []
    while j >= 0 and world[j] is None:
        path.append(j)
        j = parents[j]
    pos, q = world[j] if j >= 0 else (sq.ZERO, sq.IDENTITY)
    for k in reversed(path):
        pos = sq.add(pos, sq.qrot(q, trans[k]))
        q = sq.qmul(q, rot[k])
        world[k] = (pos, q)
    return pos, q


def _chain_positions(base_pos, base_rot, offsets: list, rots: list) -> list:
    """World positions of a chain's joints from its local offsets and the rotations of all but the tip."""
    q = base_rot
    pos = sq.add(base_pos, sq.qrot(q, offsets[0]))
    out = [pos]
    for r, off in zip(rots, offsets[1:]):
        q = sq.qmul(q, r)
        pos = sq.add(pos, sq.qrot(q, off))
        out.append(pos)
    return out


def _turn_toward(base_rot, rots: list, offsets: list, solved: list) -> list:
    """Local rotations that turn each bone of the chain, by the shortest arc, from its
    direction under `rots` to the solved one: skeleton.write_chain_positions, in floats
    (a test holds the two to round-off). The twist each bone had is kept."""
    out = []
    parent_world = base_rot
    world = sq.qmul(base_rot, rots[0])
    last = len(rots) - 1
    for k in range(len(rots)):
        cur_dir = sq.qrot(world, offsets[k + 1])
        new_dir = sq.sub(solved[k + 1], solved[k])
        new_world = sq.qnormalize(sq.qmul(sq.qbetween(cur_dir, new_dir), world))
        out.append(sq.qnormalize(sq.qmul(sq.qconj(parent_world), new_world)))
        if k < last:
            parent_world = new_world
            world = sq.qnormalize(sq.qmul(new_world, rots[k + 1]))
    return out


def _run_solver(ch: Chain, warm: list) -> tuple[list, int]:
    target = ch._target
    if ch.solver == "two_bone":
        r = two_bone_ik(warm[0], warm[1], warm[2], target, ch._pole, eps=_two_bone_eps(ch))
        return [warm[0], tuple(r.mid.tolist()), tuple(r.end.tolist())], 0
    r = fabrik(
        np.array(warm),
        target,
        tolerance=ch.tolerance,
        max_iterations=ch.max_iterations,
        limits=_limits_for(ch) if ch._limits else None,
    )
    return [tuple(p) for p in r.points.tolist()], int(r.iterations)


def _two_bone_eps(ch: Chain) -> float:
    # The closed form hits reachable targets to round-off; eps only decides "reachable" at
    # the edges, which must not be looser than what the chain calls reached.
    return min(1e-6, ch.tolerance)


def _limits_for(ch: Chain):
    return [ch._limits.get(j) for j in ch.joints]
