"""Skeleton: FK against a plain per-joint loop, the same under every BLAS kernel, world <->
local round trips, write-back."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.skeleton import Pose, Skeleton, write_chain_positions
from rigedit.core.transforms import (
    quat_between,
    quat_conj,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
)
from tests.core.helpers import assert_pose, chain_skeleton, humanoid60


def plain_fk(skeleton: Skeleton, rotations, translations):
    """World positions and matrices, one joint at a time, parents first."""
    n = len(skeleton)
    pos = np.zeros((n, 3))
    mat = np.zeros((n, 3, 3))
    for i in range(n):
        local = quat_to_matrix(rotations[i])
        p = skeleton.parents[i]
        if p < 0:
            pos[i], mat[i] = translations[i], local
        else:
            pos[i] = pos[p] + mat[p] @ translations[i]
            mat[i] = mat[p] @ local
    return pos, mat


def random_skeleton(rng, n, zero_offsets=0.1, chain_bias=0.7):
    """A random tree, parents before children; deep chains when chain_bias is high."""
    parents = [-1]
    for i in range(1, n):
        parents.append(i - 1 if rng.uniform() < chain_bias else int(rng.integers(0, i)))
    offsets = rng.normal(size=(n, 3)) * 0.2
    offsets[rng.uniform(size=n) < zero_offsets] = 0.0  # BVH files have zero-length bones
    return Skeleton([f"j{i}" for i in range(n)], parents, offsets, np.tile([0, 0, 0, 1.0], (n, 1)))


def random_pose(rng, skeleton, frames=None):
    shape = (len(skeleton),) if frames is None else (frames, len(skeleton))
    rot = quat_normalize(rng.normal(size=shape + (4,)))
    trans = np.broadcast_to(skeleton.offsets, shape + (3,)).copy()
    trans[..., 0, :] = rng.normal(size=trans[..., 0, :].shape)
    return Pose(rot, trans)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_fk_matches_a_plain_per_joint_loop(n, seed, chain_bias):
    rng = np.random.default_rng(seed)
    sk = random_skeleton(rng, n, chain_bias=chain_bias)
    pose = random_pose(rng, sk)
    want_pos, want_mat = plain_fk(sk, pose.rotations, pose.translations)
    pos, mats = sk.fk_matrices(pose)
    assert_pose(pos, want_pos, 1e-12)
    np.testing.assert_allclose(mats, want_mat, atol=1e-12)
    pos2, quats = sk.fk(pose)
    assert_pose(pos2, pos, 0.0)
    np.testing.assert_allclose(quat_to_matrix(quats), want_mat, atol=1e-12)
    homo = sk.fk_homogeneous(pose)
    np.testing.assert_allclose(homo[:, :3, :3], want_mat, atol=1e-12)
    assert_pose(homo[:, :3, 3], want_pos, 1e-12)
    assert np.all(homo[:, 3] == [0, 0, 0, 1])


def test_fk_over_a_frame_axis_equals_fk_per_frame():
    rng = np.random.default_rng(4)
    sk = humanoid60()
    clip = random_pose(rng, sk, frames=7)
    pos, mats = sk.fk_matrices(clip)
    _, quats = sk.fk(clip)
    assert pos.shape == (7, 60, 3) and mats.shape == (7, 60, 3, 3) and quats.shape == (7, 60, 4)
    for f in range(7):
        want_pos, want_mat = plain_fk(sk, clip.rotations[f], clip.translations[f])
        assert_pose(pos[f], want_pos, 1e-12)
        np.testing.assert_allclose(mats[f], want_mat, atol=1e-12)
    # One set of translations shared by every frame broadcasts.
    shared = Pose(clip.rotations, clip.translations[0])
    assert_pose(sk.fk_matrices(shared)[0][3], plain_fk(sk, clip.rotations[3], clip.translations[0])[0], 1e-12)


def test_fk_takes_any_leading_shape_and_read_only_views():
    rng = np.random.default_rng(5)
    sk = humanoid60()
    clip = random_pose(rng, sk, frames=6)
    rot = clip.rotations.reshape(2, 3, 60, 4)
    # Translations shared by every frame as a read-only stride-0 view, as a clip's bake passes them.
    shared = np.broadcast_to(clip.translations[0], (2, 3, 60, 3))
    pos, mats = sk.fk_matrices(Pose(rot, shared))
    _, quats = sk.fk(Pose(rot, shared))
    assert pos.shape == (2, 3, 60, 3) and mats.shape == (2, 3, 60, 3, 3) and quats.shape == (2, 3, 60, 4)
    for a in range(2):
        for b in range(3):
            want_pos, want_mat = plain_fk(sk, rot[a, b], clip.translations[0])
            assert_pose(pos[a, b], want_pos, 1e-12)
            np.testing.assert_allclose(mats[a, b], want_mat, atol=1e-12)
            np.testing.assert_allclose(quat_to_matrix(quats[a, b]), want_mat, atol=1e-12)
    # One rotation set under many translations, a non-contiguous pose, and no frames at all.
    moved = clip.translations + rng.normal(size=(6, 1, 3))
    pos = sk.fk(Pose(clip.rotations[2], moved[:, ::-1][:, ::-1]))[0]
    for f in range(6):
        assert_pose(pos[f], plain_fk(sk, clip.rotations[2], moved[f])[0], 1e-12)
    empty = sk.fk_matrices(Pose(clip.rotations[:0], clip.translations[:0]))
    assert empty[0].shape == (0, 60, 3) and empty[1].shape == (0, 60, 3, 3)


# FK in a fresh interpreter under one OpenBLAS kernel: the poses in, positions and rotations out.
_FK_UNDER_A_KERNEL = """
import sys
import numpy as np
from rigedit.core.skeleton import Pose
from tests.core.helpers import humanoid60

sk = humanoid60()
given = np.load(sys.argv[1])
one = Pose(given["rotations"][0], given["translations"][0])
clip = Pose(given["rotations"], given["translations"])
np.savez(sys.argv[2], *sk.fk_matrices(one), *sk.fk(one), *sk.fk_matrices(clip), *sk.fk(clip))
"""


def _kernels_this_cpu_runs() -> list[str]:
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        return []
    return [k for k, flag in (("Sandybridge", "avx"), ("Haswell", "avx2"), ("SkylakeX", "avx512f")) if flag in flags]


@pytest.mark.skipif(len(_kernels_this_cpu_runs()) < 2, reason="this CPU runs fewer than two OpenBLAS kernels")
def test_fk_gives_the_same_bits_under_every_openblas_kernel(tmp_path):
    # OpenBLAS's kernels sum a matrix product in different orders (SkylakeX's AVX-512 one
    # rounds otherwise than Haswell's), so FK through a BLAS product made every position's
    # last bits, and a gait step decided on them, depend on the CPU. FK is one pass with its
    # sums written out: the same bits under each kernel, so equality here is exact.
    rng = np.random.default_rng(11)
    sk = humanoid60()
    clip = random_pose(rng, sk, frames=5)
    np.savez(tmp_path / "in.npz", rotations=clip.rotations, translations=clip.translations)
    root = Path(__file__).resolve().parents[2]
    outs = []
    for kernel in _kernels_this_cpu_runs()[-2:]:
        out = tmp_path / f"{kernel}.npz"
        env = dict(os.environ, OPENBLAS_CORETYPE=kernel, PYTHONPATH=str(root))
        args = [sys.executable, "-c", _FK_UNDER_A_KERNEL, str(tmp_path / "in.npz"), str(out)]
        subprocess.run(args, cwd=root, env=env, check=True)
        with np.load(out) as got:
            outs.append([got[k] for k in got.files])
    assert len(outs[0]) == 8
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_fk_rejects_a_pose_of_the_wrong_size():
    sk = humanoid60()
    with pytest.raises(ValueError, match="60-joint"):
        sk.fk(Pose(np.zeros((59, 4)), np.zeros((59, 3))))


def test_skeleton_validation_names_the_problem():
    with pytest.raises(ValueError, match="parent must come before"):
        Skeleton(["a", "b"], [1, -1], np.zeros((2, 3)), np.tile([0, 0, 0, 1.0], (2, 1)))
    with pytest.raises(ValueError, match="unique"):
        Skeleton(["a", "a"], [-1, 0], np.zeros((2, 3)), np.tile([0, 0, 0, 1.0], (2, 1)))
    with pytest.raises(ValueError, match="finite"):
        Skeleton(["a"], [-1], [[np.nan, 0, 0]], [[0, 0, 0, 1.0]])
    sk = chain_skeleton([(0, 0, 0), (1, 0, 0), (1, 0, 0)])
    with pytest.raises(ValueError, match="not a child"):
        sk.chain_indices(["j0", "j2"])
    with pytest.raises(KeyError, match="nope"):
        sk.index("nope")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_world_local_round_trips(seed):
    rng = np.random.default_rng(seed)
    sk = random_skeleton(rng, 20)
    pose = random_pose(rng, sk)
    joint = int(rng.integers(0, 20))
    world_q = quat_normalize(rng.normal(size=4))
    local = sk.world_to_local_rotation(pose, joint, world_q)
    posed = pose.copy()
    posed.rotations[joint] = local
    got = sk.fk(posed)[1][joint]
    assert min(np.abs(got - world_q).max(), np.abs(got + world_q).max()) < 1e-12
    point = rng.normal(size=3)
    there = sk.local_to_world_point(pose, joint, point)
    assert_pose(sk.world_to_local_point(pose, joint, there), point, 1e-12)
    pos, rot = sk.fk(pose)
    assert_pose(there, pos[joint] + quat_rotate(rot[joint], point), 1e-12)


def reference_write_back(skeleton, pose, chain, positions):
    """The write-back rule in vectorised transforms calls, one bone at a time."""
    out = pose.copy()
    pos, world = skeleton.fk(out)
    world = world.copy()
    for k in range(len(chain) - 1):
        j, child = chain[k], chain[k + 1]
        cur_dir = quat_rotate(world[j], out.translations[child])
        turn = quat_between(cur_dir, positions[k + 1] - positions[k])
        new_world = quat_normalize(quat_mul(turn, world[j]))
        p = skeleton.parents[j]
        parent_world = world[p] if p >= 0 else np.array([0.0, 0.0, 0.0, 1.0])
        out.rotations[j] = quat_normalize(quat_mul(quat_conj(parent_world), new_world))
        world[j] = new_world
        world[child] = quat_normalize(quat_mul(new_world, out.rotations[child]))
    return out


CHAINS = [
    ["LeftArm", "LeftForeArm", "LeftHand"],
    ["Hips", "Spine", "Spine1", "Spine2", "Neck", "Head", "HeadEnd"],
    ["Spine2", "RightShoulder", "RightArm", "RightForeArm", "RightHand", "RightMiddle1", "RightMiddle2", "RightMiddle3"],
    ["Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "LeftToeEnd"],
]


@pytest.mark.parametrize("names", CHAINS, ids=lambda c: f"{c[0]}..{c[-1]}")
@pytest.mark.parametrize("seed", range(5))
def test_write_back_reproduces_solved_positions(names, seed):
    rng = np.random.default_rng(seed)
    sk = humanoid60()
    pose = random_pose(rng, sk)
    chain = sk.chain_indices(names)
    start = sk.fk(pose)[0][chain]
    lengths = np.linalg.norm(np.diff(start, axis=0), axis=1)
    dirs = rng.normal(size=(len(chain) - 1, 3))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    solved = start[0] + np.concatenate(([[0, 0, 0]], np.cumsum(dirs * lengths[:, None], axis=0)))
    out = write_chain_positions(sk, pose, chain, solved)
    assert_pose(sk.fk(out)[0][chain], solved, 1e-9)
    assert_pose(out, reference_write_back(sk, pose, chain, solved), 1e-12)
    # Only the chain's joints above the tip were turned; nothing else moved.
    others = np.setdiff1d(np.arange(len(sk)), chain[:-1])
    assert np.array_equal(out.rotations[others], pose.rotations[others])
    assert np.array_equal(out.translations, pose.translations)


def test_write_back_with_zero_length_bones_and_unchanged_directions():
    # A BVH-like chain: a zero offset between two real bones.
    sk = chain_skeleton([(0, 1, 0), (0, 0, 0), (0.5, 0, 0), (0.5, 0, 0)])
    rng = np.random.default_rng(9)
    pose = random_pose(rng, sk)
    pos = sk.fk(pose)[0]
    # Same positions back: nothing turns (the twist is kept exactly).
    same = write_chain_positions(sk, pose, [0, 1, 2, 3], pos)
    assert_pose(same, pose, 1e-12)
    # A new direction for the last real bone; the zero-length bone has none to turn to.
    target = pos.copy()
    target[3] = pos[2] + 0.5 * np.array([0.0, 0.0, 1.0])
    out = write_chain_positions(sk, pose, [0, 1, 2, 3], target)
    assert np.all(np.isfinite(out.rotations))
    assert_pose(sk.fk(out)[0], target, 1e-12)


def test_write_back_turns_by_the_shortest_arc_keeping_twist():
    sk = chain_skeleton([(0, 0, 0), (1, 0, 0), (1, 0, 0)])
    pose = sk.rest_pose()
    pose.rotations[0] = [0.0, 0.0, 0.0, 1.0]
    twist = quat_normalize(np.array([np.sin(0.3), 0, 0, np.cos(0.3)]))  # about the bone
    pose.rotations[1] = twist
    # The second bone points +X; ask for +Y. The shortest arc is 90 deg about Z, applied
    # on top of the twist it had.
    solved = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]], dtype=float)
    out = write_chain_positions(sk, pose, [0, 1, 2], solved)
    quarter_z = np.array([0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)])
    assert_pose(out.rotations[1:2], quat_mul(quarter_z, twist)[None], 1e-12)


def test_write_back_checks_shapes():
    sk = chain_skeleton([(0, 0, 0), (1, 0, 0), (1, 0, 0)])
    pose = sk.rest_pose()
    with pytest.raises(ValueError, match=r"\(3, 3\)"):
        write_chain_positions(sk, pose, [0, 1, 2], np.zeros((2, 3)))
    frames = Pose(np.tile(pose.rotations, (2, 1, 1)), np.tile(pose.translations, (2, 1, 1)))
    with pytest.raises(ValueError, match="one pose"):
        write_chain_positions(sk, frames, [0, 1, 2], np.zeros((3, 3)))
