"""The GL arrays: a new pose sends the bones' vertices and normals and a moved handle its vertices,
never the colours or faces again."""
from __future__ import annotations

import numpy as np
from pyqtgraph.opengl.items.GLMeshItem import DirtyFlag

import rigedit
from rigedit.app.viewport.mesh_item import face_normals
from rigedit.app.viewport.skeleton_view import SkeletonView


class _Scene:
    """Stands in for the viewport: SkeletonView only adds its items to it."""

    def __init__(self) -> None:
        self.items = []

    def addItem(self, item) -> None:  # noqa: N802 (pyqtgraph's name)
        self.items.append(item)


def _view_of(rig, selected):
    view = SkeletonView(_Scene())
    chains = [rig.skeleton.chain_indices(rig.chain(n).joints) for n in rig.chain_names]
    view.set_structure(rig.skeleton.parents, chains, selected)
    return view, chains


def test_a_new_pose_uploads_vertices_and_normals_only(qapp):
    rig = rigedit.Rig.default()
    view, _ = _view_of(rig, 0)
    view.set_positions(rig.world_positions())
    first = view.bones.parseMeshData()
    assert first == DirtyFlag.POSITION | DirtyFlag.NORMAL | DirtyFlag.COLOR  # the first upload has it all
    colours = view.bones.colors.copy()
    moved = rig.world_positions() + np.array([0.1, 0.0, -0.2])
    view.set_positions(moved)
    assert view.bones.parseMeshData() == DirtyFlag.POSITION | DirtyFlag.NORMAL
    np.testing.assert_array_equal(view.bones.colors, colours)
    assert view.bones.parseMeshData() == DirtyFlag(0)  # taken once
    view.set_positions(moved)  # the same pose again: nothing to send
    assert view.bones.parseMeshData() == DirtyFlag(0)


def test_the_triangles_are_the_bones_and_a_new_selection_resends_the_colours(qapp):
    rig = rigedit.Rig.default()
    view, chains = _view_of(rig, 0)
    pos = rig.world_positions()
    view.set_positions(pos)
    view.bones.parseMeshData()
    # Every bone's head and tail are corners of its triangles, and its eight normals all face
    # out of it or all into it (one winding; the headlight shades both sides alike).
    tails = np.nonzero(rig.skeleton.parents >= 0)[0]
    corners = view.bones.vertexes.reshape(len(tails), 8, 3, 3)
    for b, t in enumerate(tails):
        pts = corners[b].reshape(-1, 3)
        for joint in (rig.skeleton.parents[t], t):
            assert np.min(np.linalg.norm(pts - pos[joint], axis=1)) < 1e-6
        centre = pts.mean(axis=0)
        normals = view.bones.normals.reshape(len(tails), 8, 3, 3)[b, :, 0]
        out = corners[b].mean(axis=1) - centre
        side = np.einsum("ij,ij->i", normals, out)
        assert np.all(side > 0) or np.all(side < 0), side
    before = view.bones.colors.copy()
    view.set_structure(rig.skeleton.parents, chains, 1)  # another chain selected
    assert view.bones.parseMeshData() & DirtyFlag.COLOR
    assert not np.array_equal(view.bones.colors, before)


def test_face_normals_are_perpendicular_to_their_triangles():
    rng = np.random.default_rng(3)
    tri = rng.normal(size=(50, 3, 3))
    n = face_normals(tri)
    assert n.shape == (50, 3, 3)
    for k in range(3):
        np.testing.assert_allclose(np.einsum("ij,ij->i", n[:, k], tri[:, 1] - tri[:, 0]), 0.0, atol=1e-12)
        np.testing.assert_allclose(np.einsum("ij,ij->i", n[:, k], tri[:, 2] - tri[:, 0]), 0.0, atol=1e-12)


def test_a_moved_handle_uploads_the_handles_vertices_only(qapp):
    from rigedit.app.viewport.gizmos import GizmoView, Handle

    rig = rigedit.Rig.default()
    names = rig.chain_names
    gizmos = GizmoView(_Scene())
    gizmos.set_chains(names, radius=0.03)
    targets = {n: np.asarray(rig.chain(n).target, dtype=np.float64) for n in names}
    poles = {n: rig.chain(n).pole for n in names if rig.chain(n).pole is not None}
    body = rig.world_position("Hips")
    gizmos.update(targets, poles, {}, set(), names[0], body=body)
    first = gizmos.balls.parseMeshData()
    assert first == DirtyFlag.POSITION | DirtyFlag.NORMAL | DirtyFlag.COLOR | DirtyFlag.FACES
    faces, colours = gizmos.balls.faces.copy(), gizmos.balls.colors.copy()
    spheres = len(targets) + len(poles)
    assert len(faces) == spheres * len(gizmos._unit_faces) + 12  # and the body's box

    before = gizmos.balls.vertexes.copy()
    targets[names[0]] = targets[names[0]] + np.array([0.0, 0.1, 0.0])  # a drag frame
    gizmos.update(targets, poles, {}, set(), names[0], body=body)
    assert gizmos.balls.parseMeshData() == DirtyFlag.POSITION
    moved = np.any(gizmos.balls.vertexes != before, axis=1)
    n_v = len(gizmos._unit_verts)
    assert moved[:n_v].all() and not moved[n_v:].any()  # only the dragged target's sphere
    np.testing.assert_array_equal(gizmos.balls.colors, colours)
    gizmos.update(targets, poles, {}, set(), names[0], body=body)  # nothing new
    assert gizmos.balls.parseMeshData() == DirtyFlag(0)

    gizmos.update(targets, poles, {}, {names[0]}, names[0], body=body)  # out of reach: red
    assert gizmos.balls.parseMeshData() == DirtyFlag.COLOR
    assert not np.array_equal(gizmos.balls.colors, colours)
