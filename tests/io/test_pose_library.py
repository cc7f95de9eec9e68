"""rigedit.PoseLibrary (issue 25): one JSON file per pose with its PNG thumbnail beside it,
atomic writes, names checked, damaged files named in the error, apply by weight."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rigedit
from rigedit.core.rig import Rig
from rigedit.core.transforms import quat_normalize, quat_slerp
from rigedit.io.pose_library import PoseLibraryError

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16  # only the signature is checked


def posed() -> Rig:
    rig = Rig.default()
    for ch in rig.chains:
        ch.weight = 0.0
    rig.set_rotation("LeftArm", quat_normalize(np.array([0.4, 0.1, -0.2, 0.85])))
    rig.set_rotation("Head", quat_normalize(np.array([0.0, 0.35, 0.0, 0.94])))
    rig.solve()
    return rig


def test_add_list_apply_rename_remove(tmp_path):
    lib = rigedit.PoseLibrary(tmp_path / "poses")
    assert lib.names == []
    rig = posed()
    lib.add("wave", rig, thumbnail=PNG)
    lib.add("Head turn", rig, joints=["Head"])
    assert lib.names == ["Head turn", "wave"]
    assert lib.thumbnail("wave") == PNG and lib.thumbnail("Head turn") is None
    assert sorted(p.name for p in (tmp_path / "poses").iterdir()) == ["Head turn.pose.json", "wave.png", "wave.pose.json"]
    other = Rig.default()
    for ch in other.chains:
        ch.weight = 0.0
    assert lib.apply("wave", other) == []
    other.solve()
    assert np.allclose(other.world_positions(), rig.world_positions(), atol=1e-9)
    lib.rename("wave", "hello")
    assert lib.names == ["Head turn", "hello"] and lib.thumbnail("hello") == PNG
    assert json.loads((tmp_path / "poses" / "hello.pose.json").read_text())["name"] == "hello"
    with pytest.raises(PoseLibraryError, match="already there"):
        lib.rename("hello", "Head turn")
    lib.remove("hello")
    assert lib.names == ["Head turn"] and not (tmp_path / "poses" / "hello.png").exists()
    with pytest.raises(PoseLibraryError, match="no pose named 'hello'"):
        lib.apply("hello", other)


def test_apply_at_half_weight_gives_the_halfway_rotations(tmp_path):
    lib = rigedit.PoseLibrary(tmp_path)
    rig = posed()
    lib.add("pose", rig)
    other = Rig.default()
    for ch in other.chains:
        ch.weight = 0.0
    other.solve()
    start = {n: np.array(other.rotation(n)) for n in ("LeftArm", "Head", "Spine")}
    lib.apply("pose", other, weight=0.5)
    other.solve()
    for name, q0 in start.items():
        want = quat_slerp(q0, np.array(rig.rotation(name)), 0.5)
        assert abs(abs(np.dot(other.rotation(name), want)) - 1.0) < 1e-12, name
    assert not np.allclose(other.rotation("LeftArm"), start["LeftArm"], atol=1e-3)


@pytest.mark.parametrize("name", ["", " ", "a/b", "a\\b", "..", ".hidden", "x" * 121, "tab\there", "c:d", " pad"])
def test_bad_names_are_refused(tmp_path, name):
    lib = rigedit.PoseLibrary(tmp_path)
    with pytest.raises(PoseLibraryError, match="pose name"):
        lib.add(name, posed())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text, problem",
    [
        ('{"format": "rigedit.pose", "version": 1, "joints": {', "line 1 column"),
        ("[]", "expected a JSON object"),
        ('{"format": "rigedit.preset", "version": 1, "joints": {}}', "format"),
        ('{"format": "rigedit.pose", "version": 9, "joints": {}}', "version"),
        ('{"format": "rigedit.pose", "version": 1, "joints": {"Head": [0, 0, 1]}}', "joints.Head"),
        ('{"format": "rigedit.pose", "version": 1, "joints": {"Head": [0, 0, 0, 1]}, "root": [NaN, 0, 0]}', "root"),
        ('{"format": "rigedit.pose", "version": 1, "joints": {}, "extra": 1}', "extra"),
    ],
)
def test_a_damaged_pose_file_is_named_in_the_error(tmp_path, text, problem):
    (tmp_path / "bad.pose.json").write_text(text)
    lib = rigedit.PoseLibrary(tmp_path)
    assert lib.names == ["bad"]
    rig = posed()
    layer = rig.pose_layer
    with pytest.raises(PoseLibraryError) as err:
        lib.apply("bad", rig)
    assert str(tmp_path / "bad.pose.json") in str(err.value) and problem in str(err.value)
    assert rig.pose_layer == layer


def test_a_thumbnail_must_be_a_png_and_replacing_a_pose_drops_its_old_picture(tmp_path):
    lib = rigedit.PoseLibrary(tmp_path)
    with pytest.raises(PoseLibraryError, match="PNG"):
        lib.add("p", posed(), thumbnail=b"GIF89a")
    lib.add("p", posed(), thumbnail=PNG)
    lib.add("p", posed())
    assert lib.thumbnail("p") is None


def test_a_file_in_place_of_the_folder_is_an_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(PoseLibraryError, match="not a folder"):
        rigedit.PoseLibrary(f)
