"""A rig: a skeleton, its animated pose (clip, time, ground, gait), and ordered IK chains.

This is the model: its structure, settings, pose and files. Its chains in solve order and
their plans are a RigChains (rig_chains.py); everything a solve changes (the shown pose, warm
starts, caches) is one RigState (rig_state.py). Solving a frame is rig_eval.py's, which hands
every frame to the compiled frame (rig_frame.py) or, under full body, to rig_full_body.py. The rig's modules reach these through the read-only
properties of the "rig package" section below, never through the rig's private fields.
"""
from __future__ import annotations

import copy as _copy
from operator import attrgetter
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np

from . import persistence
from .chain import Chain
from .chain_settings import ChainReport
from .character import CharacterRef
from .clip import Clip
from .clip_goals import ClipGoals
from .ik import registry
from .ik.limits import Limit
from .rig_chains import RigChains
from .rig_state import RigState
from . import rig_match
from .chain_uses import LookAtSettings
from .rig_eval import solve_frame
from .rig_full_body import default_pull
from . import rig_saving
from .transforms import quat_rotate
from .rig_pose import SolvedPose
from .rig_inputs import AnimationInput
from .rig_posing import Posing
from .rig_pose_tools import PoseTools
from .pose_layer import PoseLayer
from .rig_gait import GaitSettings, RigGait
from .rig_ground import Ground
from .skeleton import Pose, Skeleton
from .timeline import Timeline, Track

# Bundled presets live beside the package: <checkout>/resources/presets.
BUNDLED_PRESETS = Path(__file__).resolve().parents[2] / "resources" / "presets"


def register_preset_io(reader: Callable[[str | Path], "Rig"], writer: Callable[["Rig", str | Path], None]) -> None:
    """The preset reader and writer behind Rig.load / Rig.save (core/persistence.py keeps them)."""
    persistence.register(reader, writer)


class Rig(AnimationInput, Posing, PoseTools):
    def __init__(self, skeleton: Skeleton, chains: Iterable[Chain] = (), *, clip: Clip | None = None,
                 time: float = 0.0, timeline=None, name: str = "") -> None:  # fmt: skip
        self._skeleton = skeleton
        self._state = RigState()  # the pose shown, warm starts and the last frame (rig_state.py)
        self._clip: Clip | None = None
        self._time = 0.0
        self._ground: Ground | None = None  # issue 8: the ground "ground feet" chains stand on
        self._gait: GaitSettings | None = None  # issue 8: legs stepping as the body moves
        self._gait_run: RigGait | None = None
        self._input_version = 0  # bumped by the clip and ground setters (see clip)
        self._full_body = False  # issue 16: every chain solved together (rig_full_body.py)
        self._clip_goals = ClipGoals(self)  # where follow-clip chains' goals come from (issue 14)
        self._chains = RigChains(skeleton, self._clip_goals, self._role_pull)
        self._pose_layer = PoseLayer()  # issue 25: keyed rotations over the clip (rig_posing.py)
        self._layer_edited = False  # the layer changed since the pose was made (Rig.rotation)
        self.clip = clip
        self.time = time
        self.timeline = Timeline() if timeline is None else timeline  # keyed curves; opaque to the solver
        self.name = name
        # The glTF the skeleton came from (core/character.py), for its mesh and exports; None
        # for a rig made from a BVH file or by hand.
        self.character: CharacterRef | None = None
        self._state.show(self.animated_pose())
        for ch in chains:
            self._chains.insert(ch)

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
        return list(self._chains.chains)

    @property
    def chains(self) -> tuple[Chain, ...]:
        return tuple(self._chains.chains.values())

    def chain(self, name: str) -> Chain:
        try:
            return self._chains.chains[name]
        except KeyError:
            raise KeyError(f"no chain named {name!r} (chains: {', '.join(self.chain_names) or 'none'})") from None

    def add_chain(self, name: str, joints: Iterable[str], *, solver: str = "fabrik", target=None, pole=None,
                  tolerance: float | None = None, max_iterations: int | None = None, weight: float = 1.0,
                  limits: Mapping[str, Limit] | None = None, reach_clamp: float | None = None,
                  softness: float | None = None, look_at=None, follow_clip: bool = False, offset_keys=(),
                  pull: float | None = None) -> Chain:  # fmt: skip
        """Append a chain solved after the existing ones. The target defaults to where the
        chain's tip is now (for a look_at chain, 1 m along its forward axis), so adding a
        chain changes no pose (the reach clamp aside: a straight limb bends a hair).
        `follow_clip`: the goal is the clip's animated tip plus `offset_keys` (clip_goals.py)."""
        joints = list(joints)
        if target is None:
            self._chains.indices(name, joints)
            target = self.world_position(joints[-1])
            kind = registry.find(solver)
            if kind is not None and not kind.reaches:  # aimed: 1 m along its forward axis
                target = target + self._forward_of(joints[-1], look_at)
        given = {"tolerance": tolerance, "max_iterations": max_iterations, "reach_clamp": reach_clamp, "softness": softness}
        kw = {k: v for k, v in given.items() if v is not None}  # None: the chain's default
        ch = Chain(
            name, joints, solver=solver, target=target, pole=pole, weight=weight, limits=limits, look_at=look_at,
            follow_clip=follow_clip, offset_keys=offset_keys, pull=pull, **kw
        )
        self._chains.insert(ch)
        self._state.forget_frame()  # what chains read has changed: a full pass
        return ch

    def _forward_of(self, joint: str, look_at) -> np.ndarray:
        axis = np.asarray((look_at or LookAtSettings()).forward_axis, dtype=np.float64)
        norm = float(np.linalg.norm(axis))
        if not np.isfinite(norm) or norm <= 0.0:
            return np.zeros(3)  # the chain's own check names the bad axis
        quats = self._skeleton.fk(self._state.pose)[1]
        return quat_rotate(quats[self._skeleton.index(joint)], axis / norm)

    def remove_chain(self, name: str) -> None:
        self.chain(name)  # KeyError naming the chains there are
        self._chains.remove(name)
        self.timeline.set_track(name, Track())  # a track of no chain would make the rig unsaveable
        if self._gait is not None and name in self._gait.legs:
            self.gait = None  # a gait without one of its legs is not the gait it was
        self._state.drop(name)
        self._state.forget_frame()  # what chains read has changed: a full pass

    # --- the rig package: what its modules (rig_eval, rig_frame, ...) read and change ------

    # Read every frame: attrgetter properties (no Python call).
    chains_by_name = property(attrgetter("_chains.chains"), doc="The chains by name in solve order (a read-only view).")
    frame_board = property(attrgetter("_chains.board"), doc="The chains' stamps and packed input rows in solve order, "
                           "kept as they change (frame_board.py): what the compiled frame reads; not to be changed.")
    plans = property(attrgetter("_chains.plans"), doc="Each chain's Plan (rig_plan.py): joint indices, upstream "
                     "chains (a read-only view).")
    parents = property(attrgetter("_chains.parents"), doc="Each joint's parent index (-1 for a root), as plain ints; "
                       "not to be changed.")
    solve_state = property(attrgetter("_state"), doc="Everything a solve changes: the shown pose, warm starts, caches "
                           "(rig_state.py).")

    @property
    def clip_goals(self) -> ClipGoals:
        """Where follow-clip chains' goals come from (clip_goals.py)."""
        return self._clip_goals

    # --- output ----------------------------------------------------------------------------

    @property
    def pose(self) -> Pose:
        """The current output pose (solved and blended); a copy."""
        return self._state.pose.copy()

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
        self._state.adopt(Pose(rot, trans))
        self._layer_edited = False

    def world_positions(self) -> np.ndarray:
        """World positions (n, 3) of every joint in the current pose."""
        return self._state.world_positions(self._skeleton).copy()

    def world_position(self, joint_name: str) -> np.ndarray:
        i = self._skeleton.index(joint_name)
        return self._state.world_positions(self._skeleton)[i].copy()

    def reset(self) -> None:
        """Back to the animated pose, forgetting every chain's warm start."""
        self._state.restart(self.animated_pose())
        self._layer_edited = False

    def copy(self) -> "Rig":
        """A deep copy (chains, warm starts, pose, clip, timeline) that shares nothing mutable."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._skeleton = _copy.deepcopy(self._skeleton)
        other._clip_goals = self._clip_goals.copy_for(other)
        other._chains = self._chains.copy_for(other._skeleton, other._clip_goals, other._role_pull)
        other._state = self._state.copy()
        other._clip = _copy.deepcopy(self._clip)
        other._gait_run = _copy.deepcopy(self._gait_run)
        other.timeline = _copy.deepcopy(self.timeline)
        return other

    # --- the solved pose, saved and put back (rig_saving.py) ------------------------------

    def solved_state(self) -> SolvedPose:
        """Every chain's last solution as data: what a saved rig keeps so that opening it
        shows the same pose and solves on from it as this rig would."""
        return rig_saving.solved_state(self)

    def restore_state(self, solved: SolvedPose, *, solve: bool = True) -> dict[str, ChainReport] | None:
        """Put back what solved_state() gave (this rig's, a copy's or a file's): the warm
        starts are replaced by the saved solutions, and the rig shows them as they were
        (unless `solve` is False), solving nothing. Later solves go on from them exactly as
        the rig that saved them would: a solution is the answer only of the settings it
        was solved with, on the base it stood on (rig_pose.py). A solution that does not
        fit its chain (an edited file) is dropped: that chain is solved afresh."""
        reports = rig_saving.restore_state(self, solved, solve)
        if solve:
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
        self._state.forget_frame()

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


