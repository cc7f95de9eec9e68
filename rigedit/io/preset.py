"""Read and write JSON rig presets: parse, check the envelope, migrate, validate, build the Rig.

Every problem is a PresetError naming the file, the JSON path and the problem. Saving builds
and re-validates the whole text before the disk is touched, then replaces the file
atomically, keeping the previous one as NAME.json.bak.

The clip goes with the rig (io/preset_clip.py): a preset's own in the JSON, any other in
NAME.clip.npz beside it (io/clip_file.py explains why). A missing or damaged clip file (and no backup of
it holding the preset's checksum) refuses the preset with a PresetError naming both files: opening it without its clip would play the rest pose
where the animator saved a take, and the next save would drop the clip for good.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import numpy as np
from pydantic import ValidationError

from rigedit.core.chain import Chain, LimitFitError
from rigedit.core.field_error import FieldError
from rigedit.core.pose_layer import PoseLayer
from rigedit.core.chain_uses import DEFAULT_REACH_CLAMP, DEFAULT_SOFTNESS, LookAtSettings
from rigedit.core.rig_gait import GaitSettings
from rigedit.core.ground import HeightField
from rigedit.core.ik import registry
from rigedit.core.ik.limits import ConeLimit
from rigedit.core.rig import BUNDLED_PRESETS, Rig, register_preset_io
from rigedit.core.rig_pose import FullBodySolution, LimitedStart, SolvedChain, SolvedPose
from rigedit.core.skeleton import Skeleton

from .atomic import atomic_write_text
from .preset_character import character_document, character_from
from .preset_clip import clip_file_for, clip_file_from, clip_from, clip_section, write_pair
from .preset_errors import PresetError, json_path, problems_from, show
from .preset_model import FORMAT, VERSION, PresetModel
from .timeline_model import timeline_document, timeline_from_model

__all__ = ["PresetError", "load_preset", "save_preset", "loads_preset", "dumps_preset", "preset_schema", "bundled_presets"]

# MIGRATIONS[v] turns a version-v document (a dict) into a version v+1 one.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {
    # Version 2 adds the optional solved `pose`; a version-1 file has none, so it opens as
    # it always did: the rig solved afresh from its animated pose.
    1: lambda doc: doc,
    # Version 3 adds the optional `clip_file` and a clip's `source`; older files have neither.
    2: lambda doc: doc,
    # Version 4 adds the optional `pose_layer` (issue 25); older files have none.
    3: lambda doc: doc,
}


def bundled_presets() -> list[Path]:
    return sorted(BUNDLED_PRESETS.glob("*.json"))


def load_preset(path: str | Path) -> Rig:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise PresetError(str(path), [("", f"cannot read: {e.strerror or e}")]) from None
    return loads_preset(raw, str(path))


def loads_preset(text: str | bytes, file: str = "<preset>") -> Rig:
    """A Rig from preset text; `file` is the name the messages give."""
    data = _parse(text, file)
    data = _migrate(data, file)
    try:
        model = PresetModel.model_validate(data)
    except ValidationError as e:
        raise PresetError(file, problems_from(e, data)) from None
    return _rig_from(model, file)


def save_preset(rig: Rig, path: str | Path) -> None:
    """Write the preset, and its clip file beside it when the clip is not the preset's own."""
    path = Path(path)
    beside = clip_file_for(rig, path)
    text = dumps_preset(rig, str(path))
    if beside is not None:
        write_pair(path, text, *beside)
        return
    try:
        atomic_write_text(path, text)
    except OSError as e:
        raise PresetError(str(path), [("", f"cannot write: {e.strerror or e}")]) from None


def dumps_preset(rig: Rig, file: str = "<preset>") -> str:
    """The preset text for a rig, checked by the same model that reads it back. A clip that
    is not the preset's own is referenced as the clip file save_preset writes beside `file`
    (NAME.clip.npz); this text alone does not carry it."""
    try:
        doc = _document_from(rig, file)
        PresetModel.model_validate(doc)
        text = _pretty(doc) + "\n"
    except ValidationError as e:
        raise PresetError(file, [(p, f"cannot save: {m}") for p, m in problems_from(e, doc)]) from None
    except (TypeError, ValueError) as e:  # e.g. a timeline holding something JSON cannot say
        raise PresetError(file, [("", f"cannot save: {e}")]) from None
    return text


def preset_schema() -> dict:
    schema = PresetModel.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


# --- reading -------------------------------------------------------------------------------

_NUMBER_TAIL = re.compile(r"[-+]|[.eE][-+]?")
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _parse(text: str | bytes, file: str) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise PresetError(file, [("", f"not UTF-8 text (byte 0x{text[e.start]:02x} at offset {e.start})")]) from None
    if not text.strip():
        raise PresetError(file, [("", "the file is empty")])

    def no_constants(token: str):
        raise _NotJsonNumber(token)

    try:
        return json.loads(text, parse_constant=no_constants)
    except json.JSONDecodeError as e:
        # Strings cannot hold raw line breaks, so an unterminated one ran into the end.
        # A number cut short ("0." or "1e-") stops the parser at its dangling tail.
        cut_number = _NUMBER_TAIL.fullmatch(text.rstrip()[e.pos:]) is not None
        if e.pos >= len(text.rstrip()) or cut_number or e.msg.startswith("Unterminated string"):
            end = len(text.rstrip())
            line, col = _line_col(text, end)
            problem = f"not valid JSON: the text ends early (truncated?) at line {line}, column {col}"
        else:
            problem = f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        raise PresetError(file, [("", problem)]) from None
    except _NotJsonNumber as e:
        line, col = _position_of_constant(text)
        raise PresetError(
            file, [("", f"not valid JSON: {e.token} (line {line}, column {col}): JSON numbers must be finite")]
        ) from None
    except RecursionError:
        raise PresetError(file, [("", "not a preset: nested too deeply")]) from None


class _NotJsonNumber(Exception):
    def __init__(self, token: str) -> None:
        self.token = token


def _position_of_constant(text: str) -> tuple[int, int]:
    for m in _CONSTANT.finditer(text):
        if m.group(1):
            return _line_col(text, m.start(1))
    return 1, 1


def _line_col(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _migrate(data: Any, file: str) -> dict:
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else show(data)
        raise PresetError(file, [("", f"not a rigedit preset: expected a JSON object, got {kind}")])
    if "format" not in data:
        raise PresetError(file, [("format", f"missing: not a rigedit preset (expected \"format\": \"{FORMAT}\")")])
    if data["format"] != FORMAT:
        raise PresetError(file, [("format", f"not a rigedit preset: expected '{FORMAT}', got {show(data['format'])}")])
    version = data.get("version")
    if "version" not in data:
        raise PresetError(file, [("version", "required field is missing")])
    if isinstance(version, bool) or not isinstance(version, int):
        raise PresetError(file, [("version", f"must be a whole number, got {show(version)}")])
    if version > VERSION:
        raise PresetError(
            file,
            [("version", f"{version} was made by a newer rigedit (this one reads up to version {VERSION}); update rigedit")],
        )
    while version < VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise PresetError(file, [("version", f"{version} is older than any version this rigedit can read")])
        data = step(dict(data))
        version += 1
        data["version"] = version
    return data


def _rig_from(model: PresetModel, file: str) -> Rig:
    """The Rig a validated model describes. The checks only the rig can make (which joints
    may carry which limits, given the bones) come back as PresetErrors at the chain's path."""
    skeleton = _skeleton_from(model)
    rig = Rig(skeleton, name=model.name, timeline=timeline_from_model(model.timeline))
    _add_chains(rig, model, file)
    _rig_uses_from(rig, model, file)
    _animation_from(rig, model, file)
    _pose_from(rig, model)
    return rig


def _skeleton_from(model: PresetModel) -> Skeleton:
    joints = _parents_first(model)
    index = {j.name: i for i, j in enumerate(joints)}
    skeleton = Skeleton(
        [j.name for j in joints],
        [-1 if j.parent is None else index[j.parent] for j in joints],
        [j.offset for j in joints],
        [j.rest_rotation for j in joints],
    )
    # Skeleton normalises rest rotations, and normalising is not idempotent in floating point
    # (it can move the last bit every time). Rotations that are already unit to round-off are
    # kept bit for bit, so load -> save -> load gives the very same numbers.
    given = np.array([j.rest_rotation for j in joints], dtype=np.float64)
    unit = np.abs(np.linalg.norm(given, axis=1) - 1.0) <= 1e-12
    skeleton.rest_rotations = np.where(unit[:, None], given, skeleton.rest_rotations)
    return skeleton


def _add_chains(rig: Rig, model: PresetModel, file: str) -> None:
    for i, c in enumerate(model.chains):
        try:
            s = c.settings
            rig.add_chain(
                c.name,
                c.joints,
                solver=s.solver,
                target=s.target,
                pole=s.pole,
                tolerance=s.tolerance,
                max_iterations=s.max_iterations,
                weight=s.weight,
                limits={name: dict(s.limits)[name] for name in c.limits},  # in the file's order
                reach_clamp=s.reach_clamp,
                softness=s.softness,
                look_at=s.look_at,
                follow_clip=s.follow_clip,
                offset_keys=s.offset_keys,
                pull=s.pull,
            )
            rig.chain(c.name).ground_feet = s.ground_feet
        except LimitFitError as e:
            raise PresetError(file, [(json_path(["chains", i, "limits", e.joint]), e.problem)]) from None
        except ValueError as e:  # the model should have caught it; still say where
            raise PresetError(file, [(f"chains[{i}]", str(e))]) from None


def _rig_uses_from(rig: Rig, model: PresetModel, file: str) -> None:
    """Full body, the ground and the gait."""
    rig.full_body = model.full_body
    try:
        rig.ground = _ground_from(model.ground)
    except ValueError as e:
        raise PresetError(file, [("ground", str(e))]) from None
    if model.gait is not None:
        g = model.gait
        try:
            rig.gait = GaitSettings(tuple(g.legs), g.step_length, g.step_time, g.step_height)
        except ValueError as e:
            raise PresetError(file, [("gait", str(e))]) from None


def _animation_from(rig: Rig, model: PresetModel, file: str) -> None:
    """The character, the clip (in the preset or beside it) and the pose layer."""
    skeleton = rig.skeleton
    if model.character is not None:
        rig.character = character_from(model.character, file)
    if model.clip is not None:
        rig.clip = clip_from(model.clip, skeleton)
        rig.clip_in_preset = True
    elif model.clip_file is not None:
        rig.clip = clip_file_from(model.clip_file, skeleton, file)
    if model.pose_layer is not None:
        try:
            rig.pose_layer = PoseLayer.from_data(model.pose_layer.model_dump(exclude_none=True), skeleton)
        except FieldError as e:  # what only the core checks (distinct key times, held_time)
            raise PresetError(file, [(json_path(("pose_layer",) + e.where), e.problem)]) from None


def _pose_from(rig: Rig, model: PresetModel) -> None:
    if model.pose is not None:
        # The pose as saved: each chain's last solution put back, not solved again (a solve
        # depends on history: rig_pose.py). A gait's feet stay where the saved targets put
        # them, and step on from there when the time moves.
        rig.time = model.pose.time
        rig.restore_state(_solved_from(model.pose))
        rig.resume_gait()
    elif model.clip is not None or model.clip_file is not None or model.ground is not None or model.pose_layer is not None:
        # The pose on loading is the first frame as solved (feet on the ground, a gait's
        # feet planted), as for a preset without them it is the rest pose its targets hold.
        rig.reset()
        rig.advance_gait()
        rig.solve()


def _solved_from(m) -> SolvedPose:
    def quats(rows) -> np.ndarray:
        q = np.array(rows, dtype=np.float64).reshape(-1, 4)
        norm = np.linalg.norm(q, axis=1, keepdims=True)
        # Unit to round-off: kept bit for bit, so the pose reopens exactly as it was saved.
        return np.where(np.abs(norm - 1.0) <= 1e-12, q, q / norm)

    chains = {}
    for name, c in m.chains.items():
        limited = None
        if c.limited is not None:
            lim = c.limited
            rows = lambda v: np.array(v, dtype=np.float64).reshape(-1, 3)  # noqa: E731
            lengths = None if lim.lengths is None else tuple(float(v) for v in lim.lengths)
            limited = LimitedStart(rows(lim.points), quats(lim.frames), rows(lim.dirs), rows(lim.axes), lengths)
        rotations = tuple(tuple(q) for q in quats(c.rotations).tolist())
        base = None
        if c.base is not None:
            base = tuple(c.base[:3]) + tuple(quats([c.base[3:]]).tolist()[0])
        chains[name] = SolvedChain(rotations, c.error, c.reached, c.settled, limited, base, c.current)
    body = None
    if m.full_body is not None:
        b = m.full_body
        body = FullBodySolution(quats(b.rotations), np.array(b.root, dtype=np.float64), dict(b.errors), b.current, b.warm_start,
                                None if b.anim_root is None else tuple(float(v) for v in b.anim_root))
    return SolvedPose(chains, body)


def _ground_from(m):
    if m is None or isinstance(m, str):
        return m
    return HeightField(np.array(m.heights, dtype=np.float64), m.spacing, tuple(m.origin))


def _parents_first(model: PresetModel) -> list:
    """The joints in file order, except that a parent listed after its child moves up
    (the model has already refused unknown parents and cycles)."""
    by_name = {j.name: j for j in model.skeleton.joints}
    out, placed = [], set()

    def place(j) -> None:
        chain = []
        while j is not None and j.name not in placed:
            chain.append(j)
            j = by_name.get(j.parent) if j.parent is not None else None
        for k in reversed(chain):
            placed.add(k.name)
            out.append(k)

    for j in model.skeleton.joints:
        place(j)
    return out


# --- writing -------------------------------------------------------------------------------


def _document_from(rig: Rig, file: str = "<preset>") -> dict:
    sk = rig.skeleton
    joints = [
        {
            "name": name,
            "parent": None if sk.parents[i] < 0 else sk.names[sk.parents[i]],
            "offset": sk.offsets[i].tolist(),
            "rest_rotation": sk.rest_rotations[i].tolist(),
        }
        for i, name in enumerate(sk.names)
    ]
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if rig.name:
        doc["name"] = rig.name
    doc["skeleton"] = {"joints": joints}
    doc["chains"] = [_chain_document(ch) for ch in rig.chains]
    if rig.full_body:  # issue 16: with every chain's pull (below); off, files stay as they were
        doc["full_body"] = True
        for c, ch in zip(doc["chains"], rig.chains):
            c["pull"] = ch.pull
    timeline = timeline_document(rig.timeline)
    if timeline is not None:
        doc["timeline"] = timeline
    ground = getattr(rig, "ground", None)
    if ground is not None:
        if ground.kind in ("flat", "slope"):
            doc["ground"] = ground.kind
        else:
            f = ground.field
            doc["ground"] = {"heights": f.heights.tolist(), "spacing": f.spacing, "origin": list(f.origin)}
    gait = getattr(rig, "gait", None)
    if gait is not None:
        doc["gait"] = {
            "legs": list(gait.legs),
            "step_length": gait.step_length,
            "step_time": gait.step_time,
            "step_height": gait.step_height,
        }
    if rig.character is not None:
        doc["character"] = character_document(rig.character, file)
    clip = clip_section(rig, file)
    if clip is not None:
        doc[clip[0]] = clip[1]
    if not rig.pose_layer.is_empty:
        doc["pose_layer"] = rig.pose_layer.to_data()
    pose = _pose_document(rig)
    if pose is not None:
        doc["pose"] = pose
    return doc


def _pose_document(rig: Rig) -> dict | None:
    """The time and each solved chain's last solution, in chain order; None for a rig never
    solved, at time 0 (so presets that never used either stay as they were)."""
    state = rig.solved_state()
    solved = state.chains
    if not solved and state.full_body is None and rig.time == 0.0:
        return None
    chains = {}
    for name in rig.chain_names:
        s = solved.get(name)
        if s is None:
            continue
        c: dict[str, Any] = {"rotations": [list(q) for q in s.rotations], "error": s.error, "reached": s.reached}
        if not s.settled:
            c["settled"] = False
        if s.limited is not None:
            lim = s.limited
            c["limited"] = {k: getattr(lim, k).tolist() for k in ("points", "frames", "dirs", "axes")}
            if lim.lengths is not None:
                c["limited"]["lengths"] = list(lim.lengths)
        if s.base is not None:
            c["base"] = [float(v) for v in s.base]
        if not s.current:
            c["current"] = False
        chains[name] = c
    out = {"time": rig.time, "chains": chains}
    body = state.full_body
    if body is not None and rig.full_body:
        out["full_body"] = {
            "rotations": np.asarray(body.rotations).tolist(),
            "root": np.asarray(body.root).tolist(),
            "errors": {n: float(body.errors[n]) for n in rig.chain_names if n in body.errors},
        }
        if not body.current:
            out["full_body"]["current"] = False
        if not body.warm_start:
            out["full_body"]["warm_start"] = False
        if body.anim_root is not None:
            out["full_body"]["anim_root"] = [float(v) for v in body.anim_root]
    return out


def _chain_document(ch: Chain) -> dict:
    return {
        "name": ch.name,
        "solver": ch.solver,
        "joints": list(ch.joints),
        "target": ch.target.tolist(),
        "pole": None if ch.pole is None else ch.pole.tolist(),
        "tolerance": ch.tolerance,
        "max_iterations": ch.max_iterations,
        "weight": ch.weight,
        "limits": {name: _limit_document(lim) for name, lim in ch.limits.items()},
        **_uses_document(ch),
    }


def _uses_document(ch: Chain) -> dict:
    """The issue-8 keys, only where they differ from the defaults (older files stay as they were)."""
    out: dict[str, Any] = {}
    if ch.reach_clamp != DEFAULT_REACH_CLAMP:
        out["reach_clamp"] = ch.reach_clamp
    if ch.softness != DEFAULT_SOFTNESS:
        out["softness"] = ch.softness
    if ch.ground_feet:
        out["ground_feet"] = True
    if ch.follow_clip:  # issue 14 (clip_goals.py)
        out["follow_clip"] = True
    if not ch.pull_is_default:  # issue 16 (rig_full_body.py)
        out["pull"] = ch.pull
    if ch.offset_keys:
        out["offset_keys"] = {
            "keys": [{"time": k.time, "value": list(k.value), "interpolation": k.interpolation} for k in ch.offset_keys]
        }
    if not registry.get(ch.solver).reaches:
        look = ch.look_at
        out["look_at"] = {
            "weights": None if look.weights is None else list(look.weights),
            "forward_axis": list(look.forward_axis),
            "up_axis": list(look.up_axis),
            "max_angle_deg": look.max_angle_deg,
            "max_twist_deg": look.max_twist_deg,
        }
    return out


def _limit_document(lim) -> dict:
    if isinstance(lim, ConeLimit):
        return {"type": "cone", "max_deg": float(lim.max_deg)}
    return {"type": "hinge", "axis": [float(a) for a in lim.axis], "min_deg": float(lim.min_deg), "max_deg": float(lim.max_deg)}


def _pretty(value: Any, indent: int = 0) -> str:
    """JSON with one joint, limit or vector per line: objects and lists of plain values stay
    on one line when short, everything else is indented. NaN and Infinity are refused."""
    flat = json.dumps(value, allow_nan=False, ensure_ascii=False)
    if len(flat) + 2 * indent <= 130 and not _holds_containers_of_containers(value):
        return flat
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_pretty(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        items = [inner + _pretty(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return flat


def _holds_containers_of_containers(value: Any) -> bool:
    # A joint ({"offset": [...]}) may share a line; a chain with a limits map of objects may not.
    kids = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(
        isinstance(k, (dict, list)) and any(isinstance(g, dict) for g in (k.values() if isinstance(k, dict) else k))
        for k in kids
    )


register_preset_io(load_preset, save_preset)
