"""Read a BVH file into a Skeleton and a Clip, and write one back.

Meaning, as the format defines it: each joint's local transform is a translation (its OFFSET,
or its position channels when it has them: those replace the offset, they are not added to
it) followed by its rotation channels applied in the order listed, intrinsically, in degrees.
So "Zrotation Xrotation Yrotation" is R = Rz @ Rx @ Ry, and orders may differ per joint.

Choices:
- End Sites become joints named "<Parent>_End" (no channels, rotation identity), so the tip
  of a hand, foot or head chain has a position. The layout remembers them and the writer puts
  them back as End Sites.
- Units: every length is converted to metres. Give `scale` (metres per file unit, or a unit
  name: "m", "cm", "mm", "in", "cmu"); without it the unit is guessed from the figure's size
  and the import says why (`scale_reason`).
- Axes: by default the file's axes are kept, whatever its up axis (`file_up_axis` reports a
  guess). `up_axis="z"` declares the file Z-up and converts it to Y-up by turning it -90
  degrees about X, (x, y, z) -> (x, z, -y), the same turn Blender's glTF exporter uses;
  `up_axis="auto"` does so only when the guess says +Z. The writer turns it back.
- The skeleton's rest pose is BVH's: zero rotations, offsets as written.
"""
from __future__ import annotations

import os
import warnings as _warnings
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_conj, quat_from_euler, quat_mul, quat_rotate, quat_to_euler

from .atomic import atomic_write_text
from .bvh_format import POSITION_CHANNELS, ROTATION_CHANNELS, BvhError, RawBvh, RawJoint, format_bvh, parse_bvh
from .bvh_units import figure_height, guess_scale, guess_up_axis, parse_scale

__all__ = ["BvhError", "BvhImport", "BvhLayout", "read_bvh", "read_bvh_text", "write_bvh"]

# -90 degrees about X: takes +Z up to +Y up.
Z_UP_TO_Y_UP = np.array([-np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)])
# The layout used for joints a file never described (a glTF skeleton, a joint added later).
DEFAULT_ROTATION = ("Zrotation", "Xrotation", "Yrotation")
DEFAULT_FRAME_TIME = 1.0 / 30.0


@dataclass(frozen=True)
class BvhLayout:
    """What a file looked like, so the writer can write it the same way.

    channels: per joint name, channel names in file order (End Sites have none).
    end_sites: names of joints that were End Sites.
    scale: metres per file unit.
    converted_from_z_up: the import turned a Z-up file to Y-up; the writer turns it back.
    """

    channels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    end_sites: frozenset[str] = frozenset()
    scale: float = 1.0
    converted_from_z_up: bool = False


@dataclass
class BvhImport:
    path: str | None
    skeleton: Skeleton
    clip: Clip | None  # None when the file has no frames
    layout: BvhLayout
    scale: float
    scale_reason: str
    file_up_axis: str  # a guess, e.g. "+y" or "+z", in the file's own axes
    up_axis_reason: str
    warnings: list[str]

    @property
    def channel_count(self) -> int:
        return sum(len(c) for c in self.layout.channels.values())

    def summary(self) -> str:
        frames = 0 if self.clip is None else self.clip.n_frames
        rate = "" if self.clip is None else f" at {self.clip.frame_rate:.4g} fps"
        ends = len(self.layout.end_sites)
        conv = ", converted to Y up" if self.layout.converted_from_z_up else ""
        return (
            f"{len(self.skeleton) - ends} joints + {ends} End Sites, {self.channel_count} channels, "
            f"{frames} frames{rate}; scale {self.scale:.6g} m/unit ({self.scale_reason}); "
            f"file up axis {self.file_up_axis}{conv}"
        )


def read_bvh(path: str | os.PathLike, *, scale: float | str | None = None, up_axis: str | None = None) -> BvhImport:
    """Read a BVH file. Raises BvhError (a ValueError) naming the file, line and problem."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BvhError(path, None, f"cannot read the file: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_bvh_text(text, path=os.fspath(path), scale=scale, up_axis=up_axis)


def read_bvh_text(text: str, *, path: str | None = None, scale: float | str | None = None, up_axis: str | None = None) -> BvhImport:
    raw = parse_bvh(text, path)
    skeleton, clip = _to_skeleton_and_clip(raw)
    if scale is None:
        metres, reason = guess_scale(figure_height(skeleton, clip))
    else:
        try:
            metres, reason = parse_scale(scale)
        except ValueError as e:
            raise BvhError(path, None, str(e)) from None
    ref = skeleton.rest_pose() if clip is None else clip.frame(0)
    file_up, up_reason = guess_up_axis(skeleton, ref)
    convert = _wants_conversion(up_axis, file_up, path)
    skeleton, clip = _scaled(skeleton, clip, metres)
    if convert:
        skeleton, clip = _turned(skeleton, clip, Z_UP_TO_Y_UP)
    layout = BvhLayout(
        channels={j.name: j.channels for j in raw.joints},
        end_sites=frozenset(j.name for j in raw.joints if j.end_site),
        scale=metres,
        converted_from_z_up=convert,
    )
    return BvhImport(path, skeleton, clip, layout, metres, reason, file_up, up_reason, list(raw.warnings))


def _wants_conversion(up_axis: str | None, file_up: str, path) -> bool:
    key = None if up_axis is None else up_axis.strip().lower().lstrip("+")
    if key in (None, "keep", "y"):
        return False
    if key == "z":
        return True
    if key == "auto":
        return file_up == "+z"
    raise BvhError(path, None, f"up_axis must be None, 'y', 'z' or 'auto', got {up_axis!r}")


def _to_skeleton_and_clip(raw: RawBvh) -> tuple[Skeleton, Clip | None]:
    names = [j.name for j in raw.joints]
    parents = [j.parent for j in raw.joints]
    offsets = np.array([j.offset for j in raw.joints], dtype=np.float64)
    skeleton = Skeleton(names, parents, offsets, np.tile([0.0, 0.0, 0.0, 1.0], (len(names), 1)))
    frames = raw.motion.shape[0]
    if frames == 0:
        return skeleton, None
    rotations = np.zeros((frames, len(names), 4))
    rotations[..., 3] = 1.0
    translations = np.broadcast_to(offsets, (frames, len(names), 3)).copy()
    by_order: dict[str, tuple[list[int], list[list[int]]]] = {}
    for j, (joint, cols) in enumerate(zip(raw.joints, raw.channel_columns())):
        rot_cols = []
        order = ""
        for c, col in zip(joint.channels, cols):
            if c in POSITION_CHANNELS:
                translations[:, j, POSITION_CHANNELS.index(c)] = raw.motion[:, col]
            else:
                rot_cols.append(col)
                order += c[0]
        if order:
            by_order.setdefault(order, ([], []))
            by_order[order][0].append(j)
            by_order[order][1].append(rot_cols)
    for order, (joints, cols) in by_order.items():
        angles = raw.motion[:, np.array(cols)]  # (frames, joints, 3) in channel order
        rotations[:, joints] = quat_from_euler(order, angles)
    return skeleton, Clip(rotations, translations, raw.frame_time)


def _scaled(skeleton: Skeleton, clip: Clip | None, s: float) -> tuple[Skeleton, Clip | None]:
    sk = Skeleton(skeleton.names, skeleton.parents, skeleton.offsets * s, skeleton.rest_rotations)
    if clip is None:
        return sk, None
    return sk, Clip(clip.rotations, clip.translations * s, clip.frame_time)


def _turned(skeleton: Skeleton, clip: Clip | None, q: np.ndarray) -> tuple[Skeleton, Clip | None]:
    """The same motion seen in axes turned by q: world positions become q * p.

    Every local frame is turned alike (offsets rotated, rotations conjugated), so rest
    rotations stay identity and the skeleton's offsets read in the new axes.
    """
    qc = quat_conj(q)

    def conj(r):
        return quat_mul(quat_mul(q, r), qc)

    sk = Skeleton(skeleton.names, skeleton.parents, quat_rotate(q, skeleton.offsets), conj(skeleton.rest_rotations))
    if clip is None:
        return sk, None
    return sk, Clip(conj(clip.rotations), quat_rotate(q, clip.translations), clip.frame_time)


def write_bvh(path: str | os.PathLike, skeleton: Skeleton, clip: Clip | None = None, layout: BvhLayout | None = None, *, digits: int = 10) -> None:
    """Write `clip` (or the rest pose, as one frame) on `skeleton` as BVH, atomically.

    With the layout of an import, the file has that import's hierarchy, channel orders, End
    Sites, units and axes. Joints the layout does not know get a root's six channels or three
    rotation channels (Z, X, Y); any joint whose translation moves in the clip gets position
    channels, so nothing the clip says is lost. BVH has no rest rotations: a skeleton that has
    them (glTF) is written with its poses' full local rotations, which FK reads the same.
    """
    layout = layout or BvhLayout()
    if clip is None:
        rest = skeleton.rest_pose()
        clip = Clip(rest.rotations[None], rest.translations[None], DEFAULT_FRAME_TIME)
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"clip has {clip.rotations.shape[1]} joints, skeleton has {len(skeleton)}")
    offsets, rotations, translations = skeleton.offsets, clip.rotations, clip.translations
    if layout.converted_from_z_up:
        back = quat_conj(Z_UP_TO_Y_UP)
        offsets = quat_rotate(back, offsets)
        rotations = quat_mul(quat_mul(back, rotations), Z_UP_TO_Y_UP)
        translations = quat_rotate(back, translations)
    offsets = offsets / layout.scale
    translations = translations / layout.scale

    order = _depth_first(skeleton)
    new_index = {old: new for new, old in enumerate(order)}
    joints: list[RawJoint] = []
    columns: list[np.ndarray] = []
    for old in order:
        name = skeleton.names[old]
        parent = int(skeleton.parents[old])
        end_site = name in layout.end_sites and not skeleton.children(old)
        moves = not np.allclose(translations[:, old], offsets[old], rtol=0.0, atol=1e-9 * max(1.0, np.abs(offsets).max()))
        channels = () if end_site else _channels_for(name, parent, layout, moves)
        joints.append(RawJoint(name, -1 if parent < 0 else new_index[parent], tuple(offsets[old]), channels, end_site))
        columns.extend(_channel_values(channels, rotations[:, old], translations[:, old]))
    motion = np.stack(columns, axis=1) if columns else np.zeros((clip.n_frames, 0))
    text = format_bvh(RawBvh(joints, clip.frame_time, motion), digits=digits)
    # No .bak: an export is regenerated from the rig, unlike a preset someone edited by hand.
    atomic_write_text(path, text, backup=False)


def _depth_first(skeleton: Skeleton) -> list[int]:
    kids: dict[int, list[int]] = {}
    for i, p in enumerate(skeleton.parents):
        kids.setdefault(int(p), []).append(i)
    order, stack = [], list(reversed(kids.get(-1, [])))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(kids.get(i, [])))
    return order


def _channels_for(name: str, parent: int, layout: BvhLayout, moves: bool) -> tuple[str, ...]:
    channels = layout.channels.get(name)
    if not channels:
        channels = (POSITION_CHANNELS if parent < 0 else ()) + DEFAULT_ROTATION
    if moves and not any(c in POSITION_CHANNELS for c in channels):
        channels = POSITION_CHANNELS + tuple(channels)
    if not any(c in ROTATION_CHANNELS for c in channels):
        channels = tuple(channels) + DEFAULT_ROTATION
    return tuple(channels)


def _channel_values(channels: tuple[str, ...], rotations: np.ndarray, translations: np.ndarray) -> list[np.ndarray]:
    rot_order = "".join(c[0] for c in channels if c in ROTATION_CHANNELS)
    angles = None
    if rot_order:
        with _warnings.catch_warnings():
            # Gimbal lock: scipy picks one of the equivalent angle sets, which is still exact.
            _warnings.simplefilter("ignore", UserWarning)
            angles = quat_to_euler(rot_order, rotations)
        # Keep curves continuous for other tools: no jumps of 360 degrees between frames.
        angles = np.unwrap(angles, period=360.0, axis=0)
    out = []
    for c in channels:
        if c in POSITION_CHANNELS:
            out.append(translations[:, POSITION_CHANNELS.index(c)])
        else:
            out.append(angles[:, rot_order.index(c[0])])
    return out
