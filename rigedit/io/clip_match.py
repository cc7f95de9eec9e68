"""Read a clip (BVH, glTF, USD: io/formats.py) for a skeleton that already exists, such as a preset's.

A BVH file's unit and axes are guesses when read on its own. Here they are not guessed: the
file's OFFSETs are matched to the skeleton's offsets, which fixes the scale (least squares)
and the file's up axis (each of the six is tried), so a clip can never come in at a different size from the rig
it animates. Joints are matched by name and the clip's columns put in the skeleton's order.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_rotate

from .bvh import BvhError, BvhLayout, read_bvh
from .bvh_axes import UP_TO_Y
from . import formats

# Offsets are written with 6+ significant digits in real files; a fit this close (relative
# to the largest offset) means the same skeleton, anything worse a different one.
FIT_RTOL = 1e-5


class ClipMismatch(ValueError):
    """The clip's joints or proportions do not fit the skeleton; names the file and the joint."""


@dataclass
class MatchedClip:
    clip: Clip
    layout: BvhLayout  # how to write the result back as BVH in the clip's own units and axes
    source: str  # the format's name ("BVH", "glTF", "USD")


def read_clip_for(
    skeleton: Skeleton, path: str | os.PathLike, *, fps: float | None = None, animation: int | str = 0
) -> MatchedClip:
    """The clip in `path`, in metres and in `skeleton`'s joint order. Raises BvhError,
    GltfError or ClipMismatch (all ValueErrors) naming the file and the problem. `fps`
    resamples a glTF clip (a BVH clip keeps its frames); `animation` picks a glTF's clip by
    name or index (read_gltf's rule)."""
    path = os.fspath(path)
    fmt = formats.of(path, formats.CLIPS)
    if fmt is None:
        raise ClipMismatch(f"{path}: a clip must be a {formats.listing(formats.CLIPS, 'or')} file")
    if fmt.clip_for is not None:
        return fmt.clip_reader()(skeleton, path, fps=fps, animation=animation)
    return _clip_in_metres(skeleton, fmt, path, fps=fps, animation=animation)


def _clip_in_metres(skeleton: Skeleton, fmt: formats.Format, path: str, *, fps, animation) -> MatchedClip:
    """A clip from a format that states its units and axes (glTF, USD): read as the file
    says (no guessing of its up axis), and required to fit the skeleton as it is."""
    fmt.require("import")
    imp = fmt.reader()(path, up=None, animation=animation if fmt.animations else None, fps=fps, scale=None, skin=None)
    if imp.clip is None:
        raise ClipMismatch(f"{path}: the file has no animation")
    clip = _reorder(imp.skeleton, imp.clip, skeleton, path)
    _check_fit(skeleton, imp.skeleton, 1.0, "+y", path)
    return MatchedClip(clip, BvhLayout(), fmt.name)


def bvh_clip_for(skeleton: Skeleton, path: str, **_) -> MatchedClip:
    """BVH's entry in io/formats.py: the file's unit and up axis fitted to the skeleton."""
    imp = read_bvh(path, scale=1.0, up_axis="y")  # the file's own numbers, to fit against
    if imp.clip is None:
        raise BvhError(path, None, "the file has no motion frames")
    _same_names(imp.skeleton, skeleton, path)
    # A joint with position channels takes its place from the motion: its OFFSET says nothing
    # of the proportions (rigedit's writer puts 0 0 0 there so that readers agree).
    fixed = [
        i for i, n in enumerate(skeleton.names)
        if not any(c.endswith("position") for c in imp.layout.channels.get(n, ()))
    ]
    fits = []
    for k, up in enumerate(UP_TO_Y):  # +y first: an exact tie keeps the file's axes
        scale, residual = _fit(skeleton, imp.skeleton, up, fixed)
        fits.append((residual, k, up, scale))
    residual, _, up, scale = min(fits)
    _check_fit(skeleton, imp.skeleton, scale, up, path, fixed)
    matched = read_bvh(path, scale=scale, up_axis=up)
    clip = _reorder(matched.skeleton, matched.clip, skeleton, path)
    return MatchedClip(clip, matched.layout, formats.BVH.name)


def _same_names(a: Skeleton, b: Skeleton, path: str) -> None:
    missing = [n for n in b.names if n not in set(a.names)]
    extra = [n for n in a.names if n not in set(b.names)]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks joints {missing[:5]}{' ...' if len(missing) > 5 else ''}")
        if extra:
            parts.append(f"has joints the rig does not, {extra[:5]}{' ...' if len(extra) > 5 else ''}")
        raise ClipMismatch(f"{path}: the clip does not fit the rig's skeleton: it " + " and ".join(parts))
    for n in b.names:
        pa, pb = a.parents[a.index(n)], b.parents[b.index(n)]
        name_a = None if pa < 0 else a.names[pa]
        name_b = None if pb < 0 else b.names[pb]
        if name_a != name_b:
            raise ClipMismatch(f"{path}: the clip does not fit the rig's skeleton: {n!r} hangs from {name_a!r} in the clip, from {name_b!r} in the rig")


def _offsets_in(skeleton: Skeleton, order: Skeleton) -> np.ndarray:
    return skeleton.offsets[[skeleton.index(n) for n in order.names]]


def _fit(target: Skeleton, source: Skeleton, up: str, use: list[int] | None = None) -> tuple[float, float]:
    """The least-squares scale of source's offsets onto target's (over the joints `use`,
    default all) after turning `up` to +Y, and the worst residual."""
    b = quat_rotate(UP_TO_Y[up], _offsets_in(source, target))
    a = target.offsets
    if use is not None:
        a, b = a[use], b[use]
    bb = float(np.sum(b * b))
    scale = float(np.sum(a * b)) / bb if bb > 0 else 1.0
    if not scale > 0:
        return 1.0, np.inf
    return scale, float(np.abs(a - scale * b).max())


def _check_fit(target: Skeleton, source: Skeleton, scale: float, up: str, path: str, use: list[int] | None = None) -> None:
    b = quat_rotate(UP_TO_Y[up], _offsets_in(source, target) * scale)
    diff = np.linalg.norm(target.offsets - b, axis=1)
    if use is not None:
        diff[[i for i in range(len(diff)) if i not in set(use)]] = 0.0
    size = max(float(np.abs(target.offsets).max()), 1e-12)
    worst = int(np.argmax(diff))
    if diff[worst] > FIT_RTOL * size:
        raise ClipMismatch(
            f"{path}: the clip does not fit the rig's skeleton: joint {target.names[worst]!r} has offset "
            f"{np.round(b[worst], 6).tolist()} in the clip (at the best scale) but {np.round(target.offsets[worst], 6).tolist()} in the rig"
        )


def _reorder(source: Skeleton, clip: Clip, target: Skeleton, path: str) -> Clip:
    _same_names(source, target, path)
    cols = [source.index(n) for n in target.names]
    return Clip(clip.rotations[:, cols], clip.translations[:, cols], clip.frame_time)
