"""JSON presets: round trips, every kind of bad input with its exact message, atomic saving,
migration and the published schema."""
from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rigedit
from rigedit.core.ik.limits import ConeLimit
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.core.skeleton import Skeleton
from rigedit.io import preset as preset_io
from rigedit.io.preset import PresetError, dumps_preset, load_preset, loads_preset, preset_schema, save_preset

HUMANOID = BUNDLED_PRESETS / "humanoid.json"
PRESETS = sorted(BUNDLED_PRESETS.glob("*.json"))


def humanoid_doc() -> dict:
    return json.loads(HUMANOID.read_text())


def chain_index(doc: dict, name: str) -> int:
    return [c["name"] for c in doc["chains"]].index(name)


def joint_index(doc: dict, name: str) -> int:
    return [j["name"] for j in doc["skeleton"]["joints"]].index(name)


def assert_same_rig(a: Rig, b: Rig, *, computed_atol: float = 0.0) -> None:
    """The same skeleton, chains, settings, timeline, clip, ground and gait. Authored values
    compare exactly; targets and poles, which loading may compute (a gait leg's, a grounded
    foot's), to computed_atol metres (0: exactly, for rigs with nothing computed)."""
    assert a.name == b.name
    assert a.skeleton.names == b.skeleton.names
    assert np.array_equal(a.skeleton.parents, b.skeleton.parents)
    assert np.array_equal(a.skeleton.offsets, b.skeleton.offsets)
    assert np.array_equal(a.skeleton.rest_rotations, b.skeleton.rest_rotations)
    assert a.chain_names == b.chain_names
    for name in a.chain_names:
        assert a.chain(name).joints == b.chain(name).joints
        sa, sb = a.chain(name).settings(), b.chain(name).settings()
        assert replace(sa, target=(0.0, 0.0, 0.0), pole=None) == replace(sb, target=(0.0, 0.0, 0.0), pole=None), name
        np.testing.assert_allclose(sa.target, sb.target, rtol=0.0, atol=computed_atol, err_msg=f"{name} target")
        assert (sa.pole is None) == (sb.pole is None), name
        if sa.pole is not None:
            np.testing.assert_allclose(sa.pole, sb.pole, rtol=0.0, atol=computed_atol, err_msg=f"{name} pole")
    assert a.timeline == b.timeline
    assert (a.clip is None) == (b.clip is None)
    if a.clip is not None:
        assert a.clip.frame_time == b.clip.frame_time
        assert np.array_equal(a.clip.rotations, b.clip.rotations)
        assert np.array_equal(a.clip.translations, b.clip.translations)
    assert (a.ground is None) == (b.ground is None)
    if a.ground is not None:
        assert a.ground.kind == b.ground.kind and a.ground.field.spacing == b.ground.field.spacing
        assert np.array_equal(a.ground.field.heights, b.ground.field.heights)
    assert a.gait == b.gait


def assert_same_solve(a: Rig, b: Rig, atol: float) -> None:
    """Solved, both rigs put every joint in the same place, to atol metres."""
    a.solve()
    b.solve()
    np.testing.assert_allclose(a.world_positions(), b.world_positions(), rtol=0.0, atol=atol)


def assert_same_document(got, want, atol: float, where: str = "") -> None:
    """Two parsed JSON documents: the same keys in the same order, the same strings, ints,
    bools and nulls, and floats within atol (a computed value, as a grounded foot's target,
    is only defined to round-off). Authored floats are checked exactly through the Rig."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_document(got[key], want[key], atol, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same_document(g, w, atol, f"{where}[{k}]")
    elif isinstance(want, float):
        assert type(got) is float and abs(got - want) <= atol, f"{where}: {got!r} != {want!r}"
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


# --- round trips ---------------------------------------------------------------------------

# What loading computes (gait legs' and grounded feet's targets, a solved pose) agrees to
# this, in metres: far above round-off, far below anything a user sees.
COMPUTED_M = 1e-9


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_load_save_load_gives_the_same_rig(path, tmp_path):
    first = load_preset(path)
    out = tmp_path / path.name
    save_preset(first, out)
    second = load_preset(out)
    assert_same_rig(first, second, computed_atol=COMPUTED_M)
    assert_same_solve(first, second, COMPUTED_M)
    # The bundled files are what the writer writes: nothing is lost, added or moved.
    assert_same_document(json.loads(out.read_text()), json.loads(path.read_text()), COMPUTED_M)


def test_rig_load_and_save_are_the_preset_functions(tmp_path):
    rig = rigedit.Rig.load(HUMANOID)
    rig.chain("left_arm").target = (0.3, 1.2, 0.3)
    rig.chain("left_arm").weight = 0.25
    rig.save(tmp_path / "mine.json")
    back = rigedit.Rig.load(tmp_path / "mine.json")
    assert_same_rig(rig, back)
    assert back.chain("left_arm").target.tolist() == [0.3, 1.2, 0.3]


def test_the_chain_keys_are_exactly_the_documented_ones():
    doc = json.loads(dumps_preset(rigedit.Rig.default()))
    assert doc["format"] == "rigedit.preset" and doc["version"] == preset_io.VERSION
    for c in doc["chains"]:
        assert list(c) == ["name", "solver", "joints", "target", "pole", "tolerance", "max_iterations", "weight", "limits"]
    assert doc["chains"][chain_index(doc, "left_leg")]["limits"]["LeftLeg"] == {
        "type": "hinge",
        "axis": [1.0, 0.0, 0.0],
        "min_deg": 0.0,
        "max_deg": 150.0,
    }
    assert set(doc["skeleton"]["joints"][0]) == {"name", "parent", "offset", "rest_rotation"}


def test_joints_may_come_in_any_order():
    doc = humanoid_doc()
    doc["skeleton"]["joints"].reverse()
    rig = loads_preset(json.dumps(doc))
    ref = rigedit.Rig.default()
    sk, ref_sk = rig.skeleton, ref.skeleton
    assert sorted(sk.names) == sorted(ref_sk.names)
    assert all(p < i for i, p in enumerate(sk.parents))  # parents first, as Skeleton needs
    for name in ref_sk.names:
        i, r = sk.index(name), ref_sk.index(name)
        assert (sk.parents[i] < 0 and ref_sk.parents[r] < 0) or sk.names[sk.parents[i]] == ref_sk.names[ref_sk.parents[r]]
        assert np.array_equal(sk.offsets[i], ref_sk.offsets[r])
    assert [rig.chain(n).settings() for n in rig.chain_names] == [ref.chain(n).settings() for n in ref.chain_names]


names = st.text(alphabet="abcdefghXYZ_ 0123456789.-", min_size=1, max_size=8).filter(lambda s: s.strip())
finite = st.floats(-100.0, 100.0, allow_nan=False)


@st.composite
def rigs(draw) -> Rig:
    n = draw(st.integers(3, 8))
    joint_names = draw(st.lists(names, min_size=n, max_size=n, unique=True))
    joints = []
    for i, name in enumerate(joint_names):
        offset = draw(st.tuples(finite, finite, finite).filter(lambda v: np.linalg.norm(v) > 1e-3))
        joints.append((name, None if i == 0 else joint_names[i - 1], offset))
    quats = draw(st.lists(st.tuples(finite, finite, finite, finite).filter(lambda q: np.linalg.norm(q) > 1e-3), min_size=n, max_size=n))
    rig = Rig(Skeleton.from_joints(joints, rest_rotations=np.array(quats)), name=draw(st.text(max_size=10)))
    k = draw(st.integers(3, n))
    solver = draw(st.sampled_from(["fabrik", "two_bone"])) if k == 3 else "fabrik"
    chain = joint_names[n - k:]
    limits = {}
    if draw(st.booleans()):
        limits[chain[1]] = ConeLimit(draw(st.floats(0.0, 180.0)))
    rig.add_chain(
        draw(names),
        chain,
        solver=solver,
        target=draw(st.tuples(finite, finite, finite)),
        pole=draw(st.none() | st.tuples(finite, finite, finite)),
        tolerance=draw(st.floats(1e-9, 1.0)),
        max_iterations=draw(st.integers(1, 10_000)),
        weight=draw(st.floats(0.0, 1.0)),
        limits=limits,
    )
    return rig


@settings(max_examples=60, deadline=None)
@given(rigs())
def test_any_rig_round_trips_exactly(rig):
    text = dumps_preset(rig)
    back = loads_preset(text)
    assert_same_rig(rig, back)
    assert_same_document(json.loads(dumps_preset(back)), json.loads(text), COMPUTED_M)


# --- bad input: each problem named by file, JSON path and what is wrong ----------------------


def mutated(mutate) -> str:
    doc = humanoid_doc()
    mutate(doc)
    return json.dumps(doc, indent=2)


def message_for(text: str | bytes, file: str = "humanoid.json") -> str:
    with pytest.raises(PresetError) as e:
        loads_preset(text, file)
    assert isinstance(e.value, ValueError)
    return str(e.value)


def chain_set(name, key, value):
    def mutate(doc):
        doc["chains"][chain_index(doc, name)][key] = value

    return mutate


def joint_set(name, key, value):
    def mutate(doc):
        doc["skeleton"]["joints"][joint_index(doc, name)][key] = value

    return mutate


BAD = [
    # range and type
    (chain_set("left_arm", "weight", 1.5), "humanoid.json: chains[1].weight: must be between 0 and 1, got 1.5"),
    (chain_set("right_arm", "weight", "1.5"), "humanoid.json: chains[2].weight: must be a number, got '1.5'"),
    (chain_set("spine", "tolerance", -0.001), "humanoid.json: chains[0].tolerance: must be greater than 0, got -0.001"),
    (chain_set("spine", "max_iterations", 0), "humanoid.json: chains[0].max_iterations: must be between 1 and 10000, got 0"),
    (chain_set("spine", "max_iterations", 12.0), "humanoid.json: chains[0].max_iterations: must be a whole number, got 12.0"),
    (chain_set("spine", "max_iterations", True), "humanoid.json: chains[0].max_iterations: must be a whole number, got true"),
    (chain_set("left_leg", "target", [0.1, 0.2]), "humanoid.json: chains[3].target: must be 3 numbers [x, y, z], got 2: [0.1, 0.2]"),
    (chain_set("left_leg", "target", "here"), "humanoid.json: chains[3].target: must be a list, got 'here'"),
    (chain_set("left_leg", "pole", [0.0, None, 1.0]), "humanoid.json: chains[3].pole[1]: must be a number, got null"),
    (chain_set("left_leg", "colour", "red"), "humanoid.json: chains[3].colour: unknown field"),
    (joint_set("Hips", "offset", {"x": 0}), "humanoid.json: skeleton.joints[0].offset: must be a list, got an object"),
    (joint_set("Hips", "offset", [0.0, 1e308, 0.0]), "humanoid.json: skeleton.joints[0].offset: must be within -1e+06 and 1e+06, got [0.0, 1e+308, 0.0]"),
    (joint_set("Head", "rest_rotation", [0, 0, 0, 0]), "humanoid.json: skeleton.joints[6].rest_rotation: must be a rotation (x, y, z, w), got a zero quaternion"),
    (lambda d: d["chains"][0].pop("target"), "humanoid.json: chains[0].target: required field is missing"),
    (lambda d: d.update(chains={}), "humanoid.json: chains: must be a list, got an object"),
    # limits
    (
        lambda d: d["chains"][3]["limits"]["LeftLeg"].update(min_deg=160.0),
        "humanoid.json: chains[3].limits.LeftLeg.min_deg: must not exceed max_deg (150.0), got 160.0",
    ),
    (
        lambda d: d["chains"][3]["limits"]["LeftLeg"].update(max_deg=200),
        "humanoid.json: chains[3].limits.LeftLeg.max_deg: must be between -180 and 180, got 200.0",
    ),
    (
        lambda d: d["chains"][3]["limits"]["LeftLeg"].update(type="ball"),
        "humanoid.json: chains[3].limits.LeftLeg: unknown limit type 'ball' (expected 'hinge' or 'cone')",
    ),
    (
        lambda d: d["chains"][3]["limits"]["LeftLeg"].pop("type"),
        "humanoid.json: chains[3].limits.LeftLeg: missing 'type' (which kind of limit: 'hinge' or 'cone')",
    ),
    (
        lambda d: d["chains"][3]["limits"].update(Spine={"type": "cone", "max_deg": 10}),
        "humanoid.json: chains[3].limits.Spine: 'Spine' is not a joint of this chain ['LeftUpLeg', 'LeftLeg', 'LeftFoot']",
    ),
    (
        lambda d: d["chains"][3]["limits"].update(LeftFoot={"type": "cone", "max_deg": 10}),
        "humanoid.json: chains[3].limits.LeftFoot: it is the chain's tip: no bone of the chain leaves it",
    ),
    (
        lambda d: d["chains"][3]["limits"]["LeftLeg"].update(axis=[0, -0.42, 0.025]),
        "humanoid.json: chains[3].limits.LeftLeg: the hinge axis is parallel to the bone entering the joint: no plane to bend in",
    ),
    # solvers and chains
    (chain_set("spine", "solver", "jacobian"), "humanoid.json: chains[0].solver: unknown solver 'jacobian' (expected 'two_bone', 'fabrik', 'ccd' or 'look_at')"),
    (chain_set("spine", "solver", "two_bone"), "humanoid.json: chains[0].joints: solver 'two_bone' needs exactly 3 joints, got 5"),
    (chain_set("left_arm", "joints", ["LeftArm", "LeftForeArm", "LeftPalm"]), "humanoid.json: chains[1].joints[2]: no joint named 'LeftPalm' in the skeleton"),
    (
        chain_set("left_arm", "joints", ["LeftArm", "LeftForeArm", "LeftHand_End"]),
        "humanoid.json: chains[1].joints[2]: joints must form a connected chain: 'LeftHand_End' is not a child of 'LeftForeArm'",
    ),
    (chain_set("left_arm", "joints", ["LeftArm"]), "humanoid.json: chains[1].joints: needs at least 2 joints, got 1"),
    (chain_set("right_arm", "name", "left_arm"), "humanoid.json: chains[2].name: duplicate chain name 'left_arm' (also chains[1])"),
    # skeleton
    (joint_set("Hips", "parent", "Head"), "humanoid.json: skeleton.joints[0].parent: parent cycle: Hips -> Head -> Neck -> Chest -> Spine2 -> Spine1 -> Spine -> Hips"),
    (joint_set("Neck", "parent", "Neck"), "humanoid.json: skeleton.joints[5].parent: parent cycle: Neck -> Neck"),
    (joint_set("Neck", "parent", "Torso"), "humanoid.json: skeleton.joints[5].parent: no joint named 'Torso'"),
    (joint_set("Head", "name", "Neck"), "humanoid.json: skeleton.joints[6].name: duplicate joint name 'Neck' (also joints[5])"),
    (joint_set("Head", "name", ""), "humanoid.json: skeleton.joints[6].name: must not be empty"),
    (lambda d: d["skeleton"].update(joints=[]), "humanoid.json: skeleton.joints: needs at least one joint"),
    # envelope
    (lambda d: d.update(format="blender.rig"), "humanoid.json: format: not a rigedit preset: expected 'rigedit.preset', got 'blender.rig'"),
    (lambda d: d.pop("format"), 'humanoid.json: format: missing: not a rigedit preset (expected "format": "rigedit.preset")'),
    (lambda d: d.update(version=5), "humanoid.json: version: 5 was made by a newer rigedit (this one reads up to version 4); update rigedit"),
    (lambda d: d.update(version="1"), "humanoid.json: version: must be a whole number, got '1'"),
    (lambda d: d.update(version=0), "humanoid.json: version: 0 is older than any version this rigedit can read"),
]


@pytest.mark.parametrize("mutate,message", BAD, ids=[m for _, m in BAD])
def test_bad_field_is_named_with_its_path(mutate, message):
    assert message_for(mutated(mutate)) == message


def test_several_problems_are_all_listed():
    def mutate(doc):
        doc["chains"][1]["weight"] = 2
        doc["chains"][2]["tolerance"] = 0
    assert message_for(mutated(mutate)) == (
        "humanoid.json: chains[1].weight: must be between 0 and 1, got 2.0\n"
        "humanoid.json: chains[2].tolerance: must be greater than 0, got 0.0"
    )


def test_not_json_says_line_and_column():
    text = '{\n  "format": "rigedit.preset",,\n  "version": 1\n}'
    assert message_for(text) == (
        "humanoid.json: not valid JSON: Expecting property name enclosed in double quotes (line 2, column 30)"
    )


@pytest.mark.parametrize(
    "text,line,column",
    [
        ('{\n  "format": "rigedit.preset",\n  "version": 1,\n  "skel', 4, 8),
        ('{\n  "format": "rigedit.preset",\n  "version": 1,\n  "skeleton": {"joints": [', 4, 27),
        ('{"format": "rigedit.pre', 1, 24),
    ],
)
def test_truncated_text_is_called_truncated(text, line, column):
    assert message_for(text) == f"humanoid.json: not valid JSON: the text ends early (truncated?) at line {line}, column {column}"


def test_a_truncated_bundled_file_is_caught():
    text = HUMANOID.read_text()
    for cut in (1, len(text) // 3, len(text) // 2, len(text) - 3):
        assert "truncated?" in message_for(text[:cut])


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused_with_their_place(token):
    text = HUMANOID.read_text().replace('"weight": 1.0', f'"weight": {token}', 1)
    pos = text.index(token)
    line = text[:pos].count("\n") + 1
    column = pos - text[:pos].rfind("\n")
    assert message_for(text) == f"humanoid.json: not valid JSON: {token} (line {line}, column {column}): JSON numbers must be finite"


def test_a_number_too_big_for_a_float_is_refused():
    text = HUMANOID.read_text().replace('"target": [0.0, 1.51, 0.0]', '"target": [0.0, 1e999, 0.0]')
    assert message_for(text) == "humanoid.json: chains[0].target[1]: must be a finite number, got a number too large for a float"


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "humanoid.json: the file is empty"),
        ("  \n", "humanoid.json: the file is empty"),
        ("[1, 2]", "humanoid.json: not a rigedit preset: expected a JSON object, got a list"),
        ('"rig"', "humanoid.json: not a rigedit preset: expected a JSON object, got 'rig'"),
        (b"\xff\xfe{}", "humanoid.json: not UTF-8 text (byte 0xff at offset 0)"),
    ],
)
def test_files_that_are_not_presets_at_all(text, message):
    assert message_for(text) == message


def test_load_names_the_path_it_was_given(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(PresetError) as e:
        load_preset(missing)
    assert str(e.value) == f"{missing}: cannot read: No such file or directory"
    bad = tmp_path / "humanoid.json"
    bad.write_text(mutated(chain_set("left_arm", "weight", 1.5)))
    with pytest.raises(PresetError) as e:
        rigedit.Rig.load(bad)
    assert str(e.value) == f"{bad}: chains[1].weight: must be between 0 and 1, got 1.5"
    assert e.value.problems == [("chains[1].weight", "must be between 0 and 1, got 1.5")]


def test_preset_error_is_exported_and_a_value_error():
    assert rigedit.PresetError is PresetError
    assert issubclass(PresetError, ValueError)


# --- migration -----------------------------------------------------------------------------


def test_an_older_version_is_migrated(monkeypatch):
    # Version 1 is the first format; a made-up version 0 that called "skeleton" "bones"
    # stands in for the real history, to show the hook runs and the result validates.
    def from_v0(doc):
        doc["skeleton"] = doc.pop("bones")
        return doc

    monkeypatch.setitem(preset_io.MIGRATIONS, 0, from_v0)
    doc = humanoid_doc()
    doc["version"] = 0
    doc["bones"] = doc.pop("skeleton")
    rig = loads_preset(json.dumps(doc))
    assert_same_rig(rig, rigedit.Rig.default())
    # Without the migration the same file is refused, not misread.
    monkeypatch.delitem(preset_io.MIGRATIONS, 0)
    assert message_for(json.dumps(doc)) == "humanoid.json: version: 0 is older than any version this rigedit can read"


# --- saving --------------------------------------------------------------------------------


def test_save_keeps_the_previous_file_as_bak(tmp_path):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    save_preset(rig, path)
    assert not (tmp_path / "rig.json.bak").exists()
    first = path.read_text()
    rig.chain("left_arm").weight = 0.5
    save_preset(rig, path)
    assert (tmp_path / "rig.json.bak").read_text() == first
    assert load_preset(path).chain("left_arm").weight == 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.json", "rig.json.bak"]


def test_a_value_that_cannot_be_saved_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    save_preset(rig, path)
    before = path.read_bytes()
    rig.skeleton.offsets[3, 1] = np.nan  # behind the API's back: the writer must still refuse
    with pytest.raises(PresetError) as e:
        save_preset(rig, path)
    assert str(e.value) == f"{path}: skeleton.joints[3].offset[1]: cannot save: must be a finite number, got NaN"
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.json"]


def test_a_failure_while_writing_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    save_preset(rig, path)
    before = path.read_bytes()
    rig.chain("left_arm").weight = 0.5

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(PresetError) as e:
        save_preset(rig, path)
    assert str(e.value) == f"{path}: cannot write: No space left on device"
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.json"]


def test_a_crash_at_the_final_rename_leaves_old_file_and_backup(tmp_path, monkeypatch):
    path = tmp_path / "rig.json"
    rig = rigedit.Rig.default()
    save_preset(rig, path)
    before = path.read_bytes()
    rig.chain("left_arm").weight = 0.5
    real_replace = os.replace

    def crash_on_target(src, dst):
        if Path(dst) == path:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_target)
    with pytest.raises(PresetError):
        save_preset(rig, path)
    assert path.read_bytes() == before
    assert (tmp_path / "rig.json.bak").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rig.json", "rig.json.bak"]


def test_save_keeps_the_file_mode(tmp_path):
    path = tmp_path / "rig.json"
    save_preset(rigedit.Rig.default(), path)
    os.chmod(path, 0o640)
    save_preset(rigedit.Rig.default(), path)
    assert path.stat().st_mode & 0o777 == 0o640


# --- schema --------------------------------------------------------------------------------


def test_schema_describes_the_format():
    schema = preset_schema()
    assert schema["properties"]["format"]["const"] == "rigedit.preset"
    assert set(schema["required"]) >= {"format", "version", "skeleton"}
    chain = schema["$defs"]["ChainModel"]
    assert list(chain["properties"]) == ["name", "solver", "joints", "target", "pole", "tolerance", "max_iterations", "weight", "limits", "reach_clamp", "softness", "look_at", "ground_feet", "follow_clip", "offset_keys", "pull"]
    assert chain["properties"]["weight"]["minimum"] == 0 and chain["properties"]["weight"]["maximum"] == 1
    assert chain["properties"]["solver"]["enum"] == ["two_bone", "fabrik", "ccd", "look_at"]
    assert chain["properties"]["target"]["minItems"] == chain["properties"]["target"]["maxItems"] == 3
    assert chain["additionalProperties"] is False
    json.dumps(schema)  # plain JSON
