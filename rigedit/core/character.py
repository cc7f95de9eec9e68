"""The character file a rig's skeleton came from: a glTF whose mesh the editor draws over the
bones and whose document an export keeps. A rig only carries the reference (the mesh is the
file's, and large); a preset stores it relative to its own folder, as Maya stores a
reference, so a project folder moved whole still finds its character."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CharacterRef:
    path: str  # absolute once read; a preset writes it relative to the preset's folder
    up_axis: str = "auto"  # the up axis the skeleton was imported with (the mesh must match)
