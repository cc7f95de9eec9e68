"""rigedit: pose character rigs with inverse kinematics, from the editor or from a script.

    import rigedit
    rig = rigedit.Rig.default()
    rig.chain("left_arm").target = (0.3, 1.2, 0.3)
    rig.solve()
    rig.world_position("LeftHand")

The names below are imported on first use, not with the package: every `rigedit.x` module
import runs this file first, and numpy, scipy, pydantic and numba behind Rig cost about a
second, which `rigedit --help` (and any command that does not solve) should not pay.
"""
from __future__ import annotations

import importlib

from rigedit.core import persistence

__all__ = ["Rig", "Chain", "ChainReport", "ChainSettings", "PresetError", "PoseLibrary"]

_HOMES = {
    "Chain": "rigedit.core.chain",
    "ChainReport": "rigedit.core.chain",
    "ChainSettings": "rigedit.core.chain",
    "Rig": "rigedit.core.rig",
    "PresetError": "rigedit.io.preset",
    "PoseLibrary": "rigedit.io.pose_library",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'rigedit' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


# Rig.load and Rig.save need rigedit.io.preset, which core may not import (app -> io -> core).
# This file runs before any rigedit submodule, so registering here covers every way in
# (`from rigedit.core.rig import Rig; Rig.load(...)` included). The stand-ins import the
# preset module on first use, whose import registers its own functions in their place.


def _load_preset(path):
    return importlib.import_module("rigedit.io.preset").load_preset(path)


def _save_preset(rig, path) -> None:
    importlib.import_module("rigedit.io.preset").save_preset(rig, path)


persistence.register(_load_preset, _save_preset)
