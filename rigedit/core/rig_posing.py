"""The rig's side of the pose layer (issue 25; the layer itself is core/pose_layer.py).

`Posing` is mixed into Rig: it owns the rig's `PoseLayer` and the edits scripts and the
editor make on it. The layer goes into the animated pose (`layered`, called by
Rig.animated_pose), so every path that starts from the animated pose (Rig.solve, full
body, IK/FK matching, follow-clip goals, the bake) sees it. Every edit bumps the rig's
input version, as a clip assignment does, so the cached animated frame and a settled
frame are made afresh.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .chain_checks import check_finite
from .clip_goals import _placed_elsewhere, keyed_offset
from .pose_layer import PoseLayer, TIME_EPS
from .skeleton import Pose
from .transforms import quat_conj, quat_mul, quat_normalize


def layered(layer: PoseLayer, pose: Pose, time: float, skeleton, roots: list[int]) -> Pose:
    """`pose` (the clip or rest pose at `time`) with the layer on it; `pose` is not changed."""
    if layer.is_empty:
        return pose
    rot, trans = layered_frames(layer, pose.rotations[None], pose.translations[None], (time,), skeleton, roots)
    return Pose(rot[0], trans[0])


def layered_frames(layer: PoseLayer, rotations: np.ndarray, translations: np.ndarray, times, skeleton,
                   roots: list[int], inverse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Frames (F, n, 4) and (F, n, 3) with the layer on, frame f at times[f] (a bake's
    frames in one compiled call, pose_kernel.py), as new arrays; `inverse`: taken off."""
    rot = np.array(rotations, dtype=np.float64, order="C")
    trans = np.array(translations, dtype=np.float64, order="C")
    if not layer.is_empty:
        packed = layer.packed
        packed.put(times, rot, trans, packed.joints_of(skeleton), roots, inverse)
    return rot, trans


def unlayered(layer: PoseLayer, rotations: np.ndarray, translations: np.ndarray, time: float, skeleton, roots: list[int]):
    """The base (clip or rest) rotations and translations that `layered` turns into these
    (IK/FK matching writes shown rotations into the clip: the layer is taken off first)."""
    rot, trans = layered_frames(layer, rotations[None], translations[None], (time,), skeleton, roots, inverse=True)
    return rot[0], trans[0]


class Posing:
    """Rig methods for the pose layer (Rig's __init__ sets `_pose_layer` and `_layer_edited`)."""

    @property
    def pose_layer(self) -> PoseLayer:
        """The pose layer over the clip (an immutable value: keep it to undo an edit)."""
        return self._pose_layer

    @pose_layer.setter
    def pose_layer(self, layer: PoseLayer) -> None:
        if not isinstance(layer, PoseLayer):
            raise TypeError(f"pose_layer must be a PoseLayer, got {type(layer).__name__}")
        unknown = layer.unknown_joints(self._skeleton.names)
        if unknown:
            raise ValueError(f"pose layer: no joint named {', '.join(map(repr, unknown))} in the skeleton")
        self._put_layer(layer)

    def _put_layer(self, layer: PoseLayer) -> None:
        self._pose_layer = layer
        self._layer_edited = True  # rotation() reads the layer until the next solve
        self._input_version += 1
        self._state.forget_animation()

    def root_indices(self) -> list[int]:
        """The skeleton's root joints' indices."""
        return [j for j, p in enumerate(self.parents) if p < 0]

    def _base_pose(self) -> Pose:
        """The clip at the rig's time, or the rest pose: what the layer is added to."""
        if self._clip is None:
            return self._skeleton.rest_pose()
        return self._clip.pose_at(self._time)

    def set_rotation(self, name: str, rotation) -> None:
        """Make the shown local rotation (before the IK) of joint `name` `rotation` (x, y,
        z, w) at the rig's time, as an unkeyed edit of the pose layer: on a joint without
        keys it holds at every time; on a keyed joint until the time changes (key_pose
        keeps it). A joint inside a chain at weight 1 is then overruled by the IK."""
        i = self._skeleton.index(name)
        q = np.asarray(rotation, dtype=np.float64)
        if q.shape != (4,) or not np.all(np.isfinite(q)) or np.linalg.norm(q) < 1e-12:
            raise ValueError(f"set_rotation({name!r}): a rotation is a non-zero finite quaternion (x, y, z, w), got {rotation!r}")
        base = self._base_pose().rotations[i]
        delta = quat_normalize(quat_mul(quat_conj(base), q / np.linalg.norm(q)))
        self._put_layer(self._pose_layer.with_rotation(name, delta, self._time))

    def set_root_offset(self, offset) -> None:
        """The roots' translation offset on the pose layer (metres), an unkeyed edit."""
        v = np.asarray(offset, dtype=np.float64)
        if v.shape != (3,) or not np.all(np.isfinite(v)):
            raise ValueError(f"set_root_offset: an offset is three finite numbers (metres), got {offset!r}")
        self._put_layer(self._pose_layer.with_offset(v, self._time))

    def rotation(self, name: str) -> tuple[float, float, float, float]:
        """The shown local rotation (x, y, z, w) of joint `name` in the pose after the last
        solve; when the pose layer has changed since, the layer's (before the IK)."""
        i = self._skeleton.index(name)
        source = self.animated_pose() if self._layer_edited else self._state.pose
        return tuple(float(v) for v in source.rotations[i])

    def _settle_layer(self, time: float) -> None:
        """The time is moving to `time`: unkeyed edits of keyed joints made elsewhere go."""
        layer = self._pose_layer
        if abs(time - self._time) > TIME_EPS and layer.has_pending:
            self._put_layer(layer.settled(time))

    # --- keys ------------------------------------------------------------------------------

    def key_pose(self, joints: Iterable[str] | None = None, time: float | None = None, *, chains: bool = True) -> None:
        """Key the pose layer's values shown now at `time` (None: the rig's time) for
        `joints` (None: every joint, and the roots' offset; the offset is keyed too when a
        root joint is named), and (`chains`, the default) every chain's weight and goal (its
        target and pole on the timeline; a follow-clip chain's offset from the animated tip)
        there. chains=False keys the joints alone (Auto-key of a joint's rotation)."""
        t = self._time if time is None else _seconds(time, "key_pose time")
        names = self._joint_names(joints)
        root = joints is None or any(self.parents[self._skeleton.index(n)] < 0 for n in names)
        self._put_layer(self._pose_layer.keyed(t, names, root, now=self._time))
        if chains:
            key_chains(self, t)

    @property
    def pose_keys(self) -> tuple[float, ...]:
        """The pose layer's key times, sorted (every joint's, those within 1e-9 s once)."""
        return self._pose_layer.key_times

    def delete_pose_key(self, time: float) -> None:
        """Every joint's pose-layer key at `time` (+-1e-9 s) deleted; chain keys stay."""
        self._put_layer(self._pose_layer.without_key(self._key_time(time)))

    def move_pose_key(self, time: float, new_time: float) -> None:
        """Every joint's pose-layer key at `time` moved to `new_time` (a key there is replaced)."""
        new_time = _seconds(new_time, "move_pose_key new_time")
        self._put_layer(self._pose_layer.moved_key(self._key_time(time), new_time))

    def set_pose_key_interpolation(self, time: float, interpolation: str) -> None:
        """The interpolation ("linear", "ease", "constant") of the segment leaving the pose
        keys at `time`, for every joint keyed there."""
        self._put_layer(self._pose_layer.with_interpolation(self._key_time(time), interpolation))

    def _key_time(self, time: float) -> float:
        t = _seconds(time, "pose key time")
        if not any(abs(k - t) <= TIME_EPS for k in self._pose_layer.key_times):
            keys = ", ".join(f"{k:g}" for k in self._pose_layer.key_times) or "none"
            raise ValueError(f"no pose key at {t:g} s (pose keys: {keys})")
        return t

    def _joint_names(self, joints: Iterable[str] | None) -> list[str]:
        if joints is None:
            return list(self._skeleton.names)
        if isinstance(joints, str):
            joints = [joints]
        names = list(joints)
        for n in names:
            self._skeleton.index(n)  # KeyError names an unknown joint before anything changes
        return names


def key_chains(rig, time: float) -> None:
    """Every chain's weight and goal as they are now, keyed at `time` (key_pose)."""
    timeline = rig.timeline
    for ch in rig.chains:
        timeline.add_key(ch.name, "weight", time, ch.weight)
        if _placed_elsewhere(rig, ch):
            continue  # the ground or the gait places this goal
        if ch.following:
            offset = np.asarray(ch.target) - rig.clip_goals.tip(ch)
            ch.offset_keys = keyed_offset(ch.offset_keys, time, offset, rig.clip_goals.frame_rate())
            continue
        timeline.key_target(ch.name, time, ch.target)
        if ch.pole is not None:
            timeline.key_pole(ch.name, time, ch.pole)


def _seconds(value, what: str) -> float:
    try:
        return check_finite(value)
    except ValueError as e:
        raise ValueError(f"{what} {e}") from None
