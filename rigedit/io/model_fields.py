"""Field types the preset's pydantic models share."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from rigedit.core import chain_checks as checks


def vector(n: int, shape: str):
    """A list of n coordinates, each within the core's MAX_COORD (the bound the chain
    setters enforce), with the same bound in the published schema."""

    def check(v: list[float]) -> list[float]:
        if len(v) != n:
            raise ValueError(f"must be {n} numbers {shape}, got {len(v)}: {v}")
        checks.check_coords(v)
        return v

    bound = {"minimum": -checks.MAX_COORD, "maximum": checks.MAX_COORD}
    schema = {"minItems": n, "maxItems": n, "items": {"type": "number", **bound}}
    return Annotated[list[float], AfterValidator(check), Field(json_schema_extra=schema)]
