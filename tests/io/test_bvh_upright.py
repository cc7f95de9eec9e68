"""Every file comes in upright in metres: the up axis turned to +Y (guessed, or given with
--up), and the unit read from the skeleton's bones, so one skeleton gets one unit whatever
its motion."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_rotate
from rigedit.import_cli import cmd_import
from rigedit.io.bvh import read_bvh, read_bvh_text, write_bvh
from rigedit.io.bvh_axes import UP_TO_Y
from rigedit.io.bvh_format import RawBvh, format_bvh, parse_bvh
from rigedit.io.gltf import read_gltf
from rigedit.io.preset import load_preset

DATA = Path("/work/shared/data")
BVH = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh"]
AXES = list(UP_TO_Y)


def world(skeleton, clip):
    return skeleton.fk_matrices(Pose(clip.rotations, clip.translations))[0]


def height(imp) -> float:
    """The tallest the figure stands along +Y over the clip, in metres (joints only, so a
    little under the person's height: no skull or soles)."""
    return float(np.ptp(world(imp.skeleton, imp.clip)[..., 1], axis=-1).max())


def head_minus_feet(skeleton, pose) -> np.ndarray:
    pos, _ = skeleton.fk_matrices(pose)
    head = [i for i, n in enumerate(skeleton.names) if "head" in n.lower()]
    feet = [i for i, n in enumerate(skeleton.names) if "foot" in n.lower() or "toe" in n.lower()]
    return pos[head].mean(axis=0) - pos[feet].mean(axis=0)


def test_the_z_up_file_imports_upright_by_default():
    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    assert imp.file_up_axis == "+z" and imp.layout.up == "+z"
    for f in (0, imp.clip.n_frames // 2, imp.clip.n_frames - 1):
        d = head_minus_feet(imp.skeleton, imp.clip.frame(f))
        assert d[1] > 1.0 and abs(d[1]) > 3 * max(abs(d[0]), abs(d[2])), d  # metres, head over feet along +Y
    assert 1.4 <= height(imp) <= 2.1
    kept = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis="y")
    assert head_minus_feet(kept.skeleton, kept.clip.frame(0))[2] > 1.0  # as written: lying along +Z


@pytest.mark.parametrize("name", BVH)
def test_each_shared_bvh_imports_at_a_human_height(name):
    imp = read_bvh(DATA / name)
    assert 1.4 <= height(imp) <= 2.1, imp.scale_reason
    assert head_minus_feet(imp.skeleton, imp.clip.frame(0))[1] > 1.0


@pytest.mark.parametrize("up", AXES)
def test_turning_any_axis_up_is_the_original_fk_turned(up):
    """FK of the converted skeleton and clip is the file's own FK, rotated by the axis change,
    on every frame: offsets, root translations and every rotation turned consistently."""
    kept = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis="y")
    turned = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis=up)
    assert turned.layout.up == up and turned.scale == kept.scale
    want = quat_rotate(UP_TO_Y[up], world(kept.skeleton, kept.clip))
    size = np.ptp(want.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(world(turned.skeleton, turned.clip), want, rtol=0, atol=1e-12 * size)
    # The turn takes the named file axis to +Y.
    axis = np.zeros(3)
    axis["xyz".index(up[1])] = 1.0 if up[0] == "+" else -1.0
    np.testing.assert_allclose(quat_rotate(UP_TO_Y[up], axis), [0.0, 1.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("up", ["+z", "-x", "-y"])
def test_the_writer_turns_the_axis_back(up, tmp_path):
    kept = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis="y")
    turned = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis=up)
    out = tmp_path / "out.bvh"
    write_bvh(out, turned.skeleton, turned.clip, turned.layout)
    again = read_bvh(out, scale=kept.scale, up_axis="y")
    a, b = world(kept.skeleton, kept.clip), world(again.skeleton, again.clip)
    np.testing.assert_allclose(b, a, rtol=0, atol=1e-7 * np.ptp(a.reshape(-1, 3), axis=0).max())


def _resized(name: str, factor: float) -> RawBvh:
    """The file's skeleton and motion with every length times `factor`: another skeleton."""
    raw = parse_bvh((DATA / name).read_text())
    motion = raw.motion.copy()
    joints = []
    for j, cols in zip(raw.joints, raw.channel_columns()):
        joints.append(replace(j, offset=tuple(factor * np.asarray(j.offset))))
        for c, col in zip(j.channels, cols):
            if c.endswith("position"):
                motion[:, col] *= factor
    return RawBvh(joints, raw.frame_time, motion)


def _motions(raw: RawBvh) -> dict[str, str]:
    """The same skeleton doing different things: as captured, the rest pose, curled up, a
    short slice, the frames backwards."""
    rot = [c for j, cols in zip(raw.joints, raw.channel_columns()) for ch, c in zip(j.channels, cols) if ch.endswith("rotation")]
    rest = raw.motion[:1].copy()
    rest[:, rot] = 0.0
    curled = raw.motion[:3].copy()
    curled[:, rot] = 0.0
    curled[:, [c for j, cols in zip(raw.joints, raw.channel_columns()) for ch, c in zip(j.channels, cols) if ch == "Xrotation"]] = 180.0
    motions = {"captured": raw.motion, "rest": rest, "curled": curled, "slice": raw.motion[-5:], "backwards": raw.motion[::-1]}
    return {k: format_bvh(RawBvh(raw.joints, raw.frame_time, np.ascontiguousarray(m))) for k, m in motions.items()}


@pytest.mark.parametrize("name", BVH)
@pytest.mark.parametrize("factor", [1.0, 0.45, 2.2])
def test_the_same_skeleton_gets_the_same_unit_whatever_its_motion(name, factor):
    # 0.45 puts the Bandai walk's height (in file units) near the border between two units,
    # where a guess that measured the motion read its rest pose in another unit.
    scales = {k: read_bvh_text(text).scale for k, text in _motions(_resized(name, factor)).items()}
    assert len(set(scales.values())) == 1, scales


def test_a_baked_file_reimports_in_the_unit_it_was_written_in(tmp_path):
    """Write a clip back in the file's units (as bake does) with a different motion: the unit
    guessed on reading it is the original's."""
    for name in BVH:
        imp = read_bvh(DATA / name)
        clip = imp.clip
        rest = imp.skeleton.rest_pose()
        still = Clip(np.repeat(rest.rotations[None], 3, axis=0), np.repeat(rest.translations[None], 3, axis=0), clip.frame_time)
        out = tmp_path / f"baked_{name}"
        write_bvh(out, imp.skeleton, still, imp.layout)
        again = read_bvh(out)
        assert again.scale == imp.scale, (name, again.scale_reason)
        assert again.layout.up == imp.layout.up


def test_import_command_turns_up_and_takes_the_override(tmp_path, capsys):
    auto, lying = tmp_path / "auto.json", tmp_path / "lying.json"
    assert cmd_import([str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(auto)]) == 0
    assert cmd_import([str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(lying), "--up", "y"]) == 0
    out = capsys.readouterr().out
    assert "file up axis +z, turned to +Y up" in out
    up = load_preset(auto).skeleton
    flat = load_preset(lying).skeleton
    assert head_minus_feet(up, up.rest_pose())[1] > 1.0
    assert head_minus_feet(flat, flat.rest_pose())[2] > 1.0


@pytest.mark.parametrize("argv, words", [
    (["--up", "w"], "--up"),
    (["--fps", "1e9"], "between 1 and 1000"),
    (["--fps", "nan"], "between 1 and 1000"),
    (["--scale", "-2"], "scale"),
])
def test_import_options_are_checked(argv, words, tmp_path, capsys):
    out = tmp_path / "rig.json"
    code = cmd_import([str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(out)] + argv) if argv[0] == "--scale" else None
    if code is None:
        with pytest.raises(SystemExit) as e:
            cmd_import([str(DATA / "CesiumMan.glb"), "-o", str(out)] + argv)
        code = e.value.code
    assert code != 0 and not out.exists()
    assert words in capsys.readouterr().err


def test_gltf_is_trusted_unless_told():
    plain = read_gltf(DATA / "CesiumMan.glb")
    for up in (None, "auto"):
        imp = read_gltf(DATA / "CesiumMan.glb", up_axis=up)
        np.testing.assert_allclose(imp.skeleton.offsets, plain.skeleton.offsets, atol=1e-12)
    told = read_gltf(DATA / "CesiumMan.glb", up_axis="z")
    want = quat_rotate(UP_TO_Y["+z"], world(plain.skeleton, plain.clip))
    np.testing.assert_allclose(world(told.skeleton, told.clip), want, atol=1e-9)
    assert any("turned" in w for w in told.warnings)
    extent = np.ptp(world(plain.skeleton, plain.clip)[0], axis=0)
    assert extent[1] > 1.5 * max(extent[0], extent[2])  # under its Z_UP node the figure stands in +Y (mid-stride)
