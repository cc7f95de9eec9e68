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

import sys

__all__ = ["Rig", "Chain", "ChainReport", "ChainSettings", "PresetError"]

_HOMES = {
    "Chain": "rigedit.core.chain",
    "ChainReport": "rigedit.core.chain",
    "ChainSettings": "rigedit.core.chain",
    "Rig": "rigedit.core.rig",
    "PresetError": "rigedit.io.preset",
}
_RIG_MODULE = "rigedit.core.rig"


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'rigedit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    if name == "Rig":
        importlib.import_module("rigedit.io.preset")  # registers the reader and writer behind Rig.load/save
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


# Rig.load and Rig.save need rigedit.io.preset's reader and writer, which that module
# registers in rigedit.core.rig when imported (core never imports io: the layering
# contract). `import rigedit` used to import it, and scripts and tests rely on
# `import rigedit; from rigedit.core.rig import Rig; Rig.load(...)`. So when
# rigedit.core.rig is first imported, a stand-in reader and writer are registered that
# import rigedit.io.preset on first use (whose own registration then replaces them);
# importing io.preset right there could meet a half-imported core module.


def _load_preset(path):
    from rigedit.io.preset import load_preset

    return load_preset(path)


def _save_preset(rig, path) -> None:
    from rigedit.io.preset import save_preset

    save_preset(rig, path)


class _PresetIOOnRigImport:
    """A meta path finder that only watches for rigedit.core.rig, then steps aside."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != _RIG_MODULE:
            return None
        sys.meta_path.remove(cls)
        from importlib.util import find_spec

        spec = find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_register(module) -> None:
            exec_module(module)
            if getattr(module, "_preset_reader", None) is None and hasattr(module, "register_preset_io"):
                module.register_preset_io(_load_preset, _save_preset)

        spec.loader.exec_module = exec_and_register
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        pass


if _RIG_MODULE not in sys.modules:
    sys.meta_path.insert(0, _PresetIOOnRigImport)
