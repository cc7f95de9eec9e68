"""What a retarget may be asked to do, declared once here for the API (retarget_clip's
keywords), the command line (rigedit/retarget_flags.py makes the flags) and the editor's
dialog (rigedit/app/retarget_dialog.py makes its boxes): a field added here is all three. A
value none of them knows is an error, never quietly the default.

    root        "scaled": the hips' path scaled by the leg-length ratio (a short figure takes
                shorter strides at the same pace; the default); "kept": the path as the source
                has it over the ground (heights still scaled); "in_place": the travel taken
                out (the hips' path less its one-second running mean), feet treading on the spot
    lock_feet   feet held still over the ground through the source's contacts
    ground      no foot below the ground: a foot whose toes would go under y = 0 is raised
    arm_space   hands kept as far off the body as the source's are, scaled with the figure: a
                wider target's arms are moved out rather than through its torso and legs

Each field's metadata: "help", the one line the command's flag shows (for a bool that is on
by default, what the --no- flag does); "label", the dialog's text for it (with a '&'
mnemonic); for a str field, "choices" and "choice_labels" (the dialog's list, in order).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from .errors import RetargetError

ROOT_MODES = ("scaled", "kept", "in_place")


@dataclass(frozen=True)
class RetargetOptions:
    root: str = field(default="scaled", metadata={
        "choices": ROOT_MODES,
        "help": "root motion: scaled by the leg-length ratio (default), kept as the source has it, or in place",
        "label": "&Root motion:",
        "choice_labels": ("Scaled by the leg-length ratio", "Kept as the source has it", "In place (travel taken out)")})
    lock_feet: bool = field(default=True, metadata={
        "help": "do not hold the feet still through the source's contacts",
        "label": "&Lock feet on the source's contacts"})
    ground: bool = field(default=True, metadata={
        "help": "let the feet go below the ground (y = 0) as the mapping puts them",
        "label": "Keep feet above the &ground"})
    arm_space: bool = field(default=True, metadata={
        "help": "do not move the hands out from a wider body (keep the source's arm directions exactly)",
        "label": "Keep &hands off a wider body"})

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if "choices" in f.metadata:
                if value not in f.metadata["choices"]:
                    what = "root motion" if f.name == "root" else f.name
                    raise RetargetError(f"{what} {value!r}: use one of {', '.join(f.metadata['choices'])}")
            elif not isinstance(value, bool):
                raise RetargetError(f"{f.name} is {value!r}: True or False")

    @classmethod
    def of(cls, **given) -> "RetargetOptions":
        """The options from keywords, RetargetError naming any this list does not have."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise RetargetError(f"unknown retarget option {', '.join(map(repr, unknown))}: the options are {', '.join(sorted(known))}")
        return cls(**given)

    def as_dict(self) -> dict:
        return asdict(self)
