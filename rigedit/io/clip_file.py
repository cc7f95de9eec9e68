"""The clip file saved beside a preset: NAME.clip.npz holds the rig's animation as float64.

Why a file beside the preset and not the JSON itself: a mocap clip is big (the CMU walk is
524 frames of 38 joints, 1.1 MB of float64: 2.1 MB as JSON text, 1.2 MB and 14,700 lines
even in the preset's sparse form, against a 7 kB preset; ten minutes at 120 fps is hundreds
of MB), JSON would make the preset a wall of numbers no one reads or diffs, and parsing and
validating that text costs far more than reading arrays (the walk's pair opens in ~11 ms).
A NumPy .npz is binary (the float64 values come back as they were saved, bit for bit),
partly compressed (0.66 MB for the walk), loads without pickle, and any Python tool reads
it. The preset
keeps what a reader wants to see (the file's name, frames, frame time, where the clip came
from) and a SHA-256 of the arrays, so a clip file from another save (a crash between the
two renames, a file copied over the wrong one) is refused instead of played.

The preset names the file relative to itself (a bare name: they sit in the same folder), so
moving or copying the two together keeps them working.

Members (each one .npy array, little-endian):

    format        "rigedit.clip"
    version       1
    joints        (J,) the skeleton's joint names, in the preset's order
    frame_time    ()  seconds per frame
    rotations     (F, J, 4) local rotations (x, y, z, w)
    translations  (F, J, 3) local translations, metres

The archive's bytes depend only on the clip (fixed member order and timestamps), so saving
an unchanged clip again leaves its file alone.
"""
from __future__ import annotations

import hashlib
import io
import math
import zipfile
from pathlib import Path

import numpy as np

from rigedit.core.clip import Clip

FORMAT = "rigedit.clip"
VERSION = 1
SUFFIX = ".clip.npz"
# Saved rotations are unit to round-off; anything further off was not written by rigedit.
UNIT_TOLERANCE = 1e-6
MAX_NAME = 1024  # characters a joint name may have in the file (a wrong name is then named as such)
_STAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: the bytes do not depend on when


class ClipFileError(ValueError):
    """A clip file could not be read: `file`, the member (`field`, "" for the file) and the problem."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file, self.field, self.problem = file, field, problem
        super().__init__(f"{file}: {field}: {problem}" if field else f"{file}: {problem}")


def sidecar_name(preset: str | Path) -> str:
    """The clip file's name for a preset: walk.json -> walk.clip.npz."""
    return Path(preset).stem + SUFFIX


def beside(preset: str | Path) -> list[Path]:
    """The file a preset's save writes beside it (io/formats.py's `beside`)."""
    return [Path(preset).with_name(sidecar_name(preset))]


def digest(clip: Clip, joints: list[str]) -> str:
    """SHA-256 of what the clip file holds (names, frame time, arrays), in hex."""
    h = hashlib.sha256(f"{FORMAT} {VERSION}\0".encode())
    h.update("\0".join(joints).encode("utf-8") + b"\0")
    h.update(np.float64(clip.frame_time).astype("<f8").tobytes())
    h.update(np.ascontiguousarray(clip.rotations, dtype="<f8").tobytes())
    h.update(np.ascontiguousarray(clip.translations, dtype="<f8").tobytes())
    return h.hexdigest()


def clip_problem(rot: np.ndarray, trans: np.ndarray, frame_time: float, joints: list[str]) -> tuple[str, str] | None:
    """(member, problem) for values a clip file may not hold, else None: checked before
    writing as after reading, so a clip that saves is a clip that opens."""
    for name, arr in (("frame_time", np.float64(frame_time)), ("rotations", rot), ("translations", trans)):
        flat = np.atleast_1d(arr)
        bad = np.argwhere(~np.isfinite(flat))
        if len(bad):
            where = "" if np.ndim(arr) == 0 else f" at {tuple(int(i) for i in bad[0])}"
            return name, f"must be finite, got {flat[tuple(bad[0])]}{where}"
    if not frame_time > 0:
        return "frame_time", f"must be positive, got {frame_time!r}"
    norms = np.linalg.norm(rot, axis=-1)
    off = np.argwhere(np.abs(norms - 1.0) > UNIT_TOLERANCE)
    if len(off):
        f, j = (int(i) for i in off[0])
        return "rotations", f"frame {f}, joint {joints[j]!r}: not a unit quaternion (length {norms[f, j]!r})"
    return None


def clip_bytes(clip: Clip, joints: list[str]) -> bytes:
    """The clip file's bytes."""
    members = {
        "format": np.array(FORMAT),
        "version": np.array(VERSION, dtype="<i8"),
        "joints": np.array(list(joints), dtype=str),
        "frame_time": np.array(clip.frame_time, dtype="<f8"),
        "rotations": np.ascontiguousarray(clip.rotations, dtype="<f8"),
        "translations": np.ascontiguousarray(clip.translations, dtype="<f8"),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, arr in members.items():
            npy = io.BytesIO()
            np.lib.format.write_array(npy, arr, allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_STAMP)
            # Rotations are noisy float64 and barely compress (deflate took 50 ms to save 38%
            # of the CMU walk's), so they are stored; the rest (translations that are mostly
            # constant offsets: 96% saved in 1 ms) is deflated. A save stays a few ms.
            info.compress_type = zipfile.ZIP_STORED if name == "rotations" else zipfile.ZIP_DEFLATED
            z.writestr(info, npy.getvalue(), compresslevel=1)
    return out.getvalue()


def read_clip_file(path: str | Path, *, joints: list[str], frames: int, frame_time: float, sha256: str) -> Clip:
    """The clip in `path`, checked against what the preset says it holds (its skeleton's
    joints, frame count, frame time and checksum). Raises ClipFileError naming the file, the
    member and the problem; never allocates more than those frames and joints need."""
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ClipFileError(
            file, "", "missing: the clip is saved beside the preset, so move or copy the two together "
            "(or delete \"clip_file\" from the preset to open the rig without its clip)",
        ) from None
    except OSError as e:
        raise ClipFileError(file, "", f"cannot read: {e.strerror or e}") from None
    try:
        z = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, NotImplementedError):
        raise ClipFileError(file, "", "not a clip file: not an .npz (zip) archive, or a damaged one") from None
    n = len(joints)
    with z:
        read = _Reader(file, z)
        fmt = read("format", (), "U", MAX_NAME)
        if str(fmt) != FORMAT:
            raise ClipFileError(file, "format", f"not a rigedit clip file: expected {FORMAT!r}, got {str(fmt)[:40]!r}")
        version = int(read("version", (), "iu", 8))
        if version > VERSION:
            raise ClipFileError(file, "version", f"{version} was made by a newer rigedit (this one reads up to {VERSION}); update rigedit")
        if version < 1:
            raise ClipFileError(file, "version", f"must be 1 or more, got {version}")
        names = read("joints", (n,), "U", max([len(j) for j in joints] + [MAX_NAME]))
        ft = float(read("frame_time", (), "f", 8))
        rot = read("rotations", (frames, n, 4), "f", 8)
        trans = read("translations", (frames, n, 3), "f", 8)
    for k, (got, want) in enumerate(zip(names.tolist(), joints)):
        if got != want:
            raise ClipFileError(file, f"joints[{k}]", f"is {got!r}, the preset's skeleton has {want!r} there")
    problem = clip_problem(rot, trans, ft, joints)
    if problem is not None:
        raise ClipFileError(file, *problem)
    if not math.isclose(ft, frame_time, rel_tol=1e-12, abs_tol=0.0):
        raise ClipFileError(file, "frame_time", f"is {ft!r} s, the preset says {frame_time!r} s")
    clip = Clip(rot, trans, ft)
    if digest(clip, joints) != sha256:
        raise ClipFileError(
            file, "", "does not hold the clip the preset was saved with (its checksum differs): one of the pair "
            f"was replaced or a save was cut short; the clip file saved before it, if any, is {Path(file).name}.bak",
        )
    return clip


class _Reader:
    """Reads one member at a time, checking its .npy header (shape, kind, item size) before
    reading any data: a header promising more than the preset's frames and joints need is
    refused before anything is allocated."""

    def __init__(self, file: str, z: zipfile.ZipFile) -> None:
        self.file, self.z = file, z
        self.infos = {i.filename: i for i in z.infolist()}

    def __call__(self, name: str, shape: tuple, kinds: str, max_chars_or_bytes: int) -> np.ndarray:
        file = self.file
        info = self.infos.get(name + ".npy")
        if info is None:
            raise ClipFileError(file, name, "missing from the archive")
        try:
            with self.z.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    got, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                elif version == (2, 0):
                    got, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                else:
                    raise ClipFileError(file, name, f"unsupported .npy format version {version}")
                if dtype.hasobject:
                    raise ClipFileError(file, name, "holds Python objects (pickled), which rigedit never loads")
                if dtype.kind not in kinds:
                    want = {"U": "text", "iu": "a whole number", "f": "float64"}[kinds]
                    raise ClipFileError(file, name, f"must be {want}, got {dtype} values")
                size = dtype.itemsize // 4 if dtype.kind == "U" else dtype.itemsize
                if size > max_chars_or_bytes or (kinds == "f" and dtype.itemsize != 8):
                    raise ClipFileError(file, name, f"must be {'float64' if kinds == 'f' else 'at most ' + str(max_chars_or_bytes) + ' wide'}, got {dtype}")
                if tuple(got) != shape:
                    raise ClipFileError(file, name, f"must have shape {shape} (as the preset says), got {tuple(got)}")
                count = int(np.prod(shape, dtype=np.int64))
                data = f.read(count * dtype.itemsize)
                if len(data) != count * dtype.itemsize:
                    raise ClipFileError(file, name, "truncated: fewer values than its shape says")
        except ClipFileError:
            raise
        # A damaged archive fails in many ways (bad CRC, a cut deflate stream, an unknown
        # compression, a garbled header): all of them mean the same thing to the user.
        except Exception as e:  # noqa: BLE001
            raise ClipFileError(file, name, f"damaged: {e}") from None
        arr = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        return arr.astype(np.float64) if kinds == "f" else arr.copy()
