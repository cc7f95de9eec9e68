"""`rigedit import` and `rigedit bake` end to end, and reading a clip against a preset's skeleton."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.skeleton import Pose
from rigedit.import_cli import cmd_bake, cmd_import
from rigedit.io.bvh import read_bvh
from rigedit.io.bvh_format import parse_bvh
from rigedit.io.clip_match import ClipMismatch, read_clip_for
from rigedit.io.preset import load_preset

DATA = Path("/work/shared/data")
FILES = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh", "CesiumMan.glb", "RiggedSimple.glb"]


def world(skeleton, clip):
    return skeleton.fk_matrices(Pose(clip.rotations, clip.translations))[0]


@pytest.mark.parametrize("name", FILES)
def test_import_writes_a_preset_with_chains(name, tmp_path, capsys):
    out = tmp_path / "rig.json"
    assert cmd_import([str(DATA / name), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    rig = load_preset(out)
    assert rig.chain_names, text
    for n in rig.chain_names:
        assert n in text
    assert f"wrote {out}" in text
    assert "rigedit bake" in text  # every sample has an animation


def test_import_errors_are_one_line_and_write_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Qrotation\n}\nMOTION\nFrames: 0\nFrame Time: 0.1\n")
    out = tmp_path / "rig.json"
    assert cmd_import([str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"{bad}, line 5: unknown channel 'Qrotation' in 'Hips' (expected X/Y/Z position or rotation)"
    assert not out.exists()
    assert cmd_import([str(tmp_path / "x.fbx"), "-o", str(out)]) == 1
    assert "imports .bvh, .glb, .gltf, .usd, .usda and .usdc files" in capsys.readouterr().err
    assert cmd_import([str(DATA / "cmu_12_01_walk.bvh"), "-o", str(out), "--scale", "furlong"]) == 1
    assert "unknown unit" in capsys.readouterr().err


def bake_file(tmp_path, name, *import_options, weights=None):
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / name), "-o", str(preset), *import_options]) == 0
    if weights is not None:
        doc = json.loads(preset.read_text())
        for ch in doc["chains"]:
            ch["weight"] = weights
        preset.write_text(json.dumps(doc))
    out = tmp_path / "baked.bvh"
    code = cmd_bake([str(preset), "--clip", str(DATA / name), "-o", str(out)])
    return code, preset, out


@pytest.mark.parametrize(
    "name, options",
    [
        ("cmu_12_01_walk.bvh", []),
        ("cmu_12_01_walk.bvh", ["--scale", "cm"]),  # a "wrong" unit in the preset is matched, not guessed again
        ("pybvh_bvh_test1.bvh", ["--up-axis", "z"]),
        ("dataset-1_walk-right_normal_001.bvh", []),
    ],
)
def test_bake_at_weight_zero_writes_the_original_motion(name, options, tmp_path, capsys):
    code, preset, out = bake_file(tmp_path, name, *options, weights=0.0)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "100%" in captured.err  # the progress bar (rich, on stderr) ends full
    # Same hierarchy, rotation orders, units and axes as the source file, same motion; position
    # channels only where a joint moves, and then on a zero OFFSET (issue 15).
    src, baked = parse_bvh((DATA / name).read_text()), parse_bvh(out.read_text())
    assert [(j.name, _rotations(j.channels), j.end_site) for j in baked.joints] == [
        (j.name, _rotations(j.channels), j.end_site) for j in src.joints
    ]
    # A joint the source moved by channels but the clip holds still gets the held value, which
    # may differ from the source's OFFSET by the file's rounding: 1e-6 of the figure (file units).
    size = np.abs([s.offset for s in src.joints]).max()
    for j, s in zip(baked.joints, src.joints):
        expected = (0.0, 0.0, 0.0) if _rotations(j.channels) != j.channels and not j.end_site else s.offset
        np.testing.assert_allclose(j.offset, expected, atol=1e-6 * size, err_msg=j.name)
    a, b = read_bvh(DATA / name, scale=1.0), read_bvh(out, scale=1.0)
    pa, pb = world(a.skeleton, a.clip), world(b.skeleton, b.clip)
    np.testing.assert_allclose(pb, pa, atol=1e-6 * np.abs(pa).max())


def _rotations(channels) -> tuple:
    return tuple(c for c in channels if c.endswith("rotation"))


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh"])
def test_bake_with_the_proposed_chains_at_weight_one_writes_the_clip(name, tmp_path, capsys):
    # Issue 14: the proposed chains follow the clip, so the bake reproduces it (before, every
    # goal stayed where frame 0 put it and the body tore apart).
    code, preset, out = bake_file(tmp_path, name)
    assert code == 0, capsys.readouterr().err
    rig = load_preset(preset)
    assert all(ch.follow_clip for ch in rig.chains)
    a, b = read_bvh(DATA / name, scale=1.0), read_bvh(out, scale=1.0)
    pa, pb = world(a.skeleton, a.clip), world(b.skeleton, b.clip)
    height = np.ptp(pa[0], axis=0).max()
    np.testing.assert_allclose(pb, pa, atol=1e-6 * height)


def test_bake_moves_a_foot_by_its_keyed_offset(tmp_path, capsys):
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(preset)]) == 0
    doc = json.loads(preset.read_text())
    leg = next(c for c in doc["chains"] if c["name"] == "left_leg")
    lift = [0.0, 0.05, 0.0]
    keys = [(0.5, [0.0, 0.0, 0.0]), (1.0, lift), (1.5, [0.0, 0.0, 0.0])]
    leg["offset_keys"] = {"keys": [{"time": t, "value": v} for t, v in keys]}
    preset.write_text(json.dumps(doc))
    out = tmp_path / "baked.bvh"
    assert cmd_bake([str(preset), "--clip", str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(out), "-q"]) == 0
    rig = load_preset(preset)
    src = read_clip_for(rig.skeleton, DATA / "pybvh_bvh_test1.bvh")
    baked = read_clip_for(rig.skeleton, out)
    foot = rig.skeleton.index("LeftFoot")
    before, after = world(rig.skeleton, src.clip)[:, foot], world(rig.skeleton, baked.clip)[:, foot]
    f = int(round(1.0 / src.clip.frame_time))
    np.testing.assert_allclose(after[f] - before[f], lift, atol=1e-5)  # BVH text keeps ~6 digits
    g = int(round(0.25 / src.clip.frame_time))  # before the ease-in: the clip as recorded
    np.testing.assert_allclose(after[g], before[g], atol=1e-5)


def test_bake_errors(tmp_path, capsys):
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / "cmu_12_01_walk.bvh"), "-o", str(preset)]) == 0
    capsys.readouterr()
    out = tmp_path / "baked.bvh"
    assert cmd_bake([str(preset), "--clip", str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "pybvh_bvh_test1.bvh: the clip does not fit the rig's skeleton" in err
    assert not out.exists()
    assert cmd_bake([str(tmp_path / "none.json"), "--clip", str(DATA / "cmu_12_01_walk.bvh"), "-o", str(out), "-q"]) == 1
    assert "none.json" in capsys.readouterr().err


def test_clip_match_rejects_other_proportions(tmp_path):
    imp = read_bvh(DATA / "cmu_12_01_walk.bvh")
    text = (DATA / "cmu_12_01_walk.bvh").read_text().replace("OFFSET 2.03633 -5.59477 0.00000", "OFFSET 2.53633 -5.59477 0.00000")
    other = tmp_path / "longer_shin.bvh"
    other.write_text(text)
    with pytest.raises(ClipMismatch, match="joint 'LeftLeg'"):
        read_clip_for(imp.skeleton, other)
    matched = read_clip_for(imp.skeleton, DATA / "cmu_12_01_walk.bvh")
    assert matched.layout.scale == pytest.approx(imp.scale)
    np.testing.assert_allclose(matched.clip.translations, imp.clip.translations, atol=1e-12)


def test_the_rigedit_command_dispatches_import_and_bake(tmp_path, capsys):
    from rigedit.cli import main

    preset, out = tmp_path / "rig.json", tmp_path / "out.bvh"
    assert main(["import", str(DATA / "RiggedSimple.glb"), "-o", str(preset)]) == 0
    assert main(["bake", str(preset), "--clip", str(DATA / "RiggedSimple.glb"), "-o", str(out), "-q"]) == 0
    assert read_bvh(out, scale=1.0).clip.n_frames == 50
    assert main(["import", "--help"]) == 0
    assert "--up-axis" in capsys.readouterr().out


# --- the clip saved with the preset (issue 14 item 1) ------------------------------------


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "CesiumMan.glb"])
def test_import_saves_the_clip_beside_the_preset(name, tmp_path, capsys):
    out = tmp_path / "rig.json"
    assert cmd_import([str(DATA / name), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    sidecar = tmp_path / "rig.clip.npz"
    assert sidecar.exists() and str(sidecar) in text and "keep the two together" in text
    assert "--clip" not in text  # bake needs no clip file any more
    rig = load_preset(out)
    src = read_bvh(DATA / name).clip if name.endswith(".bvh") else None
    if src is not None:
        np.testing.assert_allclose(world(rig.skeleton, rig.clip), world(rig.skeleton, src), atol=1e-9)
    assert rig.clip.source.file == name


@pytest.mark.parametrize("name", ["dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh"])
def test_bake_uses_the_stored_clip_when_no_clip_is_given(name, tmp_path, capsys):
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / name), "-o", str(preset)]) == 0
    doc = json.loads(preset.read_text())
    for ch in doc["chains"]:
        ch["weight"] = 0.0
    preset.write_text(json.dumps(doc))
    stored, given = tmp_path / "stored.bvh", tmp_path / "given.bvh"
    assert cmd_bake([str(preset), "-o", str(stored), "-q"]) == 0
    assert cmd_bake([str(preset), "--clip", str(DATA / name), "-o", str(given), "-q"]) == 0
    # Written the way the imported file was: hierarchy, rotation orders, units (position
    # channels only where the joint moves, on a zero OFFSET: the unambiguous writer's rule).
    src, baked = parse_bvh((DATA / name).read_text()), parse_bvh(stored.read_text())
    assert [(j.name, _rotations(j.channels), j.end_site) for j in baked.joints] == [
        (j.name, _rotations(j.channels), j.end_site) for j in src.joints
    ]
    size = np.abs([s.offset for s in src.joints]).max()  # file units; the offsets went through a turn
    for j, s in zip(baked.joints, src.joints):
        expected = (0.0, 0.0, 0.0) if _rotations(j.channels) != j.channels and not j.end_site else s.offset
        np.testing.assert_allclose(j.offset, expected, atol=1e-6 * size, err_msg=j.name)
    rig = load_preset(preset)
    a = read_clip_for(rig.skeleton, stored).clip
    b = read_clip_for(rig.skeleton, given).clip
    pa, pb = world(rig.skeleton, a), world(rig.skeleton, b)
    # At weight 0 both are the recorded motion; each went through BVH text at 6 decimals.
    np.testing.assert_allclose(pa, pb, atol=1e-5 * np.abs(pb).max())
    np.testing.assert_allclose(pa, world(rig.skeleton, rig.clip), atol=1e-5 * np.abs(pb).max())


def test_bake_without_a_clip_anywhere_says_so(tmp_path, capsys):
    from rigedit.core.rig import BUNDLED_PRESETS

    out = tmp_path / "o.bvh"
    assert cmd_bake([str(BUNDLED_PRESETS / "humanoid.json"), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "humanoid.json: no clip is saved with this preset; name one with --clip" in err
    assert not out.exists()
