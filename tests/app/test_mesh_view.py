"""An imported glTF character drawn as its skinned mesh: pixels of real grabbed frames where
the mesh projects, the mesh following a dragged limb, bones over the mesh in Both, and
View > Mesh / Bones / Both remembered."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from rigedit.app import capture, launch, settings
from rigedit.app.menus import set_view_mode
from rigedit.app.viewport import camera, palette

from .helpers import drag, screen, wait_solved

DATA = Path("/work/shared/data")
CESIUM = DATA / "CesiumMan.glb"
BG = np.array(palette.BACKGROUND[:3]) * 255


def imported(make_window, qtbot, path=CESIUM):
    w = make_window()
    w.importer.show_errors = False
    assert w.importer.import_file(path, ask=False), w.importer.last_error
    wait_solved(qtbot, w)
    return w


def frame(window) -> np.ndarray:
    """The viewport's pixels as drawn now, (h, w, 3) float (device pixels)."""
    window.viewport.sync()
    frames = window.viewport.frames
    window.viewport.update()
    capture.wait_until(lambda: window.viewport.frames > frames, 5)
    img = capture.grab_window(window)
    r = capture.viewport_rect(window)
    return capture.image_array(img)[r.top(): r.bottom() + 1, r.left(): r.right() + 1].astype(float)


def drawn(pixels: np.ndarray) -> np.ndarray:
    """Where anything but the background is: (h, w) bool."""
    return np.abs(pixels - BG).max(axis=2) > 12


def projected(window, points: np.ndarray) -> np.ndarray:
    """(n, 2) device-pixel positions of world points in the viewport."""
    vp = window.viewport
    view, proj = vp.matrices()
    xy, _ = camera.project(proj @ view, vp._size(), points)
    return np.asarray(xy).reshape(-1, 2) * window.devicePixelRatioF()


def hide_floor(window) -> None:
    window.viewport.grid.setVisible(False)
    window.viewport.axes.setVisible(False)


def grown(mask: np.ndarray, px: int = 2) -> np.ndarray:
    """The mask grown by px pixels: a vertex on the silhouette's edge projects onto its border."""
    out = mask.copy()
    for dy in range(-px, px + 1):
        for dx in range(-px, px + 1):
            out |= np.roll(np.roll(mask, dy, axis=0), dx, axis=1)
    return out


def on_pixels(mask: np.ndarray, xy: np.ndarray) -> np.ndarray:
    h, w = mask.shape
    inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    xi, yi = xy[inside].astype(int).T
    return mask[yi, xi]


def test_the_import_keeps_the_mesh_and_the_view_skins_it(make_window, qtbot):
    w = imported(make_window, qtbot)
    mv = w.viewport.mesh_view
    assert w.document.mesh is not None and len(w.document.mesh) == 3273
    assert w.viewport.view_mode == "both" and mv.shows_mesh and mv.skins >= 1
    assert "mesh of 3273 vertices" in w.importer.last_summary


def test_the_mesh_covers_the_characters_silhouette(make_window, qtbot):
    w = imported(make_window, qtbot)
    set_view_mode(w, "mesh", remember=False)
    hide_floor(w)
    mesh_px = drawn(frame(w))
    verts = projected(w, w.viewport.mesh_view.positions)
    covered = on_pixels(grown(mesh_px), verts)
    assert covered.mean() > 0.99, covered.mean()
    # Nothing but the handles is drawn well away from the mesh's box on screen.
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    pad = 0.15 * (hi - lo).max()
    ys, xs = np.nonzero(mesh_px)
    outside = (xs < lo[0] - pad) | (xs > hi[0] + pad) | (ys < lo[1] - pad) | (ys > hi[1] + pad)
    assert outside.mean() < 0.02
    # The same vertices in Bones view mostly land on background: the mesh made the difference.
    set_view_mode(w, "bones", remember=False)
    assert on_pixels(grown(drawn(frame(w))), verts).mean() < 0.5


def test_the_mesh_is_coloured_from_its_texture(make_window, qtbot):
    w = imported(make_window, qtbot)
    set_view_mode(w, "mesh", remember=False)
    hide_floor(w)
    px = frame(w)
    mask = drawn(px)
    colours = px[mask]
    # CesiumMan's texture: a white suit, blue and green patches; far from one grey shade.
    spread = colours.std(axis=0)
    assert spread.max() > 20
    assert np.any(colours[:, 2] - colours[:, 0] > 40)  # bluish texels somewhere


def test_the_mesh_moves_when_an_arm_is_dragged(make_window, qtbot):
    w = imported(make_window, qtbot)
    set_view_mode(w, "mesh", remember=False)
    hide_floor(w)
    mv = w.viewport.mesh_view
    before_px = drawn(frame(w))
    before = mv.positions.copy()
    skins = mv.skins
    ch = w.rig.chain("left_arm")
    target = np.asarray(ch.target)
    hand = w.rig.skeleton.index(ch.joints[-1])
    start = screen(w, target)
    drag(w.viewport, start, QPointF(start.x() + 60, start.y() - 90))
    wait_solved(qtbot, w)
    after_px = drawn(frame(w))
    after = mv.positions
    assert mv.skins > skins
    moved = np.linalg.norm(after - before, axis=1)
    follows_hand = w.document.mesh.influences[np.arange(len(before)), np.argmax(w.document.mesh.weights, axis=1)]
    hand_verts = w.document.mesh.bind_joints[follows_hand] == hand
    assert hand_verts.any()
    assert np.median(moved[hand_verts]) > 0.05  # metres: the hand went with the target
    assert np.median(moved[~hand_verts]) < 0.5 * np.median(moved[hand_verts])
    # On screen: the silhouette changed, and the hand's vertices are drawn where they went.
    assert np.count_nonzero(before_px != after_px) > 200
    assert on_pixels(grown(after_px), projected(w, after[hand_verts])).mean() > 0.95


def test_both_draws_the_bones_over_the_mesh(make_window, qtbot):
    w = imported(make_window, qtbot)
    hide_floor(w)
    rig = w.rig
    pos = rig.world_positions()
    parents = rig.skeleton.parents
    # The middles of the longest bones: inside the body, so the mesh covers them in Mesh view.
    lengths = np.array([np.linalg.norm(pos[i] - pos[p]) if p >= 0 else 0.0 for i, p in enumerate(parents)])
    longest = np.argsort(lengths)[-6:]
    mids = np.array([(pos[i] + pos[parents[i]]) / 2 for i in longest])
    xy = projected(w, mids).astype(int)
    set_view_mode(w, "mesh", remember=False)
    mesh_px = frame(w)
    set_view_mode(w, "both", remember=False)
    both_px = frame(w)
    diff = np.array([np.abs(both_px[y, x] - mesh_px[y, x]).max() for x, y in xy])
    assert np.count_nonzero(diff > 20) >= 4, diff  # the bones show through the mesh


def test_view_menu_modes_are_remembered(make_window, qtbot):
    w = make_window()
    assert set(w.view_mode_actions) == {"mesh", "bones", "both"}
    assert w.view_mode_actions["both"].isChecked()
    w.view_mode_actions["bones"].trigger()
    assert w.viewport.view_mode == "bones" and settings.view_mode() == "bones"
    set_view_mode(w, "mesh", remember=False)  # --view: this run only
    assert w.view_mode_actions["mesh"].isChecked() and settings.view_mode() == "bones"
    w2 = make_window()
    assert w2.viewport.view_mode == "bones" and w2.view_mode_actions["bones"].isChecked()


def test_bones_view_skins_nothing(make_window, qtbot):
    w = imported(make_window, qtbot)
    set_view_mode(w, "bones", remember=False)
    mv = w.viewport.mesh_view
    skins = mv.skins
    w.document.set_time(0.5)
    wait_solved(qtbot, w)
    w.viewport.sync()
    assert mv.skins == skins and not mv.item.visible()
    set_view_mode(w, "both", remember=False)
    assert mv.skins == skins + 1 and mv.item.visible()


@pytest.mark.parametrize("view", ["mesh", "bones"])
def test_screenshot_takes_a_view(tmp_path, view, qapp):
    out = tmp_path / f"{view}.png"
    assert launch.main(["--screenshot", str(out), "--view", view, "--size", "640x480", str(DATA / "RiggedSimple.glb")]) == 0
    assert out.exists()
    assert settings.view_mode() == "both"  # not remembered


class _Scene:
    """Stands in for the viewport: the mesh view only adds its items to it."""

    def __init__(self) -> None:
        self.items = []

    def addItem(self, item) -> None:  # noqa: N802 (pyqtgraph's name)
        self.items.append(item)


def test_a_new_pose_sends_vertices_and_normals_only(qapp):
    from pyqtgraph.opengl.items.GLMeshItem import DirtyFlag

    from rigedit.app.viewport.skinned_mesh import SkinnedMeshView
    from rigedit.io.gltf import read_gltf
    from rigedit.io.gltf_mesh import read_gltf_mesh

    imp = read_gltf(CESIUM)
    mesh = read_gltf_mesh(CESIUM, imp).mesh
    view = SkinnedMeshView(_Scene())
    view.set_mesh(mesh, len(imp.skeleton))
    assert view.item.parseMeshData() == DirtyFlag.POSITION | DirtyFlag.FACES | DirtyFlag.NORMAL | DirtyFlag.COLOR
    pos, rot = imp.skeleton.fk_matrices(imp.clip.frame(3))
    assert view.set_pose(pos, rot)
    assert view.item.parseMeshData() == DirtyFlag.POSITION | DirtyFlag.NORMAL
    assert not view.set_pose(pos.copy(), rot.copy())  # the same pose: nothing skinned or sent
    assert view.item.parseMeshData() == DirtyFlag(0) and view.skins == 1
    view.set_mode("bones")
    assert not view.set_pose(*imp.skeleton.fk_matrices(imp.clip.frame(4)))  # hidden: not skinned
    assert view.skins == 1 and not view.item.visible()


def test_mesh_view_without_a_mesh_shows_the_bones(make_window, qtbot):
    w = make_window()
    set_view_mode(w, "mesh", remember=False)
    assert w.document.mesh is None
    assert w.viewport.skeleton.joints.visible() and w.viewport.skeleton.bones.visible()
    assert not w.viewport.mesh_view.item.visible()


def test_a_mesh_that_cannot_be_read_leaves_the_bones(make_window, qtbot, tmp_path):
    from tests.io.test_gltf_mesh import small_character

    bad = small_character(tmp_path, joints=np.array([[0, 5, 0, 0]] * 4), weights=np.array([[0.5, 0.5, 0, 0]] * 4))
    w = imported(make_window, qtbot, bad)
    assert w.document.mesh is None and "mesh not shown" in w.importer.last_summary
    assert "JOINTS_0" in w.importer.last_summary
    assert w.viewport.skeleton.joints.visible()


def test_a_saved_rig_opens_with_its_characters_mesh(make_window, qtbot, tmp_path):
    # The preset records the glTF the skeleton came from (relative to the preset), so File >
    # Open shows the mesh again and covers the figure as it did before saving.
    w = imported(make_window, qtbot)
    assert w.save_preset(tmp_path / "cesium.json")
    other = make_window()
    assert other.open_preset(tmp_path / "cesium.json"), other.files.last_error
    wait_solved(qtbot, other)
    assert other.document.mesh is not None and len(other.document.mesh) == 3273
    set_view_mode(other, "mesh", remember=False)
    hide_floor(other)
    verts = projected(other, other.viewport.mesh_view.positions)
    assert on_pixels(grown(drawn(frame(other))), verts).mean() > 0.99


def test_a_rig_whose_character_file_is_gone_opens_as_bones(make_window, qtbot, tmp_path):
    import shutil

    copy = tmp_path / "CesiumMan.glb"
    shutil.copy(CESIUM, copy)
    w = imported(make_window, qtbot, copy)
    assert w.save_preset(tmp_path / "cesium.json")
    copy.unlink()
    other = make_window()
    assert other.open_preset(tmp_path / "cesium.json")
    assert other.document.mesh is None
    assert "mesh not shown" in other.statusBar().currentMessage()
    assert str(copy) in other.statusBar().currentMessage()
