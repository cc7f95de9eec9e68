"""A retargeted clip put on the rig it was made for, as an import puts a clip on a rig."""
from __future__ import annotations

from ..clip import Clip
from ..clip_goals import follow_kwargs


def play_on(rig, clip: Clip) -> None:
    """`clip` becomes the rig's clip, and every chain's goal follows it (as `rigedit import`
    sets them), so the rig plays the retargeted motion as made until a goal is moved; a
    chain's fixed target would otherwise pull its limb off the clip on every frame."""
    rig.clip = clip
    for ch in rig.chains:
        for name, value in follow_kwargs(clip).items():
            setattr(ch, name, value)
