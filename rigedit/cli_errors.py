"""How a command says what went wrong: one line on stderr naming the file, and exit status 1.

Every error a command reports is a ValueError (bad input or options: BvhError, GltfError,
PresetError, RetargetError..., each naming its file and field) or an OSError (a file the
system would not read or write, named by the system). Nothing else reaches the user, and never
as a traceback.
"""
from __future__ import annotations

import sys


def named(message: str, *paths: str | None) -> str:
    """The message, led by the first of `paths` unless it names one of them already."""
    given = [p for p in paths if p]
    return message if not given or any(p in message for p in given) else f"{given[0]}: {message}"


def error_line(e: ValueError | OSError, *paths: str | None) -> str:
    """A ValueError's message led by a file (named()); an OSError as "FILE: why", FILE the
    one the system named, else the first of `paths`."""
    if isinstance(e, OSError) and not isinstance(e, ValueError):
        return named(e.strerror or str(e) or type(e).__name__, e.filename and str(e.filename), *paths)
    return named(str(e) or type(e).__name__, *paths)


def fail(e: ValueError | OSError, *paths: str | None) -> int:
    """Print error_line(e, *paths) on stderr; the exit status 1."""
    print(error_line(e, *paths), file=sys.stderr)
    return 1
