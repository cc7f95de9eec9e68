"""Atomic file replacement: at every instant the file on disk is either the old one or the new one."""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path


def atomic_write_text(path: str | Path, text: str, *, backup: bool = True) -> None:
    """Write `text` (UTF-8) to `path` so that a crash or a full disk never leaves it half
    written. The text goes to a temporary file in the same folder (so the final rename stays
    on one file system), is flushed and fsynced, and then replaces `path` with os.replace,
    which is atomic. With `backup`, the previous file is first copied to NAME.bak (through
    its own temporary file, so a crash there cannot damage either file)."""
    atomic_write_bytes(path, text.encode("utf-8"), backup=backup)


def atomic_write_bytes(path: str | Path, data: bytes, *, backup: bool = True) -> None:
    """atomic_write_text for bytes (a preset's clip file, a .glb, a .usdc). An OSError names
    `path`, the file asked for, never the hidden temporary file the folder refused."""
    path = Path(path)
    try:
        _write(path, data, backup)
    except OSError as e:
        if e.filename is None or os.fspath(e.filename) == os.fspath(path):
            raise
        raise OSError(e.errno, e.strerror, os.fspath(path)) from e  # OSError() picks the subclass by errno


def _write(path: Path, data: bytes, backup: bool) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    mode = file_mode(path)
    tmp = _write_temp(folder, path.name, data, mode)
    bak_tmp = None
    try:
        if backup and path.exists():
            bak = path.with_name(path.name + ".bak")
            bak_tmp = _copy_temp(path, folder, bak.name)
            os.replace(bak_tmp, bak)
            bak_tmp = None  # renamed: it is the .bak now, not a leftover
        os.replace(tmp, path)
    except BaseException:
        # Every way out of a failed save removes what this save created, so a full disk or
        # a locked .bak (Windows) never leaves .NAME.XXXX.tmp files behind.
        _remove_quietly(tmp)
        if bak_tmp is not None:
            _remove_quietly(bak_tmp)
        raise
    _fsync_folder(folder)


def file_mode(path: Path) -> int:
    """The permissions a file written at `path` should get: those it has, or a new file's."""
    try:
        return stat.S_IMODE(path.stat().st_mode)  # keep the permissions the file had
    except OSError:
        # What a plain open() would give under the usual umask. Reading the real umask means
        # setting it, which races with other threads creating files.
        return 0o644


def _write_temp(folder: Path, name: str, data: bytes, mode: int) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        _remove_quietly(tmp)
        raise
    return tmp


def _copy_temp(src: Path, folder: Path, name: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as f:
            shutil.copyfileobj(f, out)
            out.flush()
            os.fsync(out.fileno())
        shutil.copymode(src, tmp)
    except BaseException:
        _remove_quietly(tmp)
        raise
    return tmp


def _remove_quietly(p: str) -> None:
    try:
        os.unlink(p)
    except OSError:
        pass


def _fsync_folder(folder: Path) -> None:
    # The rename itself is only durable once the folder entry is on disk (POSIX; Windows
    # cannot open folders, and its rename is durable on return).
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
