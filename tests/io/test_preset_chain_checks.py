"""A chain's settings are checked once, by the core: a preset's bad chain value is the
problem ChainSettings.checked names (the same words a chain setter uses), at the field's
JSON path."""
from __future__ import annotations

import dataclasses
import json

import pytest

from rigedit.core.chain import ChainSettings
from rigedit.core.chain_uses import LookAtSettings
from rigedit.core.field_error import FieldError
from rigedit.core.ik.limits import ConeLimit
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.io.preset import PresetError, loads_preset

ARM = 1  # humanoid chains[1]: left_arm, a two_bone chain with a hinge on LeftForeArm


def _doc() -> dict:
    return json.loads((BUNDLED_PRESETS / "humanoid.json").read_text())


def _look_doc(**look) -> dict:
    doc = _doc()
    doc["chains"].append({"name": "look", "solver": "look_at", "joints": ["Neck", "Head"], "target": [0.0, 1.6, 2.0], "look_at": look})
    return doc


def _file_problem(doc: dict) -> tuple[str, str]:
    with pytest.raises(PresetError) as e:
        loads_preset(json.dumps(doc), "bad.json")
    (got,) = e.value.problems
    return got


def _core_problem(settings: ChainSettings, joints) -> FieldError:
    with pytest.raises(FieldError) as e:
        settings.checked(joints)
    return e.value


def _json_path(chain: int, where: tuple) -> str:
    return f"chains[{chain}]" + "".join(f"[{w}]" if isinstance(w, int) else f".{w}" for w in where)


@pytest.mark.parametrize(
    "field, file_value, core_value",
    [
        ("weight", 1.5, 1.5),
        ("tolerance", 0.0, 0.0),
        ("max_iterations", 0, 0),
        ("reach_clamp", 0.2, 0.2),
        ("softness", 500.0, 500.0),
        ("solver", "jacobian", "jacobian"),
        ("target", [0.0, 2e6, 0.0], (0.0, 2e6, 0.0)),
    ],
)
def test_a_bad_chain_value_in_a_file_is_the_core_check_at_its_path(field, file_value, core_value):
    doc = _doc()
    doc["chains"][ARM][field] = file_value
    path, problem = _file_problem(doc)
    arm = Rig.default().chain(doc["chains"][ARM]["name"])
    bad = dataclasses.replace(arm.settings(), **{field: core_value})
    err = _core_problem(bad, arm.joints)
    assert (path, problem) == (_json_path(ARM, err.where), err.problem)
    before = arm.settings()
    with pytest.raises(ValueError) as e:
        arm.apply(bad)  # the chain takes its settings through the same check
    assert str(e.value) == f"chain {arm.name!r}: {err}"
    assert arm.settings() == before


@pytest.mark.parametrize(
    "limit, where, words",
    [
        ({"type": "hinge", "axis": [1, 0, 0], "min_deg": 160.0, "max_deg": 150.0}, ("min_deg",), "must not exceed max_deg (150.0)"),
        ({"type": "hinge", "axis": [0, 0, 0], "min_deg": 0.0, "max_deg": 150.0}, ("axis",), "must not be zero"),
        ({"type": "cone", "max_deg": 190.0}, ("max_deg",), "must be between 0 and 180"),
    ],
)
def test_a_bad_limit_field_is_named_down_to_the_field(limit, where, words):
    doc = _doc()
    doc["chains"][ARM]["limits"] = {"LeftForeArm": limit}
    path, problem = _file_problem(doc)
    assert path == _json_path(ARM, ("limits", "LeftForeArm") + where) and words in problem


def test_a_look_at_axis_too_short_to_aim_along_is_named_at_its_field():
    # The file's old own check let an axis of 5e-10 through to the chain (norm > 1e-12), which
    # then named only the chain; the core's check is the one check now.
    path, problem = _file_problem(_look_doc(forward_axis=[0.0, 0.0, 5e-10]))
    assert (path, problem) == ("chains[5].look_at.forward_axis", "must not be zero")


def test_the_chain_setter_words_the_same_problem_the_same_way():
    arm = Rig.default().chain("left_arm")
    err = _core_problem(dataclasses.replace(arm.settings(), limits=(("Hips", ConeLimit(10.0)),)), arm.joints)
    with pytest.raises(ValueError) as e:
        arm.limits = {"Hips": ConeLimit(10.0)}
    assert str(e.value) == f"chain 'left_arm': {err}"
    look = LookAtSettings(forward_axis=(0.0, 1.0, 0.0))
    err = _core_problem(dataclasses.replace(arm.settings(), solver="look_at", limits=(), look_at=look), ("Neck", "Head"))
    assert err.where == ("look_at", "up_axis") and str(err) == "look_at up_axis must not be parallel to forward_axis"
