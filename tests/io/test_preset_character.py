"""A preset's `character`: the glTF its skeleton came from, relative to the preset, so the
editor can draw the mesh again and an export of the preset keeps the glTF's document."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pygltflib
import pytest

import rigedit
from rigedit.core.autochains import propose_chains
from rigedit.core.character import CharacterRef
from rigedit.core.rig import BUNDLED_PRESETS
from rigedit.export_cli import cmd_export
from rigedit.io.gltf import read_gltf
from rigedit.io.preset import PresetError, loads_preset

DATA = Path("/work/shared/data")
CESIUM = DATA / "CesiumMan.glb"


def cesium_rig(glb: Path) -> rigedit.Rig:
    imp = read_gltf(glb, up_axis="auto")
    rig = rigedit.Rig(imp.skeleton, clip=imp.clip, name="cesium")
    for c in propose_chains(imp.skeleton, imp.clip.frame(0)):
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
    rig.character = CharacterRef(str(glb), "auto")
    return rig


def test_the_character_is_saved_relative_to_the_preset_and_survives_moving_the_folder(tmp_path):
    project = tmp_path / "project"
    (project / "chars").mkdir(parents=True)
    glb = project / "chars" / "CesiumMan.glb"
    shutil.copy(CESIUM, glb)
    cesium_rig(glb).save(project / "rig.json")
    doc = json.loads((project / "rig.json").read_text())
    assert doc["character"] == {"file": "chars/CesiumMan.glb", "up_axis": "auto"}
    shutil.move(project, tmp_path / "moved")
    opened = rigedit.Rig.load(tmp_path / "moved" / "rig.json")
    assert Path(opened.character.path) == (tmp_path / "moved" / "chars" / "CesiumMan.glb")


def test_a_missing_character_file_does_not_stop_the_rig_opening(tmp_path):
    glb = tmp_path / "CesiumMan.glb"
    shutil.copy(CESIUM, glb)
    cesium_rig(glb).save(tmp_path / "rig.json")
    glb.unlink()
    opened = rigedit.Rig.load(tmp_path / "rig.json")
    assert opened.character.path == str(glb) and len(opened.chain_names) >= 4


def test_an_export_of_the_preset_keeps_the_characters_mesh(tmp_path, capsys):
    cesium_rig(CESIUM).save(tmp_path / "rig.json")
    out = tmp_path / "out.glb"
    assert cmd_export([str(tmp_path / "rig.json"), "-o", str(out), "-q"]) == 0, capsys.readouterr().err
    before, after = pygltflib.GLTF2().load(str(CESIUM)), pygltflib.GLTF2().load(str(out))
    assert len(after.meshes) == len(before.meshes) >= 1
    assert [s.joints for s in after.skins] == [s.joints for s in before.skins]


def test_without_its_file_the_export_is_a_skeleton_and_says_so(tmp_path, capsys):
    glb = tmp_path / "CesiumMan.glb"
    shutil.copy(CESIUM, glb)
    cesium_rig(glb).save(tmp_path / "rig.json")
    glb.unlink()
    out = tmp_path / "out.glb"
    assert cmd_export([str(tmp_path / "rig.json"), "-o", str(out), "-q"]) == 0
    assert "not there any more" in capsys.readouterr().out  # the CLI prints warnings with its report
    assert len(pygltflib.GLTF2().load(str(out)).meshes) == 0


@pytest.mark.parametrize(
    "character, problem",
    [
        ({"file": "robot.fbx"}, "must name a .glb or .gltf file"),
        ({"file": ""}, "character.file"),
        ({"file": "a.glb", "up_axis": "up"}, "character.up_axis"),
        ({"up_axis": "+y"}, "character.file"),
    ],
)
def test_a_bad_character_is_refused_naming_the_field(character, problem):
    doc = json.loads((BUNDLED_PRESETS / "humanoid.json").read_text())
    doc["character"] = character
    with pytest.raises(PresetError) as e:
        loads_preset(json.dumps(doc), "bad.json")
    assert "bad.json" in str(e.value) and problem in str(e.value)


def test_the_character_formats_are_the_format_tables(monkeypatch):
    """The suffix check asks io/formats.py's CHARACTERS, so a format added there is taken."""
    from rigedit.io import formats

    doc = json.loads((BUNDLED_PRESETS / "humanoid.json").read_text())
    doc["character"] = {"file": "robot.usda"}
    with pytest.raises(PresetError, match="must name a .glb or .gltf file"):
        loads_preset(json.dumps(doc), "rig.json")
    monkeypatch.setattr(formats, "CHARACTERS", (formats.GLTF, formats.USD))
    assert loads_preset(json.dumps(doc), "rig.json").character.path.endswith("robot.usda")
