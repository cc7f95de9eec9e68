"""`rigedit import` and `rigedit bake` on bad files and options: one line on stderr that leads
with the file's name, exit status 1 (2 for a usage error), nothing written."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pygltflib
import pytest

from rigedit.import_cli import cmd_bake, cmd_import

DATA = Path("/work/shared/data")


def _huge_matrices(tmp_path) -> Path:
    """RiggedSimple with finite node matrices whose product overflows, or whose targets land
    a million kilometres away: a reader's numbers that fail later, in the rig."""
    g = pygltflib.GLTF2().load(str(DATA / "RiggedSimple.glb"))
    for n in g.nodes:
        if n.matrix is not None:
            n.matrix = [1e150 if k % 5 == 0 else 0.0 for k in range(15)] + [1.0]
    path = tmp_path / "huge.glb"
    g.save_binary(str(path))
    return path


def test_a_later_failure_still_names_the_input_file(tmp_path, capsys):
    src = _huge_matrices(tmp_path)
    out = tmp_path / "rig.json"
    assert cmd_import([str(src), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(str(src)) and "\n" not in err, err
    assert not out.exists()


def test_bake_refuses_an_absurd_fps(tmp_path, capsys):
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / "CesiumMan.glb"), "-o", str(preset)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cmd_bake([str(preset), "--clip", str(DATA / "CesiumMan.glb"), "-o", str(tmp_path / "o.bvh"), "--fps", "1e9"])
    assert e.value.code == 2
    assert "between 1 and 1000" in capsys.readouterr().err
    assert cmd_bake([str(preset), "--clip", str(DATA / "CesiumMan.glb"), "-o", str(tmp_path / "o.bvh"), "--fps", "24", "-q"]) == 0


def test_import_of_a_damaged_file_is_one_named_line(tmp_path, capsys):
    g = pygltflib.GLTF2().load(str(DATA / "RiggedSimple.glb"))
    doc = json.loads(g.to_json())
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(g.binary_blob()).decode()
    for acc in doc["accessors"]:
        acc["count"] = -1
    path = tmp_path / "neg.gltf"
    path.write_text(json.dumps(doc))
    assert cmd_import([str(path), "-o", str(tmp_path / "rig.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(str(path)) and "\n" not in err
    assert "count: must be a whole number" in err, err
