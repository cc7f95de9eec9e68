"""A bad value in one field of a chain's settings, named by its path below the chain.

The chain's setters put "chain 'NAME': " before the message; the preset reader puts the
file and the JSON path before the bare `problem` (rigedit.io), so both word it the same.
"""
from __future__ import annotations


class FieldError(ValueError):
    """`where`: the field's path below the chain (("weight",), ("limits", "LeftLeg",
    "min_deg"), ("look_at", "up_axis")); `problem`: what is wrong, without the field."""

    def __init__(self, where: tuple, problem: str) -> None:
        super().__init__(describe(where, problem))
        self.where, self.problem = tuple(where), problem


# Problems that name their field themselves ("unknown solver 'ccd' ...", "solver 'two_bone'
# needs exactly 3 joints ...", "needs at least 2 joints ...").
_SELF_NAMED = (("solver",), ("joints",))


def describe(where: tuple, problem: str) -> str:
    """The problem after its field, as a chain's setters say it ("limit on 'LeftLeg':
    min_deg must not exceed ...", "look_at up_axis must not be parallel ...")."""
    if not where or where in _SELF_NAMED:
        return problem
    if where[0] == "limits" and len(where) >= 2:
        return f"limit on {where[1]!r}: " + describe(where[2:], problem)
    return " ".join(str(w) for w in where) + " " + problem


def under(field, err: ValueError) -> FieldError:
    """`err` (a FieldError below `field`, or a bare problem) as a FieldError at `field`."""
    if isinstance(err, FieldError):
        return FieldError((field,) + err.where, err.problem)
    return FieldError((field,), str(err))
