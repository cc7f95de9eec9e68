"""The rig's animation input, a part of Rig (a mixin, as rig_posing.Posing): what the IK
works over at the current time. The clip (or the rest pose) at `time`, the pose layer on
it, the ground under grounded feet and the procedural gait; `input_version` counts their
changes, which the rig's caches (rig_state.py) and the editor's onion skin key on."""
from __future__ import annotations

import numpy as np

from .chain_checks import check_finite
from .clip import Clip
from .rig_anim import animated
from .rig_gait import GaitSettings, RigGait, check_gait
from .rig_ground import Ground, make_ground
from .rig_posing import layered
from .skeleton import Pose


class AnimationInput:
    """Rig's clip, ground, gait and time (the fields are the Rig's, set in Rig.__init__)."""

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
        self._state.forget_animation()

    @property
    def ground(self) -> Ground | None:
        """The ground grounded chains stand on (kind and height field), or None."""
        return self._ground

    @ground.setter
    def ground(self, spec) -> None:
        """None, "flat", "slope", a HeightField or a Ground."""
        self._ground = make_ground(spec)
        self._input_version += 1  # as for the clip: a height field is too big to compare
        self._state.forget_animation()

    @property
    def gait(self) -> GaitSettings | None:
        """Procedural legs: which chains step as the body (root) moves, and how; or None."""
        return self._gait

    @gait.setter
    def gait(self, settings: GaitSettings | None) -> None:
        self._gait = None if settings is None else check_gait(settings, self.chain_names)
        self._gait_run = None

    @property
    def running_gait(self) -> RigGait | None:
        """The gait as it runs (RigGait: where each foot is planted and stepping), or None
        before the first advance_gait."""
        return self._gait_run

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
        return layered(self._pose_layer, self._base_pose(), self._time, self._skeleton, self.root_indices())

    @property
    def input_version(self) -> int:
        """A counter bumped whenever what the animated pose is made of changes (the clip, its
        frames, the ground, the pose layer): caches of solved frames outside the rig (the
        editor's onion skin) key on it."""
        return self._input_version

    @property
    def timed(self) -> bool:
        """Whether the animated pose depends on the time (a clip, or pose layer keys)."""
        return self._clip is not None or self._pose_layer.is_animated

    @property
    def animation_key(self) -> tuple:
        """What the animated pose is made of, as the rig's caches key it: input_version,
        and the time if the pose depends on it (else None). One read: asked every solve."""
        return self._input_version, (self._time if self._clip is not None or self._pose_layer.is_animated else None)

    def animation_edited(self) -> None:
        """The rest pose or the clip's frames were changed in place: the next solve reads the
        animated pose afresh (as assigning a clip does)."""
        self._input_version += 1
        self._state.forget_animation()

