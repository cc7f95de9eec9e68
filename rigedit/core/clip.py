"""An animation clip: a pose per frame, sampled at a fixed frame time, and where it came from."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .skeleton import Pose
from .transforms import quat_slerp


@dataclass(frozen=True)
class ClipSource:
    """The file a clip was imported from and how it was read, remembered for summaries (the
    data itself is saved with the rig, so the file is never read again)."""

    file: str  # the file's name, without its folder (the pair saved with the rig may move)
    up_axis: str | None = None  # the file's up axis as read ("+y", "+z"...); None: not known
    scale: float | None = None  # metres per file unit; None: not known (glTF is in metres)
    animation: str | None = None  # which of the file's animations (glTF); None: the only one
    # A BVH file's layout as plain data (channels per joint, End Sites, scale, up: io/bvh.py
    # BvhLayout), so a bake of the saved rig is written the way the file was.
    bvh: dict | None = None

    def describe(self) -> str:
        parts = [self.file]
        if self.animation:
            parts.append(f"animation {self.animation}")
        if self.up_axis:
            parts.append(f"up {self.up_axis}")
        if self.scale is not None:
            parts.append(f"scale {self.scale:.6g} m/unit")
        return parts[0] if len(parts) == 1 else f"{parts[0]} ({', '.join(parts[1:])})"


@dataclass
class Clip:
    rotations: np.ndarray  # (frames, joints, 4) local rotations
    translations: np.ndarray  # (frames, joints, 3) local translations, metres
    frame_time: float  # seconds per frame
    source: ClipSource | None = field(default=None, compare=False)  # where it was imported from

    def __post_init__(self) -> None:
        self.rotations = np.asarray(self.rotations, dtype=np.float64)
        self.translations = np.asarray(self.translations, dtype=np.float64)
        if self.rotations.ndim != 3 or self.rotations.shape[-1] != 4:
            raise ValueError(f"clip rotations must be (frames, joints, 4), got {self.rotations.shape}")
        if self.translations.shape != self.rotations.shape[:-1] + (3,):
            raise ValueError("clip translations must be (frames, joints, 3) matching rotations")
        if not self.frame_time > 0:
            raise ValueError(f"clip frame time must be positive, got {self.frame_time}")

    @property
    def n_frames(self) -> int:
        return self.rotations.shape[0]

    @property
    def duration(self) -> float:
        """Time of the last frame (a one-frame clip lasts 0 s)."""
        return (self.n_frames - 1) * self.frame_time

    @property
    def frame_rate(self) -> float:
        return 1.0 / self.frame_time

    def describe(self) -> str:
        """One line for a status bar or a summary: length, rate and source."""
        text = f"{self.n_frames} frames at {self.frame_rate:.4g} fps, {self.duration:.3g} s"
        return text if self.source is None else f"{text}, from {self.source.describe()}"

    def frame(self, i: int) -> Pose:
        i = int(np.clip(i, 0, self.n_frames - 1))
        return Pose(self.rotations[i].copy(), self.translations[i].copy())

    def pose_at(self, time: float) -> Pose:
        """The pose at `time` seconds, slerped between the two nearest frames; held at the ends."""
        f = float(np.clip(time / self.frame_time, 0.0, self.n_frames - 1))
        i = int(np.floor(f))
        u = f - i
        if u == 0.0 or i + 1 >= self.n_frames:
            return self.frame(i)
        rot = quat_slerp(self.rotations[i], self.rotations[i + 1], u)
        trans = (1.0 - u) * self.translations[i] + u * self.translations[i + 1]
        return Pose(rot, trans)
