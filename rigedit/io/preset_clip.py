"""A preset's clip: in the JSON (a preset's own, sparse), or in a clip file beside it.

A preset's own clip (a bundled scene's: a few joints turning) stays in the JSON, sparse, as
it came; any other clip (an imported BVH or glTF take) is saved beside the preset as
NAME.clip.npz (io/clip_file.py explains why), referenced by its bare name so the pair can
move together, with the clip's source (file, up axis, scale, animation, a BVH's layout).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rigedit.core.clip import Clip, ClipSource
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Skeleton

from . import clip_file
from .atomic import atomic_write_bytes, atomic_write_text
from .preset_errors import PresetError


def clip_section(rig: Rig, file: str) -> tuple[str, dict] | None:
    """The preset's key for the rig's clip ("clip" or "clip_file") and its value; None for none."""
    clip = rig.clip
    if clip is None:
        return None
    if not _clip_goes_beside(rig):
        return "clip", _clip_document(rig)
    ref = {
        "file": clip_file.sidecar_name(file),
        "frames": clip.n_frames,
        "frame_time": float(clip.frame_time),
        "sha256": clip_file.digest(clip, list(rig.skeleton.names)),
    }
    if clip.source is not None:
        ref["source"] = _source_document(clip.source)
    return "clip_file", ref


def clip_file_for(rig: Rig, path: Path) -> tuple[Path, bytes] | None:
    """Where the rig's clip file goes beside the preset at `path`, and its bytes; None when
    the clip (or its absence) is all in the preset. A clip that would not open again is a
    PresetError here, before anything is written."""
    if not _clip_goes_beside(rig):
        return None
    clip, names = rig.clip, list(rig.skeleton.names)
    problem = clip_file.clip_problem(clip.rotations, clip.translations, clip.frame_time, names)
    if problem is not None:
        raise PresetError(str(path), [(f"clip_file.{problem[0]}", f"cannot save: {problem[1]}")])
    return path.with_name(clip_file.sidecar_name(path)), clip_file.clip_bytes(clip, names)


def write_pair(path: Path, text: str, sidecar: Path, data: bytes) -> None:
    """The clip file first, then the preset, each atomically; if the preset cannot be
    written, the clip file is put back as it was, so the old pair still opens. (A power cut
    between the two renames leaves the new clip file beside the old preset: the checksum
    tells, and the reader takes the old clip from NAME.clip.npz.bak.) An unchanged clip
    file (its bytes depend only on the clip) is not written again."""
    try:
        old = sidecar.read_bytes()
    except FileNotFoundError:
        old = None
    except OSError as e:
        raise PresetError(str(path), [("clip_file", f"{sidecar}: cannot read the clip file there: {e.strerror or e}")]) from None
    changed = old != data
    if changed:
        try:
            atomic_write_bytes(sidecar, data)
        except OSError as e:
            raise PresetError(str(path), [("clip_file", f"{sidecar}: cannot write the clip file: {e.strerror or e}")]) from None
    try:
        atomic_write_text(path, text)
    except BaseException as e:
        if changed:
            try:
                if old is None:
                    sidecar.unlink()
                else:
                    atomic_write_bytes(sidecar, old, backup=False)
            except OSError:
                pass  # the checksum in the old preset still tells the two apart
        if isinstance(e, OSError):
            raise PresetError(str(path), [("", f"cannot write: {e.strerror or e}")]) from None
        raise


def clip_from(m, skeleton: Skeleton) -> Clip:
    """The preset's own clip (a ClipModel) on its skeleton: joints not listed keep their rest."""
    n = len(m.root_translations) if m.root_translations is not None else len(next(iter(m.rotations.values())))
    rot = np.broadcast_to(skeleton.rest_rotations, (n,) + skeleton.rest_rotations.shape).copy()
    trans = np.broadcast_to(skeleton.offsets, (n,) + skeleton.offsets.shape).copy()
    for name, quats in m.rotations.items():
        q = np.array(quats, dtype=np.float64)
        norm = np.linalg.norm(q, axis=1, keepdims=True)
        # Unit to round-off: kept bit for bit, so load -> save -> load gives the same numbers.
        rot[:, skeleton.index(name)] = np.where(np.abs(norm - 1.0) <= 1e-12, q, q / norm)
    if m.root_translations is not None:
        trans[:, 0] = np.array(m.root_translations, dtype=np.float64)
    return Clip(rot, trans, m.frame_time, _source_from(m.source))


def clip_file_from(m, skeleton: Skeleton, file: str) -> Clip:
    """The clip in the file the preset names, relative to the preset's own folder. When that
    file is missing, damaged or from another save, its backup (NAME.clip.npz.bak, the one
    the last save replaced) is taken if its checksum is the preset's: a save cut short
    between the two renames leaves the old preset with its clip there."""
    where = Path(file).parent / m.file
    read = lambda p: clip_file.read_clip_file(  # noqa: E731
        p, joints=list(skeleton.names), frames=m.frames, frame_time=m.frame_time, sha256=m.sha256
    )
    try:
        clip = read(where)
    except clip_file.ClipFileError as e:
        backup = where.with_name(where.name + ".bak")
        try:
            clip = read(backup) if backup.exists() else None
        except clip_file.ClipFileError:
            clip = None
        if clip is None:
            raise PresetError(file, [("clip_file", str(e))]) from None
    clip.source = _source_from(m.source)
    return clip


def _source_from(m) -> ClipSource | None:
    if m is None:
        return None
    bvh = None if m.bvh is None else m.bvh.model_dump()
    return ClipSource(m.file, m.up_axis, m.scale, m.animation, bvh)


def _clip_goes_beside(rig: Rig) -> bool:
    """Whether the rig's clip is saved in a clip file: every clip but the preset's own, and
    the preset's own too once it moves a joint the sparse form cannot hold (a translation
    other than the root's)."""
    clip = rig.clip
    if clip is None:
        return False
    if not getattr(rig, "clip_in_preset", False):
        return True
    rest = rig.skeleton.offsets[1:]
    return not np.allclose(clip.translations[:, 1:], rest, atol=1e-12, rtol=0.0)


def _source_document(src: ClipSource) -> dict:
    out: dict[str, Any] = {"file": src.file}
    for key in ("up_axis", "scale", "animation", "bvh"):
        value = getattr(src, key)
        if value is not None:
            out[key] = value
    return out


def _clip_document(rig: Rig) -> dict:
    """A preset's clip, sparse: rotations of the joints that move, the root's translations.
    Other joints' translations are their offsets (a clip that moves them goes in a clip file:
    _clip_goes_beside)."""
    sk, clip = rig.skeleton, rig.clip
    rotations = {}
    for j, name in enumerate(sk.names):
        q = clip.rotations[:, j]
        if not np.allclose(q, sk.rest_rotations[j], atol=1e-12, rtol=0.0):
            rotations[name] = q.tolist()
    out: dict[str, Any] = {"frame_time": clip.frame_time}
    root = clip.translations[:, 0]
    if not np.allclose(root, sk.offsets[0], atol=1e-12, rtol=0.0) or not rotations:
        out["root_translations"] = root.tolist()
    out["rotations"] = rotations
    if clip.source is not None:
        out["source"] = _source_document(clip.source)
    return out
