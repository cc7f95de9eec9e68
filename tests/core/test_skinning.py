"""Linear blend skinning (core.skinning) on small meshes built here: rest, rigid motions,
single and blended influences, normals, static binds, bad input."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.mesh import Mesh, weld_ids
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.skinning import Skinner, skin_mesh
from rigedit.core.transforms import quat_from_axis_angle, quat_to_matrix

# Positions are float64 sums of a few products of metre-sized numbers.
TOL = 1e-12


def tube(rings: int = 6, sides: int = 8, length: float = 2.0, radius: float = 0.3):
    """A tube along +Y from 0 to `length`: vertices (rings*sides, 3), triangles, ring height."""
    y = np.linspace(0.0, length, rings)
    a = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    pts = np.array([[radius * np.cos(t), h, radius * np.sin(t)] for h in y for t in a])
    faces = []
    for r in range(rings - 1):
        for s in range(sides):
            i, j = r * sides + s, r * sides + (s + 1) % sides
            faces += [(i, i + sides, j), (j, i + sides, j + sides)]
    return pts, np.array(faces), np.repeat(y, sides)


def two_joint_skeleton() -> Skeleton:
    return Skeleton(["root", "mid"], [-1, 0], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0, 0, 0, 1.0]] * 2)


def bound_tube(blend: bool = True) -> tuple[Mesh, Skeleton]:
    """The tube on two joints: below y = 1 on the root, above on the mid joint, blended
    linearly over 0.5 < y < 1.5 (or split hard at y = 1 when blend is False)."""
    pts, faces, h = tube()
    sk = two_joint_skeleton()
    w_mid = np.clip(h - 0.5, 0.0, 1.0) if blend else (h >= 1.0).astype(float)
    pos, rot = sk.fk_matrices(sk.rest_pose())
    binds = np.array([_inverse_frame(rot[j], pos[j]) for j in range(2)])
    mesh = Mesh(pts, faces, np.tile([0, 1], (len(pts), 1)), np.stack([1 - w_mid, w_mid], axis=1),
                [0, 1], binds, np.ones((len(pts), 4)), np.zeros((len(pts), 2)), np.full(len(pts), -1))
    return mesh, sk


def _inverse_frame(rot, pos):
    m = np.zeros((3, 4))
    m[:, :3] = rot.T
    m[:, 3] = -rot.T @ pos
    return m


def bent(sk: Skeleton, angle: float) -> Pose:
    pose = sk.rest_pose()
    rot = pose.rotations.copy()
    rot[1] = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), np.array(angle))
    return Pose(rot, pose.translations)


def test_rest_pose_gives_the_rest_mesh():
    mesh, sk = bound_tube()
    pos, rot = sk.fk_matrices(sk.rest_pose())
    p, n = skin_mesh(mesh, pos, rot)
    np.testing.assert_allclose(p, mesh.rest, atol=TOL)
    # The tube's normals point away from its axis (the end rings' are tilted by the open end).
    radial = mesh.rest * [1, 0, 1]
    middle = (mesh.rest[:, 1] > 0.1) & (mesh.rest[:, 1] < 1.9)
    cos = np.sum(n * radial, axis=1) / np.linalg.norm(radial, axis=1)
    assert np.all(cos[middle] > 0.999)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(axis=st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda a: np.linalg.norm(a) > 0.1),
       angle=st.floats(-3.1, 3.1), shift=st.tuples(*[st.floats(-5, 5)] * 3), bend=st.floats(-2.0, 2.0))
def test_moving_the_whole_skeleton_moves_the_mesh_rigidly(axis, angle, shift, bend):
    mesh, sk = bound_tube()
    pose = bent(sk, bend)
    pos, rot = sk.fk_matrices(pose)
    p0, n0 = skin_mesh(mesh, pos, rot)
    q = quat_to_matrix(quat_from_axis_angle(np.array(axis) / np.linalg.norm(axis), np.array(angle)))
    p1, n1 = skin_mesh(mesh, pos @ q.T + shift, q @ rot)
    np.testing.assert_allclose(p1, p0 @ q.T + shift, atol=1e-11)
    np.testing.assert_allclose(n1, n0 @ q.T, atol=1e-9)


def test_one_influence_follows_its_joint_exactly():
    mesh, sk = bound_tube(blend=False)
    pos, rot = sk.fk_matrices(bent(sk, 1.0))
    p, _ = skin_mesh(mesh, pos, rot)
    upper = mesh.rest[:, 1] >= 1.0
    expect = (mesh.rest[upper] - [0.0, 1.0, 0.0]) @ rot[1].T + pos[1]
    np.testing.assert_allclose(p[upper], expect, atol=TOL)
    np.testing.assert_allclose(p[~upper], mesh.rest[~upper], atol=TOL)


@settings(max_examples=30, deadline=None)
@given(bend=st.floats(-2.5, 2.5))
def test_blended_vertices_are_the_weighted_mean_of_their_joints(bend):
    mesh, sk = bound_tube()
    pos, rot = sk.fk_matrices(bent(sk, bend))
    p, _ = skin_mesh(mesh, pos, rot)
    by_root = mesh.rest @ rot[0].T + pos[0]
    by_mid = (mesh.rest - [0.0, 1.0, 0.0]) @ rot[1].T + pos[1]
    w = mesh.weights[:, 1:2]
    np.testing.assert_allclose(p, (1 - w) * by_root + w * by_mid, atol=1e-12)


def test_normals_follow_the_bent_surface():
    mesh, sk = bound_tube(blend=False)
    pos, rot = sk.fk_matrices(bent(sk, np.pi / 2))
    p, n = skin_mesh(mesh, pos, rot)
    top = mesh.rest[:, 1] > 1.9  # the upper part's far end: its normals turned with the joint
    radial = (mesh.rest[top] * [1, 0, 1]) @ rot[1].T
    cos = np.sum(n[top] * radial, axis=1) / np.linalg.norm(radial, axis=1)
    # The last ring borders the open end: its normals lean along the tube, by under 45 degrees.
    assert np.all(cos > 0.7)
    assert not np.allclose(n[top], (mesh.rest[top] * [1, 0, 1]) / 0.3, atol=0.1)


def test_a_split_vertex_shares_one_normal():
    # Two triangles folded along x = 0, the shared edge's vertices duplicated (a UV seam).
    rest = np.array([[0, 0, 0], [0, 1, 0], [-1, 0, 1], [0, 0, 0], [0, 1, 0], [1, 0, 1]], float)
    faces = np.array([[0, 1, 2], [3, 5, 4]])
    mesh = Mesh(rest, faces, np.zeros((6, 1), int), np.ones((6, 1)), [-1], np.eye(3, 4)[None],
                np.ones((6, 4)), np.zeros((6, 2)), np.full(6, -1))
    assert weld_ids(rest)[0] == weld_ids(rest)[3]
    _, n = skin_mesh(mesh, np.zeros((1, 3)), np.eye(3)[None])
    np.testing.assert_allclose(n[0], n[3], atol=TOL)
    np.testing.assert_allclose(n[1], n[4], atol=TOL)
    assert not np.allclose(n[2], n[5])  # the unshared corners keep their own faces' normals


def test_a_bind_with_no_joint_stays_put():
    mesh, sk = bound_tube()
    shifted = np.eye(3, 4)
    shifted[:, 3] = (3.0, 0.0, 0.0)
    still = Mesh(mesh.rest, mesh.faces, np.zeros((len(mesh), 1), int), np.ones((len(mesh), 1)), [-1], shifted[None],
                 mesh.colours, mesh.uv, mesh.texture)
    pos, rot = sk.fk_matrices(bent(sk, 1.2))
    p, _ = skin_mesh(still, pos + 7.0, rot)
    np.testing.assert_allclose(p, mesh.rest + [3.0, 0.0, 0.0], atol=TOL)


def test_the_skinner_reuses_its_arrays():
    mesh, sk = bound_tube()
    s = Skinner(mesh, len(sk))
    a, _ = s.pose(*sk.fk_matrices(sk.rest_pose()))
    b, _ = s.pose(*sk.fk_matrices(bent(sk, 0.5)))
    assert a is b


def test_bad_input_is_a_value_error_naming_it():
    mesh, sk = bound_tube()
    pos, rot = sk.fk_matrices(sk.rest_pose())
    with pytest.raises(ValueError, match="joint positions"):
        skin_mesh(mesh, pos, rot[:1])
    bad = pos.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        skin_mesh(mesh, bad, rot)
    with pytest.raises(ValueError, match="skeleton has 1"):
        Skinner(mesh, 1)
    n = len(mesh)
    base = dict(rest=mesh.rest, faces=mesh.faces, influences=mesh.influences, weights=mesh.weights,
                bind_joints=mesh.bind_joints, binds=mesh.binds, colours=mesh.colours, uv=mesh.uv, texture=mesh.texture)
    for change, words in (
        (dict(weights=mesh.weights * 2), "sum to 1"),
        (dict(faces=mesh.faces + n), "faces"),
        (dict(influences=mesh.influences + 2), "influences"),
        (dict(rest=np.full((n, 3), np.inf)), "finite"),
        (dict(texture=np.zeros(n, int)), "texture"),
        (dict(binds=mesh.binds[:1]), "binds"),
    ):
        with pytest.raises(ValueError, match=words):
            Mesh(**{**base, **change})
