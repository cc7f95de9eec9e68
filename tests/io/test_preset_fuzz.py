"""Presets mutated at random (keys dropped, types changed, numbers made NaN, huge or negative,
text truncated or garbled) either load or raise PresetError, never anything else; and what
loads can be saved and read back as the same rig."""
from __future__ import annotations

import copy
import json
import math

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.io.preset import PresetError, dumps_preset, loads_preset

from .test_preset import COMPUTED_M, assert_same_document

TEXTS = {p.stem: p.read_text() for p in sorted(BUNDLED_PRESETS.glob("*.json"))}

REPLACEMENTS = [
    None, True, False, 0, 1, -1, 2, 3, 0.5, -0.5, 1e308, -1e308, 10**30, -(10**30), 1e-320,
    math.nan, math.inf, -math.inf, "", "x", "two_bone", "fabrik", "hinge", "cone", "Hips",
    "rigedit.preset", [], [1], [0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1, "a", None],
    {}, {"type": "cone", "max_deg": 10}, {"type": "hinge", "axis": [1, 0, 0], "min_deg": 0, "max_deg": 90},
]


def _nodes(value, path=()):
    """Every (path, value) in a JSON document, the root included."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _parent_of(doc, path):
    node = doc
    for p in path[:-1]:
        node = node[p]
    return node


@st.composite
def mutated_texts(draw) -> str | bytes:
    text = TEXTS[draw(st.sampled_from(sorted(TEXTS)))]
    doc = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        nodes = list(_nodes(doc))
        path, value = draw(st.sampled_from(nodes))
        kind = draw(st.sampled_from(["replace", "drop", "scale", "add_key", "duplicate", "rename"]))
        if not path:
            if kind == "replace":
                doc = copy.deepcopy(draw(st.sampled_from(REPLACEMENTS)))
            continue
        parent = _parent_of(doc, path)
        key = path[-1]
        if kind == "replace":
            parent[key] = copy.deepcopy(draw(st.sampled_from(REPLACEMENTS)))
        elif kind == "drop":
            del parent[key]
        elif kind == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[key] = value * draw(st.sampled_from([-1, 0, 1e6, 1e300, -1e-9, 1.5]))
        elif kind == "add_key" and isinstance(value, dict):
            value[draw(st.sampled_from(["extra", "name", "type", "limits", "parent"]))] = copy.deepcopy(draw(st.sampled_from(REPLACEMENTS)))
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(value)))
        elif kind == "rename" and isinstance(value, str):
            parent[key] = draw(st.sampled_from(["Hips", "Neck", "LeftLeg", "L1_Knee", "Tentacle03", "nobody", value + "2"]))
    out = json.dumps(doc, indent=draw(st.sampled_from([None, 2])))
    tail = draw(st.sampled_from(["whole", "truncate", "garble", "bytes"]))
    if tail == "truncate":
        out = out[: draw(st.integers(0, max(0, len(out) - 1)))]
    elif tail == "garble":
        i = draw(st.integers(0, len(out)))
        out = out[:i] + draw(st.sampled_from(["}", "]", ",", '"', "NaN", "\\", "\x00", "{"])) + out[i:]
    elif tail == "bytes":
        data = out.encode("utf-8")
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82"])) + data[i:]
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_a_mutated_preset_loads_or_raises_preset_error(text):
    try:
        rig = loads_preset(text, "fuzz.json")
    except PresetError as e:
        event("refused")
        message = str(e)
        assert message.startswith("fuzz.json: ")
        assert "Traceback" not in message and "\n\n" not in message
        return
    event("accepted")
    # Whatever is accepted is a rig that saves and reads back the same (its solved pose is
    # computed, so to round-off).
    saved = dumps_preset(rig)
    again = loads_preset(saved)
    assert_same_document(json.loads(dumps_preset(again)), json.loads(saved), COMPUTED_M)
    # Saved means saved (issue 24): load, solve, save; load that, solve, save gives the file
    # the first rig saves after its next solve (the same document, computed values to
    # round-off), converged or not.
    rig.solve()
    first = dumps_preset(rig)
    rig.solve()
    back = loads_preset(first)
    back.solve()
    assert_same_document(json.loads(dumps_preset(back)), json.loads(dumps_preset(rig)), COMPUTED_M)
