"""Copy, paste and mirror poses on a rig's pose layer (issue 25; mixed into Rig).

A copied pose is plain, JSON-able data: {"joints": {name: [x, y, z, w]}, "root": [x, y, z]}
holding the shown local rotations (and the first root's local translation) of the pose
after the last solve, or of the layer when it has changed since (as Rig.rotation reads).
Pasting and mirroring make those rotations shown again as unkeyed edits of the layer
(Rig.set_rotation's rule), so key_pose keys them and one pose_layer snapshot undoes them.
The mirror's partners and plane are core/mirror.py's.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from .mirror import Symmetry, mirrored, symmetry
from .skeleton import Pose
from .transforms import quat_conj, quat_mul, quat_normalize, quat_slerp


class PoseTools:
    """Rig methods: copy_pose, paste_pose, mirror_pose (Rig's pose layer in rig_posing.py)."""

    def _shown_pose(self) -> Pose:
        return self.animated_pose() if self._layer_edited else self._state.pose.copy()

    def symmetry(self) -> Symmetry:
        """The character's left/right partners and symmetry plane (core/mirror.py), from
        the rest pose or the clip's first frame, whichever is the more symmetric."""
        candidates = [self._skeleton.rest_pose()]
        if self._clip is not None:
            candidates.append(self._clip.frame(0))
        return symmetry(self._skeleton, candidates)

    def copy_pose(self, joints: Iterable[str] | None = None) -> dict:
        """The shown local rotations of `joints` (None: every joint, with the first root's
        local translation; a named root brings it too) as plain data."""
        names = self._joint_names(joints)
        shown = self._shown_pose()
        sk = self._skeleton
        out: dict = {"joints": {n: [float(v) for v in shown.rotations[sk.index(n)]] for n in names}}
        root = self.root_indices()[0]
        if joints is None or sk.names[root] in names:
            out["root"] = [float(v) for v in shown.translations[root]]
        return out

    def paste_pose(self, pose: dict, mirror: bool = False, weight: float = 1.0) -> list[str]:
        """Make a copied pose shown (slerped from the shown pose by `weight`, 0..1); with
        `mirror`, its mirror image goes onto the partners of the joints it names. Returns
        the pose's joint names this rig does not have (skipped, not an error)."""
        weight = _weight(weight)
        rotations, root = checked_pose(pose)
        sk = self._skeleton
        shown = self._shown_pose()
        target = shown.copy()
        pasted = [sk.index(n) for n in rotations if n in sk.names]
        for i in pasted:
            target.rotations[i] = rotations[sk.names[i]]
        roots = self.root_indices()
        if root is not None:
            target.translations[roots] += root - shown.translations[roots[0]]
        if mirror:
            sym = self.symmetry()
            target = mirrored(sk, sym, target)
            pasted = sorted({sym.partners[i] for i in pasted})
        self._show(pasted, target, shown, weight, root is not None)
        return [n for n in rotations if n not in sk.names]

    def mirror_pose(self, joints: Iterable[str] | None = None) -> None:
        """Left <-> right across the character's symmetry plane: every joint (None, the
        roots' translation too) or the named joints and their partners take the mirrored
        shown pose (unkeyed edits of the layer)."""
        sk = self._skeleton
        sym = self.symmetry()
        shown = self._shown_pose()
        target = mirrored(sk, sym, shown)
        if joints is None:
            picked = list(range(len(sk)))
        else:
            named = [sk.index(n) for n in self._joint_names(joints)]
            picked = sorted(set(named) | {sym.partners[i] for i in named})
        roots = self.root_indices()
        self._show(picked, target, shown, 1.0, joints is None or any(i in roots for i in picked))

    def _show(self, picked: list[int], target: Pose, shown: Pose, weight: float, root: bool) -> None:
        """Put the layer values that make joints `picked` (and, if `root`, the roots'
        translation) show `target`, slerped from `shown` by `weight`: one layer edit."""
        base = self._base_pose()
        rot = target.rotations[picked]
        if weight < 1.0:
            rot = quat_slerp(shown.rotations[picked], rot, weight)
        deltas = quat_normalize(quat_mul(quat_conj(base.rotations[picked]), rot))
        layer = self._pose_layer
        for i, d in zip(picked, deltas):
            layer = layer.with_rotation(self._skeleton.names[i], d, self._time)
        if root:
            r = self.root_indices()[0]
            want = shown.translations[r] + (target.translations[r] - shown.translations[r]) * weight
            layer = layer.with_offset(want - base.translations[r], self._time)
        self._put_layer(layer)


def _weight(weight) -> float:
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
        raise ValueError(f"paste weight must be a number from 0 to 1, got {weight!r}")
    return float(weight)


def checked_pose(pose) -> tuple[dict[str, np.ndarray], np.ndarray | None]:
    """The pose's rotations (normalised) and root, or a ValueError naming the field."""
    if not isinstance(pose, dict) or not isinstance(pose.get("joints"), dict):
        raise ValueError("a pose is {'joints': {name: [x, y, z, w]}, 'root': [x, y, z]} (root optional)")
    extra = set(pose) - {"joints", "root"}
    if extra:
        raise ValueError(f"pose: {', '.join(sorted(extra))}: not a field (fields: joints, root)")
    rotations = {}
    for name, q in pose["joints"].items():
        v = _numbers(q, 4, f"pose joints.{name}")
        if math.sqrt(sum(x * x for x in v)) < 1e-9:
            raise ValueError(f"pose joints.{name}: must be a rotation (x, y, z, w), got a zero quaternion")
        rotations[str(name)] = quat_normalize(np.array(v))
    root = pose.get("root")
    return rotations, None if root is None else np.array(_numbers(root, 3, "pose root"))


def _numbers(v, n: int, where: str) -> list[float]:
    ok = isinstance(v, (list, tuple)) and len(v) == n and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v
    )
    if not ok:
        raise ValueError(f"{where}: must be {n} finite numbers, got {v!r}")
    return [float(x) for x in v]
