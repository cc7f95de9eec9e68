"""USD import (io/usd.py), USD's reader in the format table: a file rigedit exported comes
back as the source it was written from, and bad files are refused with the file named."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.cli import main
from rigedit.core.transforms import quat_rotate
from rigedit.io import formats
from rigedit.io.bvh_axes import UP_TO_Y
from rigedit.io.export import export_rig, load_for_export
from rigedit.io.figure import figure_size, world_positions
from rigedit.io.loaded import load

from .export_checks import DATA, ROUND_TRIP_RTOL

pxr = pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
from pxr import Sdf, Usd, UsdGeom, UsdSkel, Vt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# Channel orders ZYX (CMU, LAFAN1), ZXY (Bandai), XZY (pybvh); three glTF skins.
SOURCES = ["cmu_12_01_walk.bvh", "lafan1_push1_subject2.bvh", "dataset-1_kick_normal_001.bvh", "pybvh_bvh_test1.bvh",
           "CesiumMan.glb", "threejs_Xbot.glb", "RiggedFigure.glb"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """name -> (source rig, {suffix: exported path}); each source written once per suffix."""
    folder = tmp_path_factory.mktemp("usd")
    out = {}
    for name in SOURCES:
        rig, source = load_for_export(DATA / name)
        paths = {}
        for suffix in (".usda", ".usdc"):
            paths[suffix] = folder / f"{Path(name).stem}{suffix}"
            export_rig(rig, paths[suffix], source)
        out[name] = (rig, paths)
    return out


def _assert_same(rig, back, path):
    size = figure_size(rig.skeleton, rig.clip)
    tol = ROUND_TRIP_RTOL * size
    assert back.skeleton.names == rig.skeleton.names, path
    np.testing.assert_array_equal(back.skeleton.parents, rig.skeleton.parents)
    np.testing.assert_allclose(world_positions(back.skeleton), world_positions(rig.skeleton), rtol=0, atol=tol)
    np.testing.assert_allclose(back.skeleton.offsets, rig.skeleton.offsets, rtol=0, atol=tol)
    assert back.clip.n_frames == rig.clip.n_frames
    assert back.clip.frame_rate == pytest.approx(rig.clip.frame_rate, rel=1e-9)
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip), world_positions(rig.skeleton, rig.clip), rtol=0, atol=tol)


@pytest.mark.parametrize("suffix", [".usda", ".usdc"])
@pytest.mark.parametrize("name", SOURCES)
def test_rigedits_usd_export_imports_back_as_its_source(exported, name, suffix):
    rig, paths = exported[name]
    back = load(paths[suffix])
    assert back.format is formats.USD
    assert back.warnings == []
    _assert_same(rig, back, paths[suffix])


def test_the_import_command_makes_the_same_rig_as_from_the_source(exported, tmp_path, capsys):
    from rigedit.io.preset import load_preset

    rig, paths = exported["cmu_12_01_walk.bvh"]
    assert main(["import", str(paths[".usda"]), "-o", str(tmp_path / "usd.json")]) == 0
    out = capsys.readouterr().out
    assert "joints from /cmu_12_01_walk/Skeleton" in out and "wrote" in out
    assert main(["import", str(DATA / "cmu_12_01_walk.bvh"), "-o", str(tmp_path / "bvh.json")]) == 0
    from_usd, from_bvh = load_preset(tmp_path / "usd.json"), load_preset(tmp_path / "bvh.json")
    assert from_usd.chain_names == from_bvh.chain_names
    for c in from_usd.chain_names:
        assert from_usd.chain(c).joints == from_bvh.chain(c).joints
    size = figure_size(rig.skeleton, rig.clip)
    np.testing.assert_allclose(world_positions(from_usd.skeleton, from_usd.clip), world_positions(rig.skeleton, rig.clip),
                               rtol=0, atol=ROUND_TRIP_RTOL * size)


def test_lint_retarget_bake_and_batch_read_usd_through_the_table(exported, tmp_path):
    from rigedit.batch.plan import plan
    from rigedit.import_cli import put_clip_under
    from rigedit.io.preset import load_preset
    from rigedit.lint_cli import lint_file
    from rigedit.retarget_cli import retarget_file

    rig, paths = exported["cmu_12_01_walk.bvh"]
    usd = paths[".usdc"]
    linted = lint_file(str(usd), fix_output=str(tmp_path / "fixed.usda"))  # --fix writes the input's format
    assert linted.report.motion.n_frames == rig.clip.n_frames
    fixed = load(tmp_path / "fixed.usda")
    assert fixed.skeleton.names == rig.skeleton.names and fixed.clip.n_frames == rig.clip.n_frames
    with pytest.raises(ValueError, match="in the input's format"):
        lint_file(str(usd), fix_output=str(tmp_path / "fixed.bvh"))
    s = retarget_file(usd, "humanoid", tmp_path / "onto.bvh")
    t = retarget_file(DATA / "cmu_12_01_walk.bvh", "humanoid", tmp_path / "onto_src.bvh")
    assert (s.frames, s.chains, s.contacts) == (t.frames, t.chains, t.contacts)
    assert s.leg_ratio == pytest.approx(t.leg_ratio, rel=1e-5)
    assert main(["import", str(DATA / "cmu_12_01_walk.bvh"), "-o", str(tmp_path / "walk.json")]) == 0
    preset = load_preset(tmp_path / "walk.json")
    put_clip_under(preset, str(usd))  # bake --clip: the USD clip read against the preset's skeleton
    np.testing.assert_allclose(world_positions(preset.skeleton, preset.clip), world_positions(rig.skeleton, rig.clip),
                               rtol=0, atol=ROUND_TRIP_RTOL * figure_size(rig.skeleton, rig.clip))
    batch = plan("lint", [str(usd.parent)], str(tmp_path / "out"))
    assert {Path(j.source).name for j in batch.jobs} | {r.name for r in batch.done} >= {usd.name, paths[".usda"].name}


def _edited(src: Path, dst: Path, edit) -> Path:
    stage = Usd.Stage.Open(str(src))
    edit(stage)
    stage.GetRootLayer().Export(str(dst))
    return dst


def _skel(stage):
    return UsdSkel.Skeleton(next(p for p in stage.Traverse() if p.IsA(UsdSkel.Skeleton)))


def _anim(stage):
    return UsdSkel.Animation(next(p for p in stage.Traverse() if p.IsA(UsdSkel.Animation)))


def test_units_up_axis_and_the_skeletons_own_transform_are_read(exported, tmp_path):
    rig, paths = exported["pybvh_bvh_test1.bvh"]
    expected = world_positions(rig.skeleton, rig.clip)
    tol = ROUND_TRIP_RTOL * figure_size(rig.skeleton, rig.clip)

    def centimetres(stage):
        UsdGeom.SetStageMetersPerUnit(stage, 0.01)
        skel, anim = _skel(stage), _anim(stage)
        rest = np.array(skel.GetRestTransformsAttr().Get())
        rest[:, 3, :3] *= 100
        skel.GetRestTransformsAttr().Set(Vt.Matrix4dArray.FromNumpy(rest))
        attr = anim.GetTranslationsAttr()
        for t in attr.GetTimeSamples():
            attr.Set(Vt.Vec3fArray.FromNumpy((np.array(attr.Get(t)) * 100).astype(np.float32)), t)

    back = load(_edited(paths[".usda"], tmp_path / "cm.usda", centimetres))
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip), expected, rtol=0, atol=100 * tol)  # float32 in cm

    back = load(_edited(paths[".usda"], tmp_path / "z.usda", lambda s: UsdGeom.SetStageUpAxis(s, UsdGeom.Tokens.z)))
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip), quat_rotate(UP_TO_Y["+z"], expected), rtol=0, atol=tol)

    def moved(stage):
        root = UsdGeom.Xformable(stage.GetDefaultPrim())
        root.AddTranslateOp().Set((1.0, 2.0, 3.0))
        root.AddRotateYOp().Set(90.0)

    back = load(_edited(paths[".usda"], tmp_path / "moved.usda", moved))
    turn = np.array([0.0, np.sqrt(0.5), 0.0, np.sqrt(0.5)])  # 90 degrees about +Y
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip), quat_rotate(turn, expected) + [1.0, 2.0, 3.0],
                               rtol=0, atol=tol)


def _one_line_error(path: Path, capsys, *words):
    assert main(["import", str(path), "-o", str(path.with_suffix(".json"))]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(path) in err
    for w in words:
        assert w in err
    assert not path.with_suffix(".json").exists()
    return err


def test_a_stage_without_a_skeleton_is_refused(tmp_path, capsys):
    stage = Usd.Stage.CreateNew(str(tmp_path / "empty.usda"))
    UsdGeom.Xform.Define(stage, "/World")
    stage.GetRootLayer().Save()
    _one_line_error(tmp_path / "empty.usda", capsys, "no UsdSkel Skeleton")
    (tmp_path / "garbage.usda").write_text("#usda 1.0\n(\n  this is { not usd\n")
    _one_line_error(tmp_path / "garbage.usda", capsys, "USD cannot open it")


SMALL = "pybvh_bvh_test1.bvh"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bad_values_anywhere_are_named(exported, tmp_path_factory, capsys, data):
    rig, paths = exported[SMALL]
    n_joints, n_frames = len(rig.skeleton), rig.clip.n_frames
    joint = data.draw(st.integers(0, n_joints - 1), label="joint")
    frame = data.draw(st.integers(0, n_frames - 1), label="frame")
    fault = data.draw(st.sampled_from(["nan rotation", "inf translation", "short translations", "short rest", "nan rest",
                                       "parent after child"]), label="fault")
    folder = tmp_path_factory.mktemp("bad")

    def inject(stage):
        skel, anim = _skel(stage), _anim(stage)
        if fault in ("nan rotation", "inf translation", "short translations"):
            attr = anim.GetRotationsAttr() if fault == "nan rotation" else anim.GetTranslationsAttr()
            values = np.array(attr.Get(frame), dtype=np.float32)
            if fault == "short translations":
                values = values[:-1]
            else:
                values[joint, data.draw(st.integers(0, values.shape[1] - 1), label="component")] = (
                    np.nan if fault == "nan rotation" else np.inf)
            array = Vt.QuatfArray if fault == "nan rotation" else Vt.Vec3fArray
            attr.Set(array.FromNumpy(values), frame)
        elif fault in ("short rest", "nan rest"):
            rest = np.array(skel.GetRestTransformsAttr().Get())
            if fault == "short rest":
                rest = rest[:-1]
            else:
                rest[joint, 3, data.draw(st.integers(0, 2), label="axis")] = np.nan
            skel.GetRestTransformsAttr().Set(Vt.Matrix4dArray.FromNumpy(rest))
        else:  # a child listed before its parent
            joints = list(skel.GetJointsAttr().Get())
            child = max(joint, 1)
            parent = joints.index(joints[child].rsplit("/", 1)[0])
            joints[parent], joints[child] = joints[child], joints[parent]
            skel.GetJointsAttr().Set(Vt.TokenArray(joints))

    bad = _edited(paths[".usda"], folder / "bad.usda", inject)
    words = {"nan rotation": ("rotations", "not finite"), "inf translation": ("translations", "not finite"),
             "short translations": ("translations", f"{n_joints - 1} values"), "short rest": ("restTransforms", f"{n_joints - 1} transforms"),
             "nan rest": ("restTransforms", "not finite"), "parent after child": ("joints", "comes before its parent")}[fault]
    _one_line_error(bad, capsys, *words)


def test_without_usd_core_the_import_says_how_to_install(exported, tmp_path):
    _, paths = exported[SMALL]
    usd = paths[".usda"]
    code = (
        "import sys\n"
        "sys.modules['pxr'] = None  # as if usd-core were not installed\n"
        "from rigedit.cli import main\n"
        f"sys.exit(main(['import', {str(usd)!r}, '-o', {str(tmp_path / 'rig.json')!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1
    err = proc.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert str(usd) in err and "pip install 'rigedit[usd]'" in err and "USD import needs usd-core" in err
    assert not (tmp_path / "rig.json").exists()


def test_a_second_skeleton_is_said_and_the_first_read(exported, tmp_path):
    rig, paths = exported[SMALL]

    def copy(stage):
        layer = stage.GetRootLayer()
        root = stage.GetDefaultPrim().GetPath()
        Sdf.CopySpec(layer, root, layer, Sdf.Path("/Another"))

    back = load(_edited(paths[".usda"], tmp_path / "two.usda", copy))
    assert any("2 Skeleton prims" in w and "is read" in w for w in back.warnings)
    _assert_same(rig, back, tmp_path / "two.usda")


def test_unevenly_spaced_samples_are_read_at_the_smallest_spacing(exported, tmp_path):
    rig, paths = exported[SMALL]
    n = rig.clip.n_frames
    gone = n // 2  # a sample in the middle removed: USD interpolates across the gap

    def thin(stage):
        anim = _anim(stage)
        for attr in (anim.GetTranslationsAttr(), anim.GetRotationsAttr()):
            attr.ClearAtTime(gone)

    back = load(_edited(paths[".usda"], tmp_path / "thin.usda", thin))
    assert back.clip.n_frames == n and back.clip.frame_rate == pytest.approx(rig.clip.frame_rate, rel=1e-9)
    keep = [f for f in range(n) if f != gone]
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip)[keep], world_positions(rig.skeleton, rig.clip)[keep],
                               rtol=0, atol=ROUND_TRIP_RTOL * figure_size(rig.skeleton, rig.clip))

    def crowded(stage):
        attr = _anim(stage).GetTranslationsAttr()
        attr.Set(attr.Get(0), 1e-6)  # one sample a millionth of a time code after the first

    with pytest.raises(ValueError, match=r"crowded\.usda: .*would be \d+ frames"):
        load(_edited(paths[".usda"], tmp_path / "crowded.usda", crowded))
