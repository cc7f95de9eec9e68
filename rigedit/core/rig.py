"""A rig: a skeleton, its animated pose, and ordered IK chains solved and blended one frame at a time.

Solving a frame: start from the animated pose (the clip at `time`, or the rest pose); for each
chain in order, find the world transform of the chain root's parent in the pose built so far
(so an arm sees the solved spine), warm-start the solver from the chain's OWN last IK solution
(its local rotations put back on the current parent), turn each bone of that warm start
toward the solved positions by the shortest arc (rig_solve.py), and slerp those IK rotations
with the pose's by the chain's weight. The chain walk is plain floats: a full FK per chain
would cost more than the solvers.
"""
from __future__ import annotations

import copy as _copy
from itertools import chain as concat
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

from . import scalar_quat as sq
from .chain import Chain, ChainReport, LimitFitError, check_finite
from .clip import Clip
from .ik import registry
from .ik.limits import HingeLimit, Limit, hinge_axis
from .rig_chain import ChainState, SolveInputs, same_limits, solve_chain
from .rig_solve import ChainSetup, world_of
from .rig_limb import solve_limb
from .rig_pose import PendingState, SolvedPose, exported, pending, placed
from .rig_gait import GaitSettings, RigGait, check_gait
from .rig_ground import Ground, ground_frame, make_ground
from .rig_uses import look_at_rotations
from .skeleton import Pose, Skeleton
from .timeline import Timeline
from .transforms import quat_slerp

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
        self._state: dict[str, ChainState] = {}
        self._setups: dict[str, ChainSetup] = {}  # per chain, rig_solve.ChainSetup (rebuilt when it no longer fits)
        self._clip: Clip | None = None
        self._time = 0.0
        self._last_frame = None  # (inputs, chain order, reports, clip) of a settled solve
        self._anim_cache = None  # the animated pose as float lists, per (clip, time)
        self._outputs: dict[str, tuple] = {}  # per chain, what the last solve wrote (see solve)
        self._outputs_anim = None  # the animated pose those outputs were written on
        self._ground: Ground | None = None  # issue 8: the ground "ground feet" chains stand on
        self._gait: GaitSettings | None = None  # issue 8: legs stepping as the body moves
        self._gait_run: RigGait | None = None
        self._input_version = 0  # bumped by the clip and ground setters (see clip)
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
        reach_clamp: float | None = None,
        softness: float | None = None,
        look_at=None,
    ) -> Chain:
        """Append a chain solved after the existing ones. The target defaults to where the
        chain's tip is now (for a look_at chain, 1 m along its forward axis), so adding a
        chain changes no pose (the reach clamp aside: a straight limb bends a hair)."""
        joints = list(joints)
        if target is None:
            self._check_joints(name, joints)
            target = self.world_position(joints[-1])
            kind = registry.find(solver)
            if kind is not None and kind.aims:
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
            name, joints, solver=solver, target=target, pole=pole, weight=weight, limits=limits, look_at=look_at, **kw
        )
        self._insert(ch)
        return ch

    def _forward_of(self, joint: str, look_at) -> np.ndarray:
        from .chain_uses import LookAtSettings
        from .transforms import quat_rotate

        axis = np.asarray((look_at or LookAtSettings()).forward_axis, dtype=np.float64)
        norm = float(np.linalg.norm(axis))
        if not np.isfinite(norm) or norm <= 0.0:
            return np.zeros(3)  # the chain's own check names the bad axis
        quats = self._skeleton.fk(self._pose)[1]
        return quat_rotate(quats[self._skeleton.index(joint)], axis / norm)

    def remove_chain(self, name: str) -> None:
        self.chain(name)
        del self._chains[name], self._plans[name]
        if self._gait is not None and name in self._gait.legs:
            self.gait = None  # a gait without one of its legs is not the gait it was
        self._state.pop(name, None)
        self._setups.pop(name, None)
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
        ch._fit = _LimitFit(self._skeleton, idx)
        try:
            ch._check_fit(ch.solver, ch._limits)
        except ValueError:
            ch._fit = None
            raise
        self._chains[ch.name] = ch
        self._plans[ch.name] = _Plan(idx, self._parents[idx[0]], below)
        self._link_plans()

    def _link_plans(self) -> None:
        """Record, for each chain, the earlier chains whose output it reads: those that turn a
        joint above its root (its base moves) or one of its own joints (what it blends with)."""
        written: list[tuple[str, set[int]]] = []
        for name, plan in self._plans.items():
            reads = set(plan.idx[:-1])
            j = plan.parent
            while j >= 0:
                reads.add(j)
                j = self._parents[j]
            plan.upstream = tuple(other for other, joints in written if joints & reads)
            written.append((name, set(plan.idx)))  # a look_at chain turns its tip too
        self._last_frame = self._outputs_anim = None  # what chains read has changed: a full pass

    # --- animation input -------------------------------------------------------------------

    @property
    def clip(self) -> Clip | None:
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
        self._anim_cache = self._last_frame = self._outputs_anim = None

    @property
    def ground(self) -> Ground | None:
        """The ground grounded chains stand on (kind and height field), or None."""
        return self._ground

    @ground.setter
    def ground(self, spec) -> None:
        """None, "flat", "slope", a HeightField or a Ground."""
        self._ground = make_ground(spec)
        self._input_version += 1  # as for the clip: a height field is too big to compare
        self._anim_cache = self._last_frame = self._outputs_anim = None

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
        return dict(self._animated_lists()[0][5])

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
        self._last_frame = None  # the next solve must write its pose again

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
        self._state.clear()
        self._pose = self.animated_pose()
        self._world_cache = None
        self._last_frame = self._outputs_anim = None

    def copy(self) -> "Rig":
        """A deep copy (chains, warm starts, pose, clip, timeline) that shares nothing mutable."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._skeleton = _copy.deepcopy(self._skeleton)
        other._chains = {k: ch.copy() for k, ch in self._chains.items()}
        other._plans = dict(self._plans)  # plans are replaced, never changed, once linked
        for k, ch in other._chains.items():
            ch._fit = _LimitFit(other._skeleton, self._plans[k].idx)
        other._state = dict(self._state)  # states are never changed in place
        other._setups = {}
        other._clip = _copy.deepcopy(self._clip)
        other._gait_run = _copy.deepcopy(self._gait_run)
        other.timeline = _copy.deepcopy(self.timeline)
        other._pose = self._pose.copy()
        other._world_cache = None
        other._last_frame = other._anim_cache = other._outputs_anim = None
        other._outputs = {}
        return other

    # --- the solved pose, saved and put back (rig_pose.py) --------------------------------------

    def solved_state(self) -> SolvedPose:
        """Every chain's last solution as data: what a saved rig keeps so that opening it
        shows the same pose and solves on from it as this rig would."""
        return SolvedPose({name: exported(state) for name, state in self._state.items()})

    def restore_state(self, solved: SolvedPose, *, solve: bool = True) -> dict[str, ChainReport] | None:
        """Put back what solved_state() gave (this rig's, a copy's or a file's): the warm
        starts are replaced, and the next solve (run now unless `solve` is False) takes
        each chain's saved solution as its result, on the base this rig builds for it. A
        solution that does not fit its chain is dropped: that chain is solved afresh."""
        self._state = pending(self, solved)
        self._last_frame = self._outputs_anim = None
        self._outputs = {}
        return self.solve() if solve else None

    def _place(self, name: str, ch: Chain, last: ChainState, inputs: SolveInputs, offsets: list) -> ChainState | None:
        setup = self._setups.get(name)
        if setup is None or not setup.fits(ch, offsets):
            setup = self._setups[name] = ChainSetup(ch, offsets)
        state = placed(last, ch, inputs, setup)
        if state is None:
            del self._state[name]
        else:
            self._state[name] = state
        return state

    # --- solving ---------------------------------------------------------------------------

    def solve(self) -> dict[str, ChainReport]:
        """Solve one frame: every chain in order, each blended by its weight before the next
        one looks at the pose. Returns chain name -> ChainReport.

        A chain whose inputs (its settings and the pose above it) are those of its last solve
        is not solved again, unless FABRIK was still short of the target (it gets another
        warm-started go); a frame whose inputs all match the last one returns at once."""
        if self._ground is not None:
            # Grounded chains aim where the ground puts them this frame (rig_ground.py).
            for name, target in self._animated_lists()[0][5].items():
                self._chains[name]._target = target
        last_frame = self._last_frame
        frame_key = None  # made only to compare with a settled frame, or to be one
        if last_frame is not None:
            frame_key = self._frame_key()
            if last_frame[0] == frame_key and tuple(self._chains) == last_frame[1]:
                return {name: _idle(r) for name, r in last_frame[2].items()}
        anim_key, rot, trans, translations = self._animated_lists()
        # What last frame's solve left per chain: its state, the weight it blended with and
        # the rotations it wrote. A chain whose settings, animation and upstream chains are all
        # as they were can take its rotations from there without looking at the pose.
        before = self._outputs if self._outputs_anim is anim_key else {}
        outputs: dict[str, tuple] = {}
        rot = list(rot)  # the chains write into it; the cached animated lists stay as they are
        world: list = [None] * len(rot)
        parents = self._parents
        reports = {}
        settled = True
        for name, ch in self._chains.items():
            plan = self._plans[name]
            idx = plan.idx
            last = self._state.get(name)
            kept = before.get(name)
            w = ch._weight
            errors: list = []
            if ch._kind.aims:
                reports[name] = self._solve_look_at(ch, plan, rot, trans, world, outputs)
                continue
            settings = (ch._solver, ch._target, ch._pole, ch._tolerance, ch._max_iterations, ch._reach_clamp, ch._softness)
            # Its base is as last solved: same state, nothing upstream rewritten.
            based = kept is not None and kept[0] is last
            if based:
                for u in plan.upstream:  # a loop, not all() over a generator: per chain per frame
                    if not outputs[u][3]:
                        based = False
                        break
            if based and last.final and same_limits(last.limits, ch._limit_key) and last.inputs.settings == settings:
                # Nothing it reads has moved: same state, and the same rotations if the weight is too.
                state, iterations = last, 0
                written = kept[2] if kept[1] == w else None
            else:
                if based:
                    inputs = last.inputs  # its settings changed, its base did not
                    base_pos, base_rot, offsets = inputs.base_pos, inputs.base_rot, inputs.offsets
                else:
                    if plan.parent >= 0:
                        base_pos, base_rot = world_of(plan.parent, parents, rot, trans, world)
                    else:
                        base_pos, base_rot = sq.ZERO, sq.IDENTITY
                    offsets = [trans[j] for j in idx]
                inputs = SolveInputs(base_pos, base_rot, offsets, settings)
                restored = type(last) is PendingState
                if restored:  # a saved solution put back (restore_state): this frame's result if it fits
                    last = self._place(name, ch, last, inputs, offsets)
                    restored = last is not None
                same = last is not None and same_limits(last.limits, ch._limit_key) and last.inputs == inputs
                if same and (last.final or restored):
                    state, iterations = last, 0  # same inputs, same answer
                else:
                    warm = last.ik if last is not None else [rot[j] for j in idx[:-1]]
                    setup = self._setups.get(name)
                    if setup is None or not setup.fits(ch, offsets):
                        setup = self._setups[name] = ChainSetup(ch, offsets)
                    if ch._kind.closed_form and (last is None or last.start is None):
                        # _solve_chain's two-bone branch in one pass (rig_limb.py): closed
                        # form, so final, and no warm start of its own to keep.
                        ik, error, _ = solve_limb(
                            ch._target, ch._pole, ch._tolerance, ch._reach_clamp, ch._softness, setup.total,
                            setup.mid_limit, base_pos, base_rot, offsets, warm,
                        )
                        state, iterations = ChainState(ik, inputs, ch._limit_key, error, error <= ch._tolerance, True), 0
                    else:
                        state, iterations = solve_chain(
                            ch, setup, base_pos, base_rot, offsets, last, warm, inputs, last if same else None, errors,
                            (rot, idx),
                        )
                    self._state[name] = state
                written = None
            settled = settled and state.final
            if written is None:
                if w == 0.0:
                    written = ()
                elif w == 1.0:
                    written = state.ik
                else:  # quat_slerp gives its ends exactly, so 0 and 1 need no call
                    current = np.array([rot[j] for j in idx[:-1]])
                    written = [tuple(q) for q in quat_slerp(current, np.array(state.ik), w).tolist()]
            unchanged = kept is not None and kept[2] is written
            outputs[name] = (state, w, written, unchanged)
            if written:
                for j, q in zip(idx, written):
                    rot[j] = q
                for j in plan.below:
                    world[j] = None
            reports[name] = ChainReport(name, state.error, iterations, state.reached, tuple(errors))
        if self._ground is not None and anim_key[6]:
            self._turn_soles(anim_key[6], rot, trans, world)
        self._outputs, self._outputs_anim = outputs, anim_key
        # fromiter over the flattened tuples: half the cost of np.array on a list of tuples.
        flat = np.fromiter(concat.from_iterable(rot), np.float64, 4 * len(rot)).reshape(-1, 4)
        self._pose = Pose(flat, translations.copy())
        self._world_cache = None
        if settled:
            self._last_frame = (frame_key or self._frame_key(), tuple(self._chains), reports)
        else:
            self._last_frame = None
        return reports

    def _frame_key(self) -> tuple:
        """Everything a frame's solve reads besides the chains' own states (solve() does not
        change any of it)."""
        return (self._input_version, self._time if self._clip is not None else None) + tuple(
            (ch._solver, ch._target, ch._pole, ch._tolerance, ch._max_iterations, ch._weight, ch._limit_key)
            + (ch._reach_clamp, ch._softness, ch._look_at, ch._ground_feet)
            for ch in self._chains.values()
        )

    def _solve_look_at(self, ch: Chain, plan: "_Plan", rot: list, trans: list, world: list, outputs: dict) -> ChainReport:
        """A look_at chain: aimed over the pose built so far, blended by weight like the
        other kinds (0 leaves the pose exactly as it came), solved afresh every time (it is
        closed-form, so there is no warm start to keep)."""
        idx, w = plan.idx, ch._weight
        aimed, miss = look_at_rotations(self._skeleton, ch, idx, rot, trans)
        if w == 0.0:
            written = ()
        elif w == 1.0:
            written = aimed
        else:
            current = np.array([rot[j] for j in idx])
            written = [tuple(q) for q in quat_slerp(current, np.array(aimed), w).tolist()]
        outputs[ch.name] = (None, w, written, False)
        if written:
            for j, q in zip(idx, written):
                rot[j] = q
            for j in plan.below:
                world[j] = None
        return ChainReport(ch.name, miss, 0, miss <= ch._tolerance)

    def _turn_soles(self, soles: dict, rot: list, trans: list, world: list) -> None:
        """Ground-feet chains' tips take their grounded world rotation (the sole on the
        ground), blended by the chain's weight, under the legs as solved."""
        for name, sole in soles.items():
            ch, plan = self._chains[name], self._plans[name]
            tip = plan.idx[-1]
            if ch._weight == 0.0:
                continue
            for j in plan.below:
                world[j] = None
            _, parent_rot = world_of(self._parents[tip], self._parents, rot, trans, world)
            local = sq.qnormalize(sq.qmul(sq.qconj(parent_rot), sole))
            if ch._weight < 1.0:
                local = tuple(quat_slerp(np.array(rot[tip]), np.array(local), ch._weight).tolist())
            rot[tip] = local
            for j in plan.below:
                world[j] = None

    def _animated_lists(self):
        """The animated pose as lists of float tuples (rotations, translations) and the
        translations array, kept while the clip and time stay the same; first, an object
        standing for that animated pose (the same object while it is the same)."""
        legs = []
        if self._ground is not None:
            legs = [
                (name, self._plans[name].idx, ch._reach_clamp, ch._weight)  # the body follows the legs' weights
                for name, ch in self._chains.items()
                if ch._ground_feet and not ch._kind.aims
            ]
        key = (self._input_version, self._time if self._clip is not None else None)
        key += tuple((name, clamp, w) for name, _, clamp, w in legs)
        cached = self._anim_cache
        if cached is None or cached[0] != key:
            anim = self.animated_pose()
            grounded: dict = {}
            soles: dict = {}
            if legs:
                shift, grounded, soles = ground_frame(self._skeleton, anim, self._ground, legs)
                for j, p in enumerate(self._parents):
                    if p < 0:
                        anim.translations[j, 1] += shift  # the body rides the ground, low enough for every leg
            rot = [tuple(q) for q in anim.rotations.tolist()]
            trans = [tuple(t) for t in anim.translations.tolist()]
            cached = self._anim_cache = (key, rot, trans, anim.translations, self._clip, grounded, soles)
        return cached, cached[1], cached[2], cached[3]

    def __repr__(self) -> str:
        return f"Rig({self.name!r}, {len(self._skeleton)} joints, chains={self.chain_names})"


def _idle(r: ChainReport) -> ChainReport:
    return r if r.iterations == 0 else ChainReport(r.name, r.error, 0, r.reached)  # no passes, no errors


class _Plan:
    """What the solve loop needs about a chain, resolved once: joint indices root to tip, the
    root's parent (-1 for none), every joint at or below the root (whose world transforms go
    stale when the chain turns) and the earlier chains it depends on."""

    __slots__ = ("idx", "parent", "below", "upstream")

    def __init__(self, idx: list[int], parent: int, below: list[int]) -> None:
        self.idx, self.parent, self.below = idx, parent, below
        self.upstream: tuple[str, ...] = ()  # earlier chains whose output this one reads


def _reader() -> Callable[[str | Path], Rig]:
    if _preset_reader is None:
        raise RuntimeError("no preset reader registered: import rigedit (or rigedit.io.preset) first")
    return _preset_reader


class _LimitFit:
    """The checks on a chain's limits that need the skeleton, run by the chain whenever its
    solver or limits change: which joints can carry a limit, and hinge axes that leave
    a plane to bend in."""

    __slots__ = ("skeleton", "idx")

    def __init__(self, skeleton: Skeleton, idx: list[int]) -> None:
        self.skeleton, self.idx = skeleton, idx

    def __call__(self, solver: str, limits: Mapping[str, Limit]) -> None:
        sk, idx = self.skeleton, self.idx
        names = [sk.names[j] for j in idx]
        for name, lim in limits.items():
            k = names.index(name)
            j = idx[k]
            if k == len(idx) - 1:
                raise LimitFitError(name, "it is the chain's tip: no bone of the chain leaves it")
            problem = registry.get(solver).limit_problem(k)
            if problem is not None:
                raise LimitFitError(name, problem)
            offset = sk.offsets[j]
            length = float(np.linalg.norm(offset))
            if k == 0 and sk.parents[j] < 0:
                raise LimitFitError(name, "it is a root joint: there is no parent bone to measure the limit from")
            if k == 0 and length <= sq.TINY:
                raise LimitFitError(name, "the bone entering it has zero length: no direction to measure the limit from")
            if isinstance(lim, HingeLimit) and length > sq.TINY:
                axis = np.asarray(lim.axis, dtype=np.float64)
                if hinge_axis(tuple((axis / np.linalg.norm(axis)).tolist()), tuple((offset / length).tolist())) is None:
                    raise LimitFitError(name, "the hinge axis is parallel to the bone entering the joint: no plane to bend in")
