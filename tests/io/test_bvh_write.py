"""BVH writer: read, write, read gives the same motion; Z-up conversion turns the world."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_from_axis_angle, quat_normalize
from rigedit.io.bvh import BvhLayout, read_bvh, write_bvh
from rigedit.io.bvh_format import parse_bvh

DATA = Path("/work/shared/data")
FILES = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh"]


def world_by_name(skeleton: Skeleton, clip: Clip) -> dict[str, np.ndarray]:
    pos, _ = skeleton.fk_matrices(Pose(clip.rotations, clip.translations))
    return {n: pos[:, i] for i, n in enumerate(skeleton.names)}


def assert_same_motion(a: dict, b: dict, rel=1e-6):
    assert sorted(a) == sorted(b)
    size = max(np.ptp(v, axis=0).max() for v in a.values()) or 1.0
    size = max(size, max(np.abs(v).max() for v in a.values()))
    for name in a:
        np.testing.assert_allclose(b[name], a[name], rtol=0, atol=rel * size, err_msg=name)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("up_axis", [None, "z"])
def test_read_write_read_keeps_every_frame(name, up_axis, tmp_path):
    first = read_bvh(DATA / name, up_axis=up_axis)
    out = tmp_path / "again.bvh"
    write_bvh(out, first.skeleton, first.clip, first.layout)
    second = read_bvh(out, scale=first.scale, up_axis=up_axis)
    assert_same_motion(world_by_name(first.skeleton, first.clip), world_by_name(second.skeleton, second.clip))
    assert _rotation_orders(second.layout.channels) == _rotation_orders(first.layout.channels)
    assert second.layout.end_sites == first.layout.end_sites
    assert second.clip.frame_time == pytest.approx(first.clip.frame_time, rel=1e-9)


@pytest.mark.parametrize("name", FILES)
def test_written_file_has_the_original_hierarchy_and_units(name, tmp_path):
    src = DATA / name
    original = parse_bvh(src.read_text())
    imp = read_bvh(src, up_axis="auto")
    out = tmp_path / "out.bvh"
    write_bvh(out, imp.skeleton, imp.clip, imp.layout)
    again = parse_bvh(out.read_text())
    assert [(j.name, j.parent, _rotation_order(j.channels), j.end_site) for j in again.joints] == [
        (j.name, j.parent, _rotation_order(j.channels), j.end_site) for j in original.joints
    ]
    for a, b in zip(again.joints, original.joints):
        if _has_position(a.channels):
            assert a.offset == (0.0, 0.0, 0.0)  # issue 15: readers that add and that replace agree
        else:
            np.testing.assert_allclose(a.offset, b.offset, atol=1e-9 * 100)
    # Position channels come back as written (file units, file axes) where they are kept.
    for j, (ca, cb) in enumerate(zip(again.channel_columns(), original.channel_columns())):
        if _has_position(again.joints[j].channels):
            for k, c in enumerate(original.joints[j].channels):
                if c.endswith("position"):
                    col = again.joints[j].channels.index(c)
                    np.testing.assert_allclose(again.motion[:, ca[col]], original.motion[:, cb[k]], atol=1e-6)


def _rotation_order(channels) -> str:
    return "".join(c[0] for c in channels if c.endswith("rotation"))


def _rotation_orders(channels: dict) -> dict:
    return {name: _rotation_order(c) for name, c in channels.items()}


def _has_position(channels) -> bool:
    return any(c.endswith("position") for c in channels)


def test_z_up_conversion_turns_the_world_minus_90_about_x():
    kept = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis="y")
    turned = read_bvh(DATA / "pybvh_bvh_test1.bvh", up_axis="z")
    auto = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    assert kept.file_up_axis == "+y" and not kept.layout.converted_from_z_up and "+z" in kept.up_axis_reason
    assert auto.file_up_axis == "+z"
    assert turned.layout.converted_from_z_up and auto.layout.converted_from_z_up
    a = world_by_name(kept.skeleton, kept.clip)
    b = world_by_name(turned.skeleton, turned.clip)
    for name in a:
        x, y, z = np.moveaxis(a[name], -1, 0)
        np.testing.assert_allclose(b[name], np.stack([x, z, -y], axis=-1), atol=1e-12)
    head, foot = turned.skeleton.index("Head"), turned.skeleton.index("LeftFoot")
    pos, _ = turned.skeleton.fk_matrices(turned.clip.frame(0))
    assert pos[head, 1] - pos[foot, 1] > 1.0  # metres, head above foot along +Y
    assert turned.skeleton.height() > 1.4


def test_auto_leaves_y_up_files_alone():
    imp = read_bvh(DATA / "cmu_12_01_walk.bvh", up_axis="auto")
    assert imp.file_up_axis == "+y" and not imp.layout.converted_from_z_up


def test_writer_without_layout_keeps_moving_joints_and_rest_rotations(tmp_path):
    # A glTF-like skeleton: rest rotations, and a non-root joint whose translation animates.
    rng = np.random.default_rng(7)
    sk = Skeleton(
        ["root", "a", "b", "c"],
        [-1, 0, 1, 1],
        [[0, 1, 0], [0, 0.5, 0], [0.3, 0, 0], [-0.3, 0.1, 0]],
        quat_normalize(rng.normal(size=(4, 4))),
    )
    frames = 12
    rot = quat_normalize(rng.normal(size=(frames, 4, 4)))
    trans = np.broadcast_to(sk.offsets, (frames, 4, 3)).copy()
    trans[:, 0] += rng.normal(size=(frames, 3))
    trans[:, 2] += rng.normal(size=(frames, 3)) * 0.1
    clip = Clip(rot, trans, 1 / 24)
    out = tmp_path / "plain.bvh"
    write_bvh(out, sk, clip)
    back = read_bvh(out, scale=1.0)
    assert back.layout.channels["b"][:3] == ("Xposition", "Yposition", "Zposition")
    assert not any(c.endswith("position") for c in back.layout.channels["c"])
    assert_same_motion(world_by_name(sk, clip), world_by_name(back.skeleton, back.clip), rel=1e-8)


def test_writer_writes_rest_pose_without_clip_and_is_atomic(tmp_path):
    imp = read_bvh(DATA / "dataset-1_walk-right_normal_001.bvh")
    out = tmp_path / "rest.bvh"
    out.write_text("old")
    write_bvh(out, imp.skeleton, None, imp.layout)
    back = read_bvh(out, scale=imp.scale)
    assert back.clip.n_frames == 1
    np.testing.assert_allclose(back.skeleton.offsets, imp.skeleton.offsets, atol=1e-9)
    assert [p.name for p in tmp_path.iterdir()] == ["rest.bvh"]  # no temporary file left behind


def test_failed_write_leaves_the_old_file(tmp_path):
    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    out = tmp_path / "keep.bvh"
    out.write_text("precious")
    bad = Clip(imp.clip.rotations[:, :3], imp.clip.translations[:, :3], imp.clip.frame_time)
    with pytest.raises(ValueError):
        write_bvh(out, imp.skeleton, bad, imp.layout)
    assert out.read_text() == "precious"


ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]


@st.composite
def random_motion(draw):
    n = draw(st.integers(1, 6))
    parents = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    offsets = rng.normal(size=(n, 3)) * draw(st.sampled_from([0.01, 1.0, 100.0]))
    offsets[rng.random(n) < 0.2] = 0.0  # zero-length bones are common in real files
    frames = draw(st.integers(1, 5))
    axes = rng.normal(size=(frames, n, 3))
    # Angles up to and beyond 180 degrees, and exact gimbal-lock poses now and then.
    angles = rng.uniform(-1.5, 1.5, size=(frames, n)) * np.pi
    rot = quat_from_axis_angle(axes, angles)
    if draw(st.booleans()):
        rot[0, 0] = quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), np.pi / 2)
    trans = np.broadcast_to(offsets, (frames, n, 3)).copy()
    trans[:, 0] = rng.normal(size=(frames, 3))
    channels = {}
    for i in range(n):
        order = draw(st.sampled_from(ORDERS))
        rot_ch = tuple(f"{a}rotation" for a in order)
        channels[f"j{i}"] = (("Xposition", "Yposition", "Zposition") if i == 0 else ()) + rot_ch
    sk = Skeleton([f"j{i}" for i in range(n)], parents, offsets, np.tile([0, 0, 0, 1.0], (n, 1)))
    layout = BvhLayout(channels=channels, scale=draw(st.sampled_from([1.0, 0.01, 0.0254])))
    return sk, Clip(rot, trans, 1 / 30), layout


@settings(max_examples=60, deadline=None)
@given(random_motion())
def test_any_motion_survives_write_and_read(tmp_path_factory, motion):
    sk, clip, layout = motion
    out = tmp_path_factory.mktemp("prop") / "m.bvh"
    write_bvh(out, sk, clip, layout)
    back = read_bvh(out, scale=layout.scale)
    assert back.layout.channels == layout.channels
    assert_same_motion(world_by_name(sk, clip), world_by_name(back.skeleton, back.clip))
