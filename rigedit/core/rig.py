"""A rig: a skeleton, its animated pose (clip, time, ground, gait), and ordered IK chains.

This is the model: its structure, settings, pose and files. Solving a frame (order, warm
start, blend by weight, write-back) is rig_eval.py's, and what it keeps between frames is
the rig's WarmCache (rig_cache.py).
"""
from __future__ import annotations

import copy as _copy
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

from . import persistence
from .chain import Chain, ChainReport, check_finite
from .character import CharacterRef
from .clip import Clip
from .clip_goals import ClipGoals
from .ik import registry
from .ik.limits import Limit
from .rig_cache import WarmCache
from . import rig_match
from .chain_uses import LookAtSettings
from .rig_anim import animated
from .rig_eval import solve_frame, solved_for_now
from .rig_full_body import default_pull, exported as body_exported, put_back
from .transforms import quat_rotate
from .rig_plan import LimitFit, Plan, Writers
from .rig_pose import SolvedPose, exported, pending
from .rig_posing import Posing, layered
from .rig_pose_tools import PoseTools
from .pose_layer import PoseLayer
from .rig_gait import GaitSettings, RigGait, check_gait
from .rig_ground import Ground, make_ground
from .skeleton import Pose, Skeleton
from .timeline import Timeline

# Bundled presets live beside the package: <checkout>/resources/presets.
BUNDLED_PRESETS = Path(__file__).resolve().parents[2] / "resources" / "presets"


def register_preset_io(reader: Callable[[str | Path], "Rig"], writer: Callable[["Rig", str | Path], None]) -> None:
    """The preset reader and writer behind Rig.load / Rig.save (core/persistence.py keeps them)."""
    persistence.register(reader, writer)


class Rig(Posing, PoseTools):
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
        self._plans: dict[str, Plan] = {}
        self._cache = WarmCache()  # warm starts and the last frame, between solves (rig_eval.py)
        self._clip: Clip | None = None
        self._time = 0.0
        self._ground: Ground | None = None  # issue 8: the ground "ground feet" chains stand on
        self._gait: GaitSettings | None = None  # issue 8: legs stepping as the body moves
        self._gait_run: RigGait | None = None
        self._input_version = 0  # bumped by the clip and ground setters (see clip)
        self._full_body = False  # issue 16: every chain solved together (rig_full_body.py)
        self._clip_goals = ClipGoals(self)  # where follow-clip chains' goals come from (issue 14)
        self._pose_layer = PoseLayer()  # issue 25: keyed rotations over the clip (rig_posing.py)
        self._layer_edited = False  # the layer changed since the pose was made (Rig.rotation)
        self.clip = clip
        self.time = time
        self.timeline = Timeline() if timeline is None else timeline  # keyed curves; opaque to the solver
        self.name = name
        # The glTF the skeleton came from (core/character.py), for its mesh and exports; None
        # for a rig made from a BVH file or by hand.
        self.character: CharacterRef | None = None
        self._pose = self.animated_pose()
        self._world_cache: np.ndarray | None = None
        for ch in chains:
            self._insert(ch)

    # --- files ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> "Rig":
        """Read a JSON preset; rigedit.PresetError names the file, field path and problem."""
        return persistence.reader()(path)

    @classmethod
    def default(cls) -> "Rig":
        """The bundled humanoid."""
        return persistence.reader()(BUNDLED_PRESETS / "humanoid.json")

    def save(self, path: str | Path) -> None:
        """Write a JSON preset atomically; the previous file is kept as NAME.json.bak. A clip
        that is not the preset's own (an imported take) goes in NAME.clip.npz beside it."""
        persistence.writer()(self, path)

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
        reach_clamp: float | None = None,
        softness: float | None = None,
        look_at=None,
        follow_clip: bool = False,
        offset_keys=(),
        pull: float | None = None,
    ) -> Chain:
        """Append a chain solved after the existing ones. The target defaults to where the
        chain's tip is now (for a look_at chain, 1 m along its forward axis), so adding a
        chain changes no pose (the reach clamp aside: a straight limb bends a hair).
        `follow_clip`: the goal is the clip's animated tip plus `offset_keys` (clip_goals.py)."""
        joints = list(joints)
        if target is None:
            self._check_joints(name, joints)
            target = self.world_position(joints[-1])
            kind = registry.find(solver)
            if kind is not None and not kind.reaches:  # aimed: 1 m along its forward axis
                target = target + self._forward_of(joints[-1], look_at)
        kw = {}
        if tolerance is not None:
            kw["tolerance"] = tolerance
        if max_iterations is not None:
            kw["max_iterations"] = max_iterations
        if reach_clamp is not None:
            kw["reach_clamp"] = reach_clamp
        if softness is not None:
            kw["softness"] = softness
        ch = Chain(
            name, joints, solver=solver, target=target, pole=pole, weight=weight, limits=limits, look_at=look_at,
            follow_clip=follow_clip, offset_keys=offset_keys, pull=pull, **kw
        )
        self._insert(ch)
        return ch

    def _forward_of(self, joint: str, look_at) -> np.ndarray:
        axis = np.asarray((look_at or LookAtSettings()).forward_axis, dtype=np.float64)
        norm = float(np.linalg.norm(axis))
        if not np.isfinite(norm) or norm <= 0.0:
            return np.zeros(3)  # the chain's own check names the bad axis
        quats = self._skeleton.fk(self._pose)[1]
        return quat_rotate(quats[self._skeleton.index(joint)], axis / norm)

    def remove_chain(self, name: str) -> None:
        ch = self.chain(name)
        if ch.following:  # out of the rig its goal is absolute: the one it had here (no solve wrote it)
            ch._target, ch._pole = ch._goal(), ch._pole_now()
        ch._goals = None  # a chain out of the rig follows no clip of it
        del self._chains[name], self._plans[name]
        if self._gait is not None and name in self._gait.legs:
            self.gait = None  # a gait without one of its legs is not the gait it was
        self._cache.drop(name)
        self._link_plans()

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
        ch._fit = LimitFit(self._skeleton, idx)
        try:
            ch._check_fit(ch.solver, ch._limits)
        except ValueError:
            ch._fit = None
            raise
        self._chains[ch.name] = ch
        plan = Plan(idx, self._parents[idx[0]], below)
        self._plans[ch.name] = plan
        ch._goals = self._clip_goals
        ch._role_pull = self._role_pull
        writers = self._writers_index()
        # Appended last, the new chain changes no earlier chain's upstream: link it alone,
        # so adding n chains costs n times one chain's joints, not n passes over all chains.
        self._link(ch.name, plan, writers)
        self._cache.forget_frame()  # what chains read has changed: a full pass

    def _link_plans(self) -> None:
        """Record, for each chain, the earlier chains whose output it reads: those that turn a
        joint above its root (its base moves) or one of its own joints (what it blends with)."""
        writers = Writers(self._plans)
        for name, plan in self._plans.items():
            self._link(name, plan, writers)
        self._writers = writers
        self._cache.forget_frame()  # what chains read has changed: a full pass

    def _writers_index(self) -> Writers:
        """The joint -> writing chains index for the current plans (all but the newest).
        Rebuilt when it belongs to another plans dict (a copy's, or none yet)."""
        writers = getattr(self, "_writers", None)
        if writers is None or writers.plans is not self._plans:
            writers = Writers(self._plans)
            for name, plan in list(self._plans.items())[:-1]:
                writers.add(name, plan)
            self._writers = writers
        return writers

    def _link(self, name: str, plan: Plan, writers: Writers) -> None:
        """Link one chain to the chains already in `writers` (the earlier ones), then add it."""
        reads = list(plan.idx[:-1])
        j = plan.parent
        while j >= 0:
            reads.append(j)
            j = self._parents[j]
        plan.upstream = writers.upstream_of(reads)
        for u in plan.upstream:
            self._plans[u].feeds = True
        writers.add(name, plan)  # a look_at chain turns its tip too

    # --- animation input -------------------------------------------------------------------

    @property
    def clip(self) -> Clip | None:
        """The animation under the IK (None: the rest pose is). It belongs to the rig: save
        writes it with the preset (a preset's own clip inside it, any other in NAME.clip.npz
        beside it) and load brings it back, with its source (clip.source) and the time."""
        return self._clip

    @clip.setter
    def clip(self, clip: Clip | None) -> None:
        if clip is not None and clip.rotations.shape[1] != len(self._skeleton):
            raise ValueError(f"clip has {clip.rotations.shape[1]} joints, the skeleton {len(self._skeleton)}")
        self._clip = clip
        self.clip_in_preset = False  # a preset's own clip (saved with it); a loaded BVH is not
        # Solves key the animated pose on this counter, not on the clip's arrays (too big to
        # compare each frame): assigning a clip, even the same one edited in place, makes
        # the next solve read it afresh.
        self._input_version += 1
        self._cache.forget_animation()

    @property
    def ground(self) -> Ground | None:
        """The ground grounded chains stand on (kind and height field), or None."""
        return self._ground

    @ground.setter
    def ground(self, spec) -> None:
        """None, "flat", "slope", a HeightField or a Ground."""
        self._ground = make_ground(spec)
        self._input_version += 1  # as for the clip: a height field is too big to compare
        self._cache.forget_animation()

    @property
    def gait(self) -> GaitSettings | None:
        """Procedural legs: which chains step as the body (root) moves, and how; or None."""
        return self._gait

    @gait.setter
    def gait(self, settings: GaitSettings | None) -> None:
        self._gait = None if settings is None else check_gait(settings, self.chain_names)
        self._gait_run = None

    def advance_gait(self, dt: float | None = None):
        """Step the gait to the current time (by `dt` seconds, or by the time since the last
        call) and set the leg chains' targets; the caller solves. Returns the foot targets
        (legs, 3), or None without a gait. A time jump (scrub, loop) replants the feet."""
        if self._gait is None:
            return None
        if self._gait_run is None:
            self._gait_run = RigGait(self, self._gait)
        return self._gait_run.advance(self, dt)

    def resume_gait(self) -> None:
        """Start the gait from the legs' current targets at the current time (a reopened
        rig: RigGait.resume) rather than replanting the feet on the next advance."""
        if self._gait is not None:
            self._gait_run = RigGait(self, self._gait)
            self._gait_run.resume(self)

    def grounded_targets(self) -> dict[str, tuple[float, float, float]]:
        """Where the ground puts each ground-feet chain's target at the current time (what
        the next solve aims at); empty without a ground. A viewer showing targets uses it."""
        if self._ground is None:
            return {}
        return dict(animated(self).grounded)

    def shown_target(self, name: str) -> np.ndarray:
        """Where chain `name` aims at the current time, as a viewer shows its goal: a
        grounded foot's target where the ground puts it, a follow-clip chain's at the
        animated tip plus its offset, else the chain's own target (rig_goals.py)."""
        ch = self.chain(name)
        grounded = self.grounded_targets()
        return np.array(grounded[name], dtype=np.float64) if name in grounded else ch.target

    @property
    def time(self) -> float:
        """Seconds: the clip's animated pose and the timeline are taken there (the clip is
        held at its ends). Saved with the rig, so a file opens on the frame it was left at."""
        return self._time

    @time.setter
    def time(self, value: float) -> None:
        try:
            value = check_finite(value)
        except ValueError as e:
            raise ValueError(f"time {e}") from None
        self._settle_layer(value)
        self._time = value

    def animated_pose(self) -> Pose:
        """The pose under the IK: the clip at `time` (or the rest pose when there is no
        clip) with the pose layer on it."""
        return layered(self._pose_layer, self._base_pose(), self._time, self._skeleton, self._roots())

    @property
    def input_version(self) -> int:
        """A counter bumped whenever what the animated pose is made of changes (the clip, its
        frames, the ground, the pose layer): caches of solved frames outside the rig (the
        editor's onion skin) key on it."""
        return self._input_version

    @property
    def _timed(self) -> bool:
        """Whether the animated pose depends on the time (a clip, or pose layer keys)."""
        return self._clip is not None or self._pose_layer.is_animated

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
        self._layer_edited = False
        self._cache.settled = None  # the next solve must write its pose again

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
        self._cache.states = {}
        self._cache.body.forget_start()
        self._pose = self.animated_pose()
        self._world_cache = None
        self._layer_edited = False
        self._cache.forget_frame()

    def copy(self) -> "Rig":
        """A deep copy (chains, warm starts, pose, clip, timeline) that shares nothing mutable."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._skeleton = _copy.deepcopy(self._skeleton)
        other._chains = {k: ch.copy() for k, ch in self._chains.items()}
        other._plans = dict(self._plans)  # plans are replaced, never changed, once linked
        other._clip_goals = self._clip_goals.copy_for(other)
        for k, ch in other._chains.items():
            ch._fit = LimitFit(other._skeleton, self._plans[k].idx)
            ch._goals = other._clip_goals
            ch._role_pull = other._role_pull
        other._cache = self._cache.copy()
        other._clip = _copy.deepcopy(self._clip)
        other._gait_run = _copy.deepcopy(self._gait_run)
        other.timeline = _copy.deepcopy(self.timeline)
        other._pose = self._pose.copy()
        other._world_cache = None
        return other

    # --- the solved pose, saved and put back (rig_pose.py) --------------------------------------

    def solved_state(self) -> SolvedPose:
        """Every chain's last solution as data: what a saved rig keeps so that opening it
        shows the same pose and solves on from it as this rig would."""
        states = self._cache.states
        body = body_exported(self, animated(self)) if self._cache.body.has_start() else None
        if not states:
            return SolvedPose({}, body)
        now = solved_for_now(self)
        return SolvedPose({name: exported(state, now[name]) for name, state in states.items()}, body)

    def restore_state(self, solved: SolvedPose, *, solve: bool = True) -> dict[str, ChainReport] | None:
        """Put back what solved_state() gave (this rig's, a copy's or a file's): the warm
        starts are replaced by the saved solutions, and the rig shows them as they were
        (unless `solve` is False), solving nothing. Later solves go on from them exactly as
        the rig that saved them would: a solution is the answer only of the settings it
        was solved with, on the base it stood on (rig_pose.py). A solution that does not
        fit its chain (an edited file) is dropped: that chain is solved afresh."""
        self._cache.states = pending(self, solved, solved_for_now(self))
        put_back(self, solved.full_body, animated(self))
        self._cache.forget_frame()
        self._cache.outputs = {}
        unsaved = frozenset(name for name in self._chains if name not in solved.chains)
        if not solve:
            return None
        reports = solve_frame(self, show=unsaved)
        self._layer_edited = False
        return reports

    # --- solving (rig_eval.py) ---------------------------------------------------------------

    @property
    def full_body(self) -> bool:
        """Solve every chain's goal together, moving the hips and spine as far as the chains'
        `pull` lets them, legs (pull 0) keeping their feet on their targets (rig_full_body.py);
        off (the default), each chain is solved on its own from its fixed base."""
        return self._full_body

    @full_body.setter
    def full_body(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"full_body must be true or false, got {value!r}")
        self._full_body = bool(value)
        self._cache.forget_frame()

    def match_ik_to_fk(self, chain: str | None = None) -> list[str]:
        """IK/FK matching (rig_match.py): put one chain's goal and pole (None: every chain's)
        where the animated (FK) limb is, and its warm start on the animated pose, so the
        next solve at weight 1 shows what weight 0 shows. Returns the chains changed."""
        return rig_match.match_ik_to_fk(self, chain)

    def match_fk_to_ik(self, chain: str | None = None) -> None:
        """IK/FK matching (rig_match.py): write the shown rotations of one chain (None: the
        whole body, with the root's translation) into the animated pose at the current frame,
        so weight 0 shows what is shown now: the clip's nearest frame is keyed, or without
        a clip the rest pose is set."""
        rig_match.match_fk_to_ik(self, chain)

    def _role_pull(self, name: str) -> float:
        return default_pull(self, name)

    def solve(self) -> dict[str, ChainReport]:
        """Solve one frame: every chain in order, each blended by its weight before the next
        one looks at the pose. Returns chain name -> ChainReport.

        A chain whose inputs (its settings and the pose above it) are those of its last solve
        is not solved again, unless FABRIK was still short of the target (it gets another
        warm-started go); a frame whose inputs all match the last one returns at once."""
        reports = solve_frame(self)
        self._layer_edited = False
        return reports

    def __repr__(self) -> str:
        return f"Rig({self.name!r}, {len(self._skeleton)} joints, chains={self.chain_names})"


