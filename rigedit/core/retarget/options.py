"""What a retarget may be asked to do, in one place for the API, the command line and the
editor's dialog (each lists these fields; a value none of them knows is an error, never
quietly the default).

    root        "scaled": the hips' path scaled by the leg-length ratio (a short figure takes
                shorter strides at the same pace; the default); "kept": the path as the source
                has it over the ground (heights still scaled); "in_place": the travel taken
                out (the hips' path less its one-second running mean), feet treading on the spot
    lock_feet   feet held still over the ground through the source's contacts
    ground      no foot below the ground: a foot whose toes would go under y = 0 is raised
    arm_space   hands kept as far off the body as the source's are, scaled with the figure: a
                wider target's arms are moved out rather than through its torso and legs
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .errors import RetargetError

ROOT_MODES = ("scaled", "kept", "in_place")


@dataclass(frozen=True)
class RetargetOptions:
    # Each field's "help" is the one line the command's flag shows (rigedit/retarget_flags.py
    # makes the flags of `rigedit retarget` and `rigedit batch retarget` from these fields).
    root: str = field(default="scaled", metadata={"choices": ROOT_MODES, "help": (
        "root motion: scaled by the leg-length ratio (default), kept as the source has it, or in place")})
    lock_feet: bool = field(default=True, metadata={"help": "do not hold the feet still through the source's contacts"})
    ground: bool = field(default=True, metadata={"help": "let the feet go below the ground (y = 0) as the mapping puts them"})
    arm_space: bool = field(default=True, metadata={
        "help": "do not move the hands out from a wider body (keep the source's arm directions exactly)"})

    def __post_init__(self) -> None:
        if self.root not in ROOT_MODES:
            raise RetargetError(f"root motion {self.root!r}: use one of {', '.join(ROOT_MODES)}")
        for name in ("lock_feet", "ground", "arm_space"):
            if not isinstance(getattr(self, name), bool):
                raise RetargetError(f"{name} is {getattr(self, name)!r}: True or False")

    def as_dict(self) -> dict:
        return asdict(self)
