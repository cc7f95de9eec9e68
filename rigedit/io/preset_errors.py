"""PresetError and the wording of every preset problem: "FILE: JSON.path: problem"."""
from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable

from pydantic import ValidationError

from .preset_model import At

MAX_LISTED = 10  # problems listed in one message; the rest are counted


class PresetError(ValueError):
    """A preset could not be read or written. The message names the file, the JSON path of
    the field and the problem, e.g. `humanoid.json: chains[2].weight: must be between 0 and 1,
    got 1.5`; `problems` holds (path, problem) pairs."""

    def __init__(self, file: str, problems: Iterable[tuple[str, str]]) -> None:
        self.file = file
        self.problems = list(problems)
        lines = [f"{file}: {path}: {problem}" if path else f"{file}: {problem}" for path, problem in self.problems[:MAX_LISTED]]
        if len(self.problems) > MAX_LISTED:
            lines.append(f"{file}: ... and {len(self.problems) - MAX_LISTED} more problems")
        super().__init__("\n".join(lines))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def json_path(parts: Iterable[Any]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.match(p):
            out += f".{p}" if out else p
        else:
            out += f"[{json.dumps(p)}]"
    return out


def show(value: Any) -> str:
    """A value from the file, written as JSON and kept short."""
    if isinstance(value, float) and not math.isfinite(value):
        return "a number too large for a float" if abs(value) == math.inf else "NaN"
    if isinstance(value, str):
        text = repr(value)  # quoted as the core's messages quote names: 'LeftArm'
        return text if len(text) <= 60 else text[:56] + "...'"
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return show(value)


def _wording(err: dict) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind in ("float_type", "float_parsing"):
        return f"must be a number, got {_kind(value)}"
    if kind in ("int_type", "int_parsing", "int_from_float", "int_parsing_size"):
        return f"must be a whole number, got {_kind(value)}"
    if kind == "string_type":
        return f"must be a string, got {_kind(value)}"
    if kind == "list_type":
        return f"must be a list, got {_kind(value)}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be an object, got {_kind(value)}"
    if kind == "finite_number":
        return f"must be a finite number, got {show(value)}"
    if kind == "literal_error":
        return f"must be {ctx.get('expected')}, got {show(value)}"
    if kind == "union_tag_invalid":
        # Limits are the only tagged union in the format.
        return f"unknown limit type {show(ctx.get('tag'))} (expected 'hinge' or 'cone')"
    if kind == "union_tag_not_found":
        return "missing 'type' (which kind of limit: 'hinge' or 'cone')"
    if kind == "string_too_short":
        return "must not be empty"
    return err["msg"][0].lower() + err["msg"][1:]


def problems_from(error: ValidationError, data: Any) -> list[tuple[str, str]]:
    """(JSON path, problem) for each pydantic error, with paths as they appear in the file."""
    out = []
    for err in error.errors():
        ctx = err.get("ctx") or {}
        loc = tuple(err["loc"])
        if isinstance(ctx.get("error"), At):
            loc += tuple(ctx["error"].where)
        parts = _file_path(loc, data)
        out.append((json_path(parts), _wording(err)))
    return out


def _file_path(loc: tuple, data: Any) -> list:
    """Keep the parts of a pydantic location that exist in the data: pydantic adds union
    tags ("hinge") and validator names that are not JSON fields."""
    parts: list = []
    node = data
    for n, part in enumerate(loc):
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
            parts.append(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            parts.append(part)
        elif n == len(loc) - 1 and isinstance(node, dict):
            parts.append(part)  # a missing field
    return parts
