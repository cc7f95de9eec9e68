"""Who reads and writes rig presets, for Rig.load, Rig.default and Rig.save.

Reading and writing files is the io layer's job and core never imports io (the layering in
docs/ARCHITECTURE.md), so the reader and writer are registered here from above:
`rigedit/__init__.py` registers stand-ins that import rigedit.io.preset on first use, and
rigedit.io.preset registers its own functions when it is imported. This module imports
nothing, so registering costs `rigedit --help` nothing.
"""
from __future__ import annotations

from typing import Any, Callable

Reader = Callable[[Any], Any]  # path -> Rig
Writer = Callable[[Any, Any], None]  # (rig, path) -> None

_reader: Reader | None = None
_writer: Writer | None = None


def register(reader: Reader, writer: Writer) -> None:
    """Make `reader` and `writer` the preset reader and writer (the last registration wins)."""
    global _reader, _writer
    _reader, _writer = reader, writer


def reader() -> Reader:
    if _reader is None:
        raise RuntimeError("no preset reader registered: import rigedit (or rigedit.io.preset) first")
    return _reader


def writer() -> Writer:
    if _writer is None:
        raise RuntimeError("no preset writer registered: import rigedit (or rigedit.io.preset) first")
    return _writer
