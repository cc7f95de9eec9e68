"""BVH export (issue 15): unambiguous files that readers of either convention read as rigedit
shows them, with continuous Euler angles that stay near a source file's own."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_axis_angle, quat_mul, quat_normalize
from rigedit.io.bvh import POSITION_RTOL, read_bvh, write_bvh
from rigedit.io.bvh_format import parse_bvh
from rigedit.io.export import bvh_angles, export_rig
from rigedit.io.figure import figure_size, world_positions

from .export_checks import DATA, READER_RTOL, SHARED, Result, bvh_positions, exported_bvh


@pytest.fixture(scope="module", params=SHARED)
def exported(request, exports):
    return exports.result(request.param), exports.file(request.param, ".bvh")


def _in_file_units(result: Result, names: list[str]) -> tuple[np.ndarray, float]:
    return result.in_bvh_units(names)


@pytest.mark.parametrize("add_offsets", [True, False], ids=["three.js convention", "Blender convention"])
def test_both_readings_of_position_channels_give_rigedits_pose(exported, add_offsets):
    result, out = exported
    names, got = bvh_positions(out, add_offsets=add_offsets)
    expected, size = _in_file_units(result, names)
    assert np.abs(got - expected).max() <= READER_RTOL * size


def test_position_channels_only_where_joints_move_and_then_on_zero_offsets(exported):
    result, out = exported
    raw = exported_bvh(out)
    clip, skeleton = result.clip, result.rig.skeleton
    still = POSITION_RTOL * result.size
    for j in raw.joints:
        if j.end_site:
            continue
        i = skeleton.index(j.name)
        moves = np.ptp(clip.translations[:, i], axis=0).max() > still
        has = any(c.endswith("position") for c in j.channels)
        assert has == (moves or (j.parent < 0 and has)), j.name
        if has:
            assert j.offset == (0.0, 0.0, 0.0), j.name


# three.js's BVHLoader on every shared file's export: test_export_readers.py.


def test_angles_stay_with_a_source_files_own(tmp_path):
    """Written back, a BVH keeps its angles; with the IK moving limbs, each angle stays within
    180 degrees of the source's, continuously."""
    src = DATA / "cmu_12_01_walk.bvh"
    result = Result(src)
    rig = result.rig
    from rigedit.core.autochains import propose_chains

    for c in propose_chains(rig.skeleton, rig.clip.frame(0)):
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
    out = tmp_path / "ik.bvh"
    export_rig(rig, out, result.source)
    source, written = bvh_angles(str(src)), bvh_angles(str(out))
    assert set(written) == set(source)
    changed = 0
    for name, angles in written.items():
        assert np.abs(angles - source[name]).max() < 180.0, name
        changed += np.abs(angles - source[name]).max() > 1e-3
    assert changed > 0  # the IK really moved something
    plain = tmp_path / "plain.bvh"
    export_rig(Result(src).rig, plain, result.source)
    for name, angles in bvh_angles(str(plain)).items():
        np.testing.assert_allclose(angles, source[name], atol=1e-6, err_msg=name)


def _spinning_clip(frames: int = 240):
    """A joint turning two full turns about a tilted axis (its middle Euler angle passes +-90
    degrees), and a root walking along X."""
    sk = Skeleton(["root", "arm", "hand"], [-1, 0, 1], [[0, 1, 0], [0.3, 0, 0], [0.25, 0, 0]], np.tile([0, 0, 0, 1.0], (3, 1)))
    t = np.linspace(0.0, 1.0, frames)
    rot = np.tile([0, 0, 0, 1.0], (frames, 3, 1))
    rot[:, 1] = quat_from_axis_angle(np.array([1.0, 1.0, 0.3]) / np.linalg.norm([1.0, 1.0, 0.3]), 4 * np.pi * t)
    rot[:, 2] = quat_mul(quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 3 * np.pi * t), quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), 0.5 + 0 * t))
    trans = np.broadcast_to(sk.offsets, (frames, 3, 3)).copy()
    trans[:, 0, 0] = 2.0 * t
    return sk, Clip(quat_normalize(rot), trans, 1 / 60)


def test_euler_angles_are_continuous_frame_to_frame(tmp_path):
    sk, clip = _spinning_clip()
    out = tmp_path / "spin.bvh"
    write_bvh(out, sk, clip)
    for name, angles in bvh_angles(str(out)).items():
        # 720 degrees over 240 frames is 3 degrees a frame; a branch or wrap jump is >= 180.
        assert np.abs(np.diff(angles, axis=0)).max() < 30.0, name
    back = read_bvh(out, scale=1.0, up_axis="y")
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip), world_positions(sk, clip), atol=1e-9)


def test_float_noise_in_translations_gives_no_position_channels(tmp_path):
    """As a glTF clip stores them: every translation off its rest value by float32 noise."""
    sk, clip = _spinning_clip(30)
    rng = np.random.default_rng(3)
    noisy = clip.translations.copy()
    noisy[:, 1:] += rng.uniform(-0.3, 0.3, size=noisy[:, 1:].shape) * POSITION_RTOL * figure_size(sk, clip)
    out = tmp_path / "noise.bvh"
    write_bvh(out, sk, Clip(clip.rotations, noisy, clip.frame_time))
    raw = parse_bvh(out.read_text())
    with_positions = [j.name for j in raw.joints if any(c.endswith("position") for c in j.channels)]
    assert with_positions == ["root"]
    assert raw.joints[1].offset == pytest.approx((0.3, 0.0, 0.0), abs=1e-12)
    # A joint that really slides gets them, on a zero OFFSET, and both readings agree.
    sliding = noisy.copy()
    sliding[:, 2, 1] += np.linspace(0, 0.05, len(sliding))
    write_bvh(out, sk, Clip(clip.rotations, sliding, clip.frame_time))
    raw = parse_bvh(out.read_text())
    assert [j.name for j in raw.joints if any(c.endswith("position") for c in j.channels)] == ["root", "hand"]
    _, added = bvh_positions(out, add_offsets=True)
    _, replaced = bvh_positions(out, add_offsets=False)
    np.testing.assert_allclose(added, replaced, atol=1e-12)


def test_a_rig_without_a_clip_exports_its_current_pose(tmp_path):
    sk, clip = _spinning_clip(10)
    rig = Rig(sk)
    rig.pose = clip.frame(5)
    out = tmp_path / "pose.bvh"
    report = export_rig(rig, out)
    assert report.frames == 1
    back = read_bvh(out, scale=1.0, up_axis="y")
    np.testing.assert_allclose(world_positions(back.skeleton, back.clip)[0], world_positions(sk, clip)[5], atol=1e-9)


ORDERS = ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]


@settings(max_examples=80, deadline=None)
@given(order=st.sampled_from(ORDERS), seed=st.integers(0, 2**32 - 1), frames=st.integers(1, 40), with_reference=st.booleans())
def test_euler_channels_are_exact_continuous_and_near_the_reference(order, seed, frames, with_reference):
    """Any smooth motion (steps under 10 degrees a frame), through gimbal lock or not: the
    angles give back each rotation; consecutive frames differ by less than a branch or a wrap
    could; given a reference, every angle lies within 180 degrees of it."""
    from rigedit.core.transforms import quat_angle, quat_conj, quat_from_euler
    from rigedit.io.bvh_euler import euler_channels

    rng = np.random.default_rng(seed)
    start = quat_normalize(rng.normal(size=4))
    steps = quat_from_axis_angle(rng.normal(size=(frames, 3)), rng.uniform(0, np.radians(10), size=frames))
    q = np.empty((frames, 4))
    q[0] = start
    for f in range(1, frames):
        q[f] = quat_normalize(quat_mul(steps[f], q[f - 1]))
    reference = None
    if with_reference:  # a source's own angles: the same motion, wrapped by whole turns at random
        from rigedit.core.transforms import quat_to_euler

        reference = quat_to_euler(order, q) + 360.0 * rng.integers(-2, 3, size=(frames, 3))
    angles = euler_channels(order, q, reference)
    back = quat_from_euler(order, angles)
    assert quat_angle(quat_mul(quat_conj(q), back)).max() < 1e-9
    if reference is not None:
        assert np.abs(angles - reference).max() <= 180.0 + 1e-9
    else:
        # Near gimbal lock the first and third angles trade off, so a 10 degree turn may move
        # them more; never by the 180 or 360 of a branch or wrap jump.
        assert np.abs(np.diff(angles, axis=0)).max(initial=0.0) < 170.0
