"""`rigedit retarget` and `retarget_file`: every output format read back, the summary, an
existing output kept, bad input named without a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.core.retarget import RetargetError
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf
from rigedit.io.preset import load_preset
from rigedit.retarget_cli import retarget_file
from tests.core.retarget_cases import DATA, humanoid, positions, retargeted

CMU = DATA / "cmu_12_01_walk.bvh"
BANDAI = DATA / "dataset-1_walk-right_normal_001.bvh"
CESIUM = DATA / "CesiumMan.glb"
ROOT = Path(__file__).resolve().parents[1]

NO_LEGS = """HIERARCHY
ROOT Base
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Segment1
  {
    OFFSET 0 30 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT Segment2
    {
      OFFSET 0 30 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 20 0
      }
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 0 0 0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 10 0 0 10 0 0
0 0 0 0 0 0 20 0 0 20 0 0
"""


def test_bvh_out_is_the_humanoid_walking(tmp_path):
    out = tmp_path / "walk_on_humanoid.bvh"
    summary = retarget_file(CMU, "humanoid", out)
    assert summary.frames == 524 and summary.output == str(out)
    assert summary.max_foot_slide <= 0.005
    assert set(summary.chains) >= {"left_leg", "right_leg", "left_arm", "right_arm", "spine"}
    back = read_bvh(out)
    sk = humanoid()
    assert back.skeleton.names == sk.names
    assert back.clip.n_frames == 524
    # What was written is the retargeted clip (BVH keeps angles to its printed digits).
    want = positions(sk, retargeted(CMU.name).clip)
    got = positions(back.skeleton, back.clip)
    np.testing.assert_allclose(got, want, atol=1e-4)


@pytest.mark.parametrize("suffix", [".glb", ".usda"])
def test_gltf_and_usd_out(tmp_path, suffix):
    if suffix == ".usda":
        pytest.importorskip("pxr")
    out = tmp_path / f"cesium_on_humanoid{suffix}"
    summary = retarget_file(CESIUM, ROOT / "resources" / "presets" / "humanoid.json", out)
    assert summary.frames == 48
    assert out.is_file() and out.stat().st_size > 0
    if suffix == ".glb":
        back = read_gltf(out, animation=0)
        assert back.clip.n_frames == 48
        np.testing.assert_allclose(positions(back.skeleton, back.clip)[:, [back.skeleton.index("LeftFoot")]],
                                   positions(humanoid(), retargeted(CESIUM.name).clip)[:, [humanoid().index("LeftFoot")]], atol=1e-4)


@pytest.mark.parametrize("animation", [0, "0"])
def test_a_gltf_animation_by_index(tmp_path, animation):
    summary = retarget_file(CESIUM, "humanoid", tmp_path / "o.bvh", animation=animation)
    assert summary.frames == 48


def test_preset_out_plays_the_retargeted_clip(tmp_path):
    out = tmp_path / "bandai_on_humanoid.json"
    retarget_file(BANDAI, "humanoid", out)
    rig = load_preset(out)
    assert rig.clip is not None and rig.clip.n_frames == 135
    assert all(rig.chain(n).follow_clip for n in rig.chain_names)
    # Solved at a time, the rig shows the clip there: every goal follows it.
    want = positions(rig.skeleton, retargeted(BANDAI.name).clip)
    for frame in (20, 70):
        rig.time = frame * rig.clip.frame_time
        rig.solve()
        for joint in ("LeftFoot", "RightHand", "Head"):
            np.testing.assert_allclose(rig.world_position(joint), want[frame, rig.skeleton.index(joint)], atol=2e-3)


def test_an_existing_output_is_kept_without_force(tmp_path):
    out = tmp_path / "x.bvh"
    out.write_text("keep me")
    with pytest.raises(RetargetError, match="already exists"):
        retarget_file(CMU, "humanoid", out)
    assert out.read_text() == "keep me"
    retarget_file(CMU, "humanoid", out, force=True)
    assert read_bvh(out).clip.n_frames == 524


@pytest.mark.parametrize("make, problem", [
    (lambda d: _write(d / "tentacle.bvh", NO_LEGS), "no left and right legs"),
    (lambda d: _write(d / "notes.bvh", "this is not motion capture\n"), "notes.bvh"),
    (lambda d: _write(d / "notes.txt", "hello\n"), "reads .bvh, .glb, .gltf, .usd, .usda or .usdc clips"),
    (lambda d: DATA / "RiggedSimple.glb", "no left and right legs"),
    (lambda d: d / "missing.bvh", "no such file"),
])
def test_bad_sources_are_named(tmp_path, make, problem):
    src = make(tmp_path)
    with pytest.raises(RetargetError, match=problem) as e:
        retarget_file(src, "humanoid", tmp_path / "out.bvh")
    assert str(src) in str(e.value)
    assert not (tmp_path / "out.bvh").exists()


def test_bad_targets_and_outputs_are_named(tmp_path):
    with pytest.raises(RetargetError, match="nosuchrig: no such preset file, nor a bundled preset"):
        retarget_file(CMU, "nosuchrig", tmp_path / "o.bvh")
    tentacle = ROOT / "resources" / "presets" / "tentacle.json"
    with pytest.raises(RetargetError, match="tentacle.json: no left and right legs"):
        retarget_file(CMU, tentacle, tmp_path / "o.bvh")
    with pytest.raises(RetargetError, match=r"o\.fbx: cannot tell what to write"):
        retarget_file(CMU, "humanoid", tmp_path / "o.fbx")
    with pytest.raises(RetargetError, match="o.bvh: no such folder"):
        retarget_file(CMU, "humanoid", tmp_path / "nowhere" / "o.bvh")
    with pytest.raises(RetargetError, match="a BVH file holds one motion"):
        retarget_file(CMU, "humanoid", tmp_path / "o.bvh", animation="Walk")


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_cli_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "o.bvh"
    assert main(["retarget", str(BANDAI), "--onto", "humanoid", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}: 135 frames at 30 fps" in text and "max foot slide" in text
    assert main(["retarget", str(BANDAI), "--onto", "humanoid", "-o", str(out)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["retarget", str(BANDAI), "--onto", "humanoid", "-o", str(out), "--force"]) == 0


def test_cli_bad_input_exits_1_without_a_traceback(tmp_path):
    src = _write(tmp_path / "tentacle.bvh", NO_LEGS)
    run = subprocess.run([sys.executable, "-m", "rigedit", "retarget", str(src), "--onto", "humanoid", "-o", str(tmp_path / "o.bvh")],
                         check=False, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert str(src) in run.stderr and "no left and right legs" in run.stderr


def test_onto_an_imported_rig_whose_rest_pose_is_no_pose(tmp_path):
    """Bandai's rest pose lays every bone along +X; imported, its clip's first frame says
    where its legs are. The CMU walk goes onto it with its feet held."""
    rig_path = tmp_path / "bandai.json"
    assert main(["import", str(BANDAI), "-o", str(rig_path)]) == 0
    out = tmp_path / "cmu_on_bandai.bvh"
    summary = retarget_file(CMU, rig_path, out)
    assert summary.frames == 524 and summary.max_foot_slide <= 0.005
    back = read_bvh(out)
    assert back.skeleton.names == load_preset(rig_path).skeleton.names


XBOT = DATA / "threejs_Xbot.glb"


def _js():
    from tests.js_readers import readers

    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    return js


def test_onto_a_gltf_character_the_output_is_the_character_skinned(tmp_path):
    """Onto Xbot: the .glb has Xbot's meshes and skin, the retarget as its first animation
    (Xbot's own after it), read back as the clip made; three.js puts its bones where rigedit
    does and skins its mesh with them (the body walks off with the hips)."""
    import pygltflib

    from rigedit.core.retarget import retarget_clip
    from rigedit.io.export import read_gltf_source
    from rigedit.lint_cli import load_clip

    out = tmp_path / "walk_xbot.glb"
    summary = retarget_file(BANDAI, XBOT, out)
    assert summary.target == str(XBOT) and summary.frames == 135
    doc, own = pygltflib.GLTF2().load(str(out)), pygltflib.GLTF2().load(str(XBOT))
    assert len(doc.meshes) == len(own.meshes) and len(doc.skins) == len(own.skins)
    assert [n.skin for n in doc.nodes] == [n.skin for n in own.nodes]
    assert len(doc.animations) == 1 + len(own.animations)
    back = load_clip(str(out))
    target, _ = read_gltf_source(XBOT, animation=None)
    src = load_clip(str(BANDAI))
    made = retarget_clip(src.skeleton, src.clip, target.skeleton)
    np.testing.assert_allclose(positions(back.skeleton, back.clip), positions(target.skeleton, made.clip), atol=1e-4)

    js = _js()
    name = doc.animations[0].name
    seen = js.gltf_positions(out, name)
    want = positions(back.skeleton, back.clip)
    hips = back.skeleton.index("mixamorig:Hips")
    node = back.gltf.nodes[hips]
    assert np.abs(np.array(seen["nodes"][str(node)]) - want[:, hips]).max() < 1e-3
    first, last = 0, back.clip.n_frames - 1
    skinned = js.run("skin", out, name, f"{first},{last}")["meshes"]
    for flat in skinned.values():
        a, b = (np.array(f).reshape(-1, 3).mean(axis=0) for f in flat)
        travel = want[last, hips] - want[first, hips]
        np.testing.assert_allclose((b - a)[[0, 2]], travel[[0, 2]], atol=0.1 * np.linalg.norm(travel))


def test_only_result_drops_the_characters_animations_and_is_refused_onto_a_preset(tmp_path):
    import pygltflib

    out = tmp_path / "walk_xbot.glb"
    assert main(["retarget", str(BANDAI), "--onto", str(XBOT), "-o", str(out), "--only-result"]) == 0
    assert len(pygltflib.GLTF2().load(str(out)).animations) == 1
    with pytest.raises(RetargetError, match="only_result"):
        retarget_file(BANDAI, "humanoid", tmp_path / "a.bvh", only_result=True)
    with pytest.raises(RetargetError, match="a preset is written onto a preset"):
        retarget_file(BANDAI, XBOT, tmp_path / "a.json")


PYBVH = DATA / "pybvh_bvh_test1.bvh"


@pytest.mark.parametrize("flag, option, src, onto", [
    ("--root=in_place", dict(root="in_place"), BANDAI, "humanoid"), ("--root=kept", dict(root="kept"), BANDAI, "humanoid"),
    ("--no-foot-lock", dict(lock_feet=False), BANDAI, "humanoid"), ("--no-ground", dict(ground=False), BANDAI, "humanoid"),
    # The humanoid is no wider than these figures: arm space moves hands on Xbot's wide hips.
    ("--no-arm-space", dict(arm_space=False), PYBVH, XBOT)])
def test_each_option_on_the_command_line_is_the_apis(tmp_path, flag, option, src, onto):
    """The file written with the flag holds the clip the core makes with the option, and not
    the default's (each option changes its take)."""
    from rigedit.core.retarget import retarget_clip
    from rigedit.io.export import read_gltf_source
    from rigedit.lint_cli import load_clip

    out = tmp_path / ("walk.bvh" if onto == "humanoid" else "walk.glb")
    assert main(["retarget", str(src), "--onto", str(onto), "-o", str(out), flag]) == 0
    back = load_clip(str(out))
    target = humanoid() if onto == "humanoid" else read_gltf_source(onto, animation=None)[0].skeleton
    source = load_clip(str(src))
    want = retarget_clip(source.skeleton, source.clip, target, **option).clip
    default = retarget_clip(source.skeleton, source.clip, target).clip
    got = positions(back.skeleton, back.clip)
    assert np.abs(got - positions(target, want)).max() < 1e-3
    assert np.abs(got - positions(target, default)).max() > 1e-2


def test_the_commands_flags_are_the_options_list():
    """Every option of core/retarget/options.py is a flag of `rigedit retarget` and of
    `rigedit batch retarget`, with the core's choices; nothing else decides them."""
    import argparse
    from dataclasses import fields

    from rigedit.batch_cli import _parser
    from rigedit.core.retarget import ROOT_MODES, RetargetOptions
    from rigedit.retarget_flags import add_option_flags, option_values

    p = argparse.ArgumentParser()
    add_option_flags(p)
    defaults = option_values(p.parse_args([]))
    assert defaults == RetargetOptions().as_dict()
    assert next(a for a in p._actions if a.dest == "root").choices == ROOT_MODES
    batch = _parser().parse_args(["retarget", "x.bvh", "-o", "out", "--onto", "humanoid"])
    assert option_values(batch) == defaults and {f.name for f in fields(RetargetOptions)} <= set(vars(batch))


def test_the_retarget_and_batch_help_load_neither_numba_nor_numpy():
    """The flags come from core/retarget/options.py alone: `rigedit retarget --help` and
    `rigedit batch retarget --help` start without the retarget's numeric modules (numba,
    numpy, scipy) and still list every option's flag with its choices."""
    code = (
        "import sys, io, contextlib\n"
        "import rigedit.retarget_flags, rigedit.retarget_cli, rigedit.batch_cli\n"
        "from rigedit import cli\n"
        "for argv in (['retarget', '--help'], ['batch', 'retarget', '--help'], ['batch', '--help']):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        cli.main(argv)\n"
        "    text = out.getvalue()\n"
        "    print(argv[-2], all(f in text for f in ('--no-foot-lock', '--no-ground', '--no-arm-space', 'in_place')))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'numpy', 'scipy'}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # The flags are under `retarget` and `batch retarget` (batch's own help lists the kinds).
    assert proc.stdout.split() == ["retarget", "True", "retarget", "True", "batch", "False", "[]"]
