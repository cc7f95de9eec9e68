"""rigedit: pose character rigs with inverse kinematics, from the editor or from a script.

    import rigedit
    rig = rigedit.Rig.default()
    rig.chain("left_arm").target = (0.3, 1.2, 0.3)
    rig.solve()
    rig.world_position("LeftHand")
"""
from .core.chain import Chain, ChainReport, ChainSettings
from .core.rig import Rig
from .io.preset import PresetError  # also registers the preset reader/writer behind Rig.load/save

__all__ = ["Rig", "Chain", "ChainReport", "ChainSettings", "PresetError"]
