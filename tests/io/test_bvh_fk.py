"""The BVH reader against a plain, independent reading of the same files.

The reference below parses the text with a few lines and does forward kinematics matrix by
matrix, building Rx, Ry, Rz by hand (no scipy, no rigedit), applying each joint's rotation
channels in the order listed. rigedit's reader must give the same world positions for every
joint (End Sites included) in every frame.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.skeleton import Pose
from rigedit.io.bvh import read_bvh
from rigedit.io.bvh_units import CMU_UNIT

DATA = Path("/work/shared/data")
FILES = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh"]


def rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


AXIS = {"X": rx, "Y": ry, "Z": rz}


def reference_world_positions(path: Path) -> tuple[list[str], np.ndarray]:
    """(joint names with End Sites as None, world positions (frames, joints, 3)), file units."""
    lines = path.read_text().splitlines()
    joints = []  # dicts: name, parent, offset, channels
    stack = []
    pending = None
    i = 0
    while lines[i].strip() != "MOTION":
        words = lines[i].split()
        i += 1
        if not words:
            continue
        if words[0] in ("ROOT", "JOINT"):
            pending = {"name": " ".join(words[1:]), "channels": []}
        elif words[0] == "End":
            pending = {"name": None, "channels": []}
        elif words[0] == "{":
            pending["parent"] = stack[-1] if stack else -1
            joints.append(pending)
            stack.append(len(joints) - 1)
        elif words[0] == "}":
            stack.pop()
        elif words[0] == "OFFSET":
            joints[stack[-1]]["offset"] = np.array([float(w) for w in words[1:4]])
        elif words[0] == "CHANNELS":
            joints[stack[-1]]["channels"] = words[2:]
    frames = int(lines[i + 1].split()[1])
    rows = [np.array([float(w) for w in ln.split()]) for ln in lines[i + 3 :] if ln.strip()]
    assert len(rows) == frames
    out = np.zeros((frames, len(joints), 3))
    for f, row in enumerate(rows):
        world = []
        col = 0
        for j, joint in enumerate(joints):
            t = joint["offset"].copy()
            r = np.eye(3)
            for ch in joint["channels"]:
                v = row[col]
                col += 1
                if ch.endswith("position"):
                    t["XYZ".index(ch[0])] = v
                else:
                    r = r @ AXIS[ch[0]](math.radians(v))
            local = np.eye(4)
            local[:3, :3] = r
            local[:3, 3] = t
            m = local if joint["parent"] < 0 else world[joint["parent"]] @ local
            world.append(m)
            out[f, j] = m[:3, 3]
    return [j["name"] for j in joints], out


@pytest.fixture(scope="module", params=FILES)
def reference(request):
    path = DATA / request.param
    names, pos = reference_world_positions(path)
    return path, names, pos


def test_every_frame_matches_matrix_fk(reference):
    path, names, expected = reference
    imp = read_bvh(path, scale=1.0, up_axis="y")  # the reference is in the file's own axes
    assert imp.clip.n_frames == expected.shape[0]
    assert len(imp.skeleton) == len(names)
    for got, want in zip(imp.skeleton.names, names):
        if want is not None:
            assert got == want
    pos, _ = imp.skeleton.fk_matrices(Pose(imp.clip.rotations, imp.clip.translations))
    size = np.ptp(expected.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(pos, expected, rtol=0, atol=1e-9 * size)


def test_end_sites_are_named_after_their_parent_and_marked(reference):
    path, names, _ = reference
    imp = read_bvh(path, scale=1.0)
    parents = imp.skeleton.parents
    ends = [i for i, n in enumerate(names) if n is None]
    assert sorted(imp.layout.end_sites) == sorted(imp.skeleton.names[i] for i in ends)
    for i in ends:
        assert imp.skeleton.names[i] == imp.skeleton.names[parents[i]] + "_End"
        assert imp.layout.channels[imp.skeleton.names[i]] == ()


def test_scale_multiplies_every_length(reference):
    path, _, expected = reference
    imp = read_bvh(path, scale=0.01, up_axis="y")
    pos, _ = imp.skeleton.fk_matrices(Pose(imp.clip.rotations, imp.clip.translations))
    size = np.ptp(expected.reshape(-1, 3), axis=0).max()
    np.testing.assert_allclose(pos, 0.01 * expected, rtol=0, atol=1e-11 * size)


@pytest.mark.parametrize(
    "name, unit, joints, end_sites, channels, frames, fps",
    [
        # Counts and units as SOURCES.md describes the files.
        ("cmu_12_01_walk.bvh", CMU_UNIT, 31, 7, 96, 524, 120.0),
        ("dataset-1_walk-right_normal_001.bvh", 0.01, 22, 5, 132, 135, 30.0),
        ("pybvh_bvh_test1.bvh", 0.0254, 24, 5, 75, 75, 30.0),
    ],
)
def test_files_import_as_documented(name, unit, joints, end_sites, channels, frames, fps):
    imp = read_bvh(DATA / name)
    assert imp.scale == pytest.approx(unit)
    assert len(imp.skeleton) == joints + end_sites
    assert len(imp.layout.end_sites) == end_sites
    assert imp.channel_count == channels
    assert imp.clip.n_frames == frames
    assert imp.clip.frame_rate == pytest.approx(fps, rel=1e-4)
    assert imp.warnings == []
    # Whatever unit was picked, the figure is person-sized in metres mid-walk.
    pos, _ = imp.skeleton.fk_matrices(imp.clip.frame(imp.clip.n_frames // 2))
    assert 1.0 < np.ptp(pos, axis=0).max() < 2.2


def test_cmu_zero_length_offsets_and_leading_dot_frame_time():
    imp = read_bvh(DATA / "cmu_12_01_walk.bvh", scale=1.0)
    sk = imp.skeleton
    zero = [n for n in sk.names if np.all(sk.offsets[sk.index(n)] == 0.0) and sk.parents[sk.index(n)] >= 0]
    assert sorted(zero) == sorted(
        ["LHipJoint", "RHipJoint", "LowerBack", "Neck", "LeftShoulder", "LeftFingerBase", "LThumb",
         "RightShoulder", "RightFingerBase", "RThumb"]
    )
    assert imp.clip.frame_time == pytest.approx(0.0083333)
    assert np.all(np.isfinite(imp.clip.rotations))


def test_bandai_position_channels_replace_offsets():
    imp = read_bvh(DATA / "dataset-1_walk-right_normal_001.bvh", scale=1.0)
    hips = imp.skeleton.index("Hips")
    text = (DATA / "dataset-1_walk-right_normal_001.bvh").read_text().splitlines()
    first_row = [float(w) for w in text[text.index("MOTION") + 3].split()]
    # Hips is the second joint: its channels are columns 6..11, positions first.
    np.testing.assert_allclose(imp.clip.translations[0, hips], first_row[6:9])
    assert not np.allclose(imp.clip.translations[0, hips], imp.skeleton.offsets[hips] + first_row[6:9])


def test_per_joint_rotation_orders_are_kept_in_the_layout():
    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    orders = {}
    for name, ch in imp.layout.channels.items():
        rot = "".join(c[0] for c in ch if c.endswith("rotation"))
        if rot:
            orders[rot] = orders.get(rot, 0) + 1
    # SOURCES.md: the root and 15 joints are XZY, 2 YZX, 2 ZYX, 4 XYZ.
    assert orders == {"XZY": 16, "YZX": 2, "ZYX": 2, "XYZ": 4}
