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
  name: "m", "cm", "mm", "in", "cmu"); without it the unit is guessed from the skeleton's
  bone lengths (never the motion, so one skeleton always gets one unit) and the import says
  why (`scale_reason`).
- Axes: the figure comes in upright in rigedit's +Y. By default (`up_axis="auto"`) the file's
  up axis is guessed from where its head and feet are (`file_up_axis`, `up_axis_reason`) and
  a +Z or -Z up file is turned to +Y (io/bvh_axes.py: +Z up is -90 degrees about X, (x, y, z) -> (x, z, -y), as
  Blender's exporters do). `up_axis="z"`, `"-x"`... declares it; `"y"` (or "keep") keeps the
  file's axes. The layout remembers the turn and the writer turns it back.
- The skeleton's rest pose is BVH's: zero rotations, offsets as written.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_conj, quat_from_euler, quat_mul, quat_rotate

from .atomic import atomic_write_text
from .bvh_axes import UP_TO_Y, parse_up, turned
from .bvh_euler import euler_channels
from .bvh_format import POSITION_CHANNELS, ROTATION_CHANNELS, BvhError, RawBvh, RawJoint, format_bvh, parse_bvh
from .bvh_names import restore_names, safe_names, write_mapping
from .bvh_roots import one_skeleton
from .bvh_units import guess_skeleton_scale, guess_up_axis, parse_scale
from .figure import figure_size

__all__ = ["BvhError", "BvhImport", "BvhLayout", "read_bvh", "read_bvh_text", "write_bvh"]

# -90 degrees about X: takes +Z up to +Y up.
Z_UP_TO_Y_UP = UP_TO_Y["+z"]
# The layout used for joints a file never described (a glTF skeleton, a joint added later).
# The up axes `auto` acts on. Z-up files are common (3ds Max, Blender, MotionBuilder exports);
# a guess of X or -Y is far more often a rest pose with the limbs along X (Bandai's) or an
# odd first frame than a file really written that way, so those need --up.
AUTO_TURNS = ("+z", "-z")
DEFAULT_ROTATION = ("Zrotation", "Xrotation", "Yrotation")
DEFAULT_FRAME_TIME = 1.0 / 30.0
# A joint whose translation leaves its rest offset by more than this (relative to the figure)
# moves, and gets position channels; float32 noise in a glTF clip (~1e-7) does not.
POSITION_RTOL = 1e-6


@dataclass(frozen=True)
class BvhLayout:
    """What a file looked like, so the writer can write it the same way.

    channels: per joint name, channel names in file order (End Sites have none).
    end_sites: names of joints that were End Sites.
    scale: metres per file unit.
    up: the file's up axis ("+y", "+z", "-x", ...), which the import turned to +Y; the writer
        turns it back.
    converted_from_z_up: up == "+z" (the older spelling; True given alone means up "+z").
    """

    channels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    end_sites: frozenset[str] = frozenset()
    scale: float = 1.0
    converted_from_z_up: bool = False
    up: str = "+y"

    def __post_init__(self) -> None:
        up = parse_up(self.up)
        if up == "auto":
            raise ValueError("a BVH layout's up axis is a file axis such as '+z', not 'auto'")
        if self.converted_from_z_up and up == "+y":
            up = "+z"
        object.__setattr__(self, "up", up)
        object.__setattr__(self, "converted_from_z_up", up == "+z")

    @property
    def turn(self) -> np.ndarray:
        """The quaternion that took the file's axes to rigedit's (+Y up)."""
        return UP_TO_Y[self.up]


@dataclass
class BvhImport:
    path: str | None
    skeleton: Skeleton
    clip: Clip | None  # None when the file has no frames
    layout: BvhLayout
    scale: float
    scale_reason: str
    file_up_axis: str  # e.g. "+y" or "+z", in the file's own axes: the guess, or the axis given
    up_axis_reason: str
    warnings: list[str]

    @property
    def channel_count(self) -> int:
        return sum(len(c) for c in self.layout.channels.values())

    def summary(self) -> str:
        frames = 0 if self.clip is None else self.clip.n_frames
        rate = "" if self.clip is None else f" at {self.clip.frame_rate:.4g} fps"
        ends = len(self.layout.end_sites)
        conv = ", turned to +Y up" if self.layout.up != "+y" else ""
        return (
            f"{len(self.skeleton) - ends} joints + {ends} End Sites, {self.channel_count} channels, "
            f"{frames} frames{rate}; scale {self.scale:.6g} m/unit ({self.scale_reason}); "
            f"file up axis {self.file_up_axis}{conv}"
        )


def read_bvh(path: str | os.PathLike, *, scale: float | str | None = None, up_axis: str | None = "auto") -> BvhImport:
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


def read_bvh_text(text: str, *, path: str | None = None, scale: float | str | None = None, up_axis: str | None = "auto") -> BvhImport:
    try:
        up = parse_up(up_axis)
    except ValueError as e:
        raise BvhError(path, None, f"up_axis: {e}") from None
    raw = restore_names(parse_bvh(text, path), path)
    if scale is None:
        metres, reason = guess_skeleton_scale([j.parent for j in raw.joints], [j.offset for j in raw.joints])
    else:
        try:
            metres, reason = parse_scale(scale)
        except ValueError as e:
            raise BvhError(path, None, str(e)) from None
    # Built once, already in metres: a Skeleton's set-up costs time that grows with depth.
    skeleton, clip = _to_skeleton_and_clip(raw, metres)
    ref = skeleton.rest_pose() if clip is None else clip.frame(0)
    file_up, up_reason = guess_up_axis(skeleton, ref)
    if up == "auto" and file_up not in AUTO_TURNS:
        up_reason += f"; kept as +Y (auto turns only {' and '.join(AUTO_TURNS)} up files; give the up axis to turn others)"
        file_up = "+y"
    elif up != "auto":
        up_reason = f"given: {up} up (the guess was {file_up}: {up_reason})"
        file_up = up
    if file_up != "+y":
        skeleton, clip = turned(skeleton, clip, UP_TO_Y[file_up])
    layout = BvhLayout(
        channels={j.name: j.channels for j in raw.joints},
        end_sites=frozenset(j.name for j in raw.joints if j.end_site),
        scale=metres,
        up=file_up,
    )
    return BvhImport(path, skeleton, clip, layout, metres, reason, file_up, up_reason, list(raw.warnings))


def _to_skeleton_and_clip(raw: RawBvh, metres: float) -> tuple[Skeleton, Clip | None]:
    """The file's skeleton and motion, lengths times `metres`, in the file's axes."""
    names = [j.name for j in raw.joints]
    parents = [j.parent for j in raw.joints]
    offsets = np.array([j.offset for j in raw.joints], dtype=np.float64) * metres
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
                translations[:, j, POSITION_CHANNELS.index(c)] = raw.motion[:, col] * metres
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


def write_bvh(
    path: str | os.PathLike,
    skeleton: Skeleton,
    clip: Clip | None = None,
    layout: BvhLayout | None = None,
    *,
    digits: int = 10,
    reference_angles: dict[str, np.ndarray] | None = None,
) -> None:
    """Write `clip` (or the rest pose, as one frame) on `skeleton` as BVH, atomically.

    With the layout of an import, the file has that import's hierarchy, rotation orders, End
    Sites, units and axes. Joints the layout does not know get Z, X, Y rotation channels, and
    a root six channels. BVH has no rest rotations: a skeleton that has them (glTF) is written
    with its poses' full local rotations, which FK reads the same.

    Joint names are written in letters, digits and '_' (three.js cannot bind others), the
    originals beside the file for re-import (io/bvh_names.py).

    Written so that every reader agrees (readers differ on what position channels mean:
    three.js adds them to the OFFSET, Blender's importer puts them in its place):
    - position channels only on a root that has them in the layout or moves, and on joints
      whose translation really moves (by more than POSITION_RTOL of the figure over the clip;
      a glTF clip's float32 noise is not motion), and such a joint's OFFSET is zero, so
      adding and replacing give the same position;
    - every other joint's OFFSET is its rest translation, with no position channels (or, for
      a joint the clip holds still away from its rest offset, that translation);
    - Euler angles continuous from frame to frame (bvh_euler); `reference_angles`, per joint
      name (frames, 3) in the layout's channel order and file axes, are a source file's own
      angles, which each frame then stays nearest (within 180 degrees of each).
    """
    one_skeleton(path, skeleton)  # the rule for every writer of BVH (io/bvh_roots.py)
    layout = layout or BvhLayout()
    if clip is None:
        rest = skeleton.rest_pose()
        clip = Clip(rest.rotations[None], rest.translations[None], DEFAULT_FRAME_TIME)
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"clip has {clip.rotations.shape[1]} joints, skeleton has {len(skeleton)}")
    still = POSITION_RTOL * figure_size(skeleton, clip) / layout.scale
    offsets, rotations, translations = _in_file_axes(skeleton, clip, layout)
    order = _depth_first(skeleton)
    new_index = {old: new for new, old in enumerate(order)}
    written = safe_names([skeleton.names[old] for old in order])
    joints: list[RawJoint] = []
    columns: list[np.ndarray] = []
    for new, old in enumerate(order):
        name = skeleton.names[old]
        parent = int(skeleton.parents[old])
        end_site = name in layout.end_sites and not skeleton.children(old)
        t = translations[:, old]
        channels = () if end_site else _channels_for(name, parent, layout, bool(np.ptp(t, axis=0).max() > still))
        offset = _file_offset(channels, t, offsets[old], still)
        joints.append(RawJoint(written[new], -1 if parent < 0 else new_index[parent], offset, channels, end_site))
        reference = None if reference_angles is None else reference_angles.get(name)
        columns.extend(_channel_values(channels, rotations[:, old], translations[:, old], reference))
    motion = np.stack(columns, axis=1) if columns else np.zeros((clip.n_frames, 0))
    text = format_bvh(RawBvh(joints, clip.frame_time, motion), digits=digits)
    # No .bak: an export is regenerated from the rig, unlike a preset someone edited by hand.
    atomic_write_text(path, text, backup=False)
    write_mapping(path, written, [skeleton.names[old] for old in order], [j.end_site for j in joints])


def _in_file_axes(skeleton: Skeleton, clip: Clip, layout: BvhLayout) -> tuple:
    """The rest offsets and the clip's local rotations and translations in the file's axes
    and units."""
    offsets, rotations, translations = skeleton.offsets, clip.rotations, clip.translations
    if layout.up != "+y":
        back = quat_conj(layout.turn)
        offsets = quat_rotate(back, offsets)
        rotations = quat_mul(quat_mul(back, rotations), layout.turn)
        translations = quat_rotate(back, translations)
    return offsets / layout.scale, rotations, translations / layout.scale


def _file_offset(channels, t: np.ndarray, rest: np.ndarray, still: float) -> tuple:
    """A joint's OFFSET: zero under position channels (adding and replacing agree), else its
    rest offset, or the translation the clip holds it at away from that (t: (frames, 3))."""
    if any(c in POSITION_CHANNELS for c in channels):
        return (0.0, 0.0, 0.0)
    if np.abs(t - rest).max() <= still:
        return tuple(rest)
    return tuple(t.mean(axis=0))  # held away from its rest offset all clip long (a glTF clip can)


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
    given = layout.channels.get(name)
    rot = tuple(c for c in given or () if c in ROTATION_CHANNELS) or DEFAULT_ROTATION
    root_has = parent < 0 and (not given or any(c in POSITION_CHANNELS for c in given))
    if not (moves or root_has):
        return rot
    # Position channels where the file had them (its order kept), else first, as is usual.
    if given and any(c in POSITION_CHANNELS for c in given):
        out = list(given)
        missing = [c for c in POSITION_CHANNELS if c not in out]
        return tuple(missing + out) if missing else tuple(out)
    return POSITION_CHANNELS + rot


def _channel_values(channels: tuple[str, ...], rotations: np.ndarray, translations: np.ndarray, reference=None) -> list[np.ndarray]:
    rot_order = "".join(c[0] for c in channels if c in ROTATION_CHANNELS)
    angles = None
    if rot_order:
        if reference is not None and np.shape(reference) != (len(rotations), 3):
            reference = None  # not this clip's frames: continuity alone
        angles = euler_channels(rot_order, rotations, reference)
    out = []
    for c in channels:
        if c in POSITION_CHANNELS:
            out.append(translations[:, POSITION_CHANNELS.index(c)])
        else:
            out.append(angles[:, rot_order.index(c[0])])
    return out
