"""What the numba kernels share: plain-Python float helpers made callable from compiled code,
and a guard against numba's cache serving stale machine code.

`jitable(*functions)` registers each helper once (`numba.extending.register_jitable`): it stays
the plain Python function for Python callers, and a kernel calling it compiles its source.
One definition serves both, so the compiled and the Python paths do the same operations.

`fresh_cache(kernel_file, *modules)`: numba's cache checks only the kernel file's own
timestamp, not the helpers compiled into it. A kernel names the modules it compiles code
from (and through them, the modules those named: a kernel that calls two_bone_kernel also
depends on what two_bone_kernel compiles from); when their sources differ from those its
cache was built with, its cache files are removed before numba looks for them (at the
kernel's first call), so it compiles afresh.
"""
from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from numba.extending import register_jitable

_registered: set = set()
_named: dict[str, tuple] = {}  # a kernel file -> the modules its fresh_cache named


def jitable(*functions) -> None:
    for fn in functions:
        if fn not in _registered:
            register_jitable(fn)
            _registered.add(fn)


def _sources(modules) -> list[Path]:
    """The modules' files and, through the fresh_cache calls that ran, those they named."""
    seen: dict[Path, None] = {}
    stack = list(modules)
    while stack:
        path = Path(stack.pop(0).__file__).resolve()
        if path not in seen:
            seen[path] = None
            stack.extend(_named.get(str(path), ()))
    return list(seen)


def fresh_cache(kernel_file: str, *modules) -> None:
    kernel = Path(kernel_file)
    _named[str(kernel.resolve())] = modules
    digest = hashlib.sha256()
    for path in _sources(modules):
        digest.update(path.read_bytes())
    cache = kernel.parent / "__pycache__"
    stamp = cache / f"{kernel.stem}.helpers"
    try:
        # The stamp alone: a module whose functions are only ever compiled into other kernels
        # (fabrik_arc) never has cache files of its own, and asking for them made every
        # process say it was compiling.
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for f in list(cache.glob(f"{kernel.stem}.*.nbi")) + list(cache.glob(f"{kernel.stem}.*.nbc")):
            f.unlink()
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        return  # a read-only install: numba caches elsewhere (or not at all)
    # A first solve that stops for up to a minute should say why (`make` compiles them at setup).
    logging.getLogger("rigedit").warning("compiling the %s solver kernel on first use: once, up to a minute", kernel.stem)
