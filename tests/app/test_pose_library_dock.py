"""The Pose Library dock (issue 25 item 3): save the shown pose under a name with a thumbnail,
apply it at 50 % with the dock's slider (halfway rotations), rename and delete; the library
is a folder of files scripts read too. Real mouse and key events on the dock's widgets."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDockWidget, QLineEdit, QListWidget, QPushButton, QSlider

import rigedit
from rigedit.app import settings
from rigedit.app.capture import distinct_colours

from .helpers import wait_solved
from .test_pose_keys import axis_angle, same_rotation, slerp

LEFT = Qt.MouseButton.LeftButton
JOINTS = {"Head": ((0, 1, 0), 50), "LeftShoulder": ((1, 0, 1), -30)}


@pytest.fixture(autouse=True)
def library_folder(tmp_path, config_dir):
    """The library's folder, set before the window reads it (autouse fixtures come first)."""
    folder = tmp_path / "poses"
    settings.set_pose_library_folder(folder)
    return folder


@pytest.fixture
def dock(qtbot, library_folder, window):
    d = window.findChild(QDockWidget, "poseLibrary")
    d.show()
    d.raise_()
    qtbot.waitUntil(d.isVisible)
    return d


def child(dock, kind, name):
    w = dock.findChild(kind, name)
    assert w is not None, name
    return w


def turn(qtbot, window, rotations) -> None:
    def edit(rig):
        for name, q in rotations.items():
            rig.set_rotation(name, q)

    window.document.edit_pose("turn", edit)
    wait_solved(qtbot, window)


def shown(window, name) -> np.ndarray:
    rig = window.rig
    return np.array(rig.pose.rotations[rig.skeleton.index(name)])


def save_as(qtbot, dock, name: str) -> None:
    field = child(dock, QLineEdit, "poseName")
    QTest.mouseClick(field, LEFT)
    QTest.keyClicks(field, name)
    QTest.mouseClick(child(dock, QPushButton, "savePose"), LEFT)


def item_of(dock, name):
    lst = child(dock, QListWidget, "poseList")
    return next(lst.item(i) for i in range(lst.count()) if lst.item(i).text() == name)


def test_save_then_apply_at_50_percent_with_the_slider_gives_halfway_rotations(qtbot, window, dock, library_folder):
    saved = {n: axis_angle(a, d) for n, (a, d) in JOINTS.items()}
    turn(qtbot, window, saved)
    save_as(qtbot, dock, "wave")
    assert "wave" in rigedit.PoseLibrary(library_folder).names  # a script sees it
    lst = child(dock, QListWidget, "poseList")
    assert not item_of(dock, "wave").icon().isNull()  # the thumbnail
    png = rigedit.PoseLibrary(library_folder).thumbnail("wave")
    img = QImage.fromData(png)
    assert max(img.width(), img.height()) == 96
    assert distinct_colours(img) >= 64  # the shaded character, not a blank or cleared view (capture.py)

    start = {"Head": axis_angle((1, 0, 0), -20), "LeftShoulder": axis_angle((0, 0, 1), 10)}
    turn(qtbot, window, start)
    rect = lst.visualItemRect(item_of(dock, "wave"))
    QTest.mouseClick(lst.viewport(), LEFT, Qt.KeyboardModifier.NoModifier, rect.center())
    slider = child(dock, QSlider, "poseBlend")
    QTest.mouseClick(slider, LEFT, Qt.KeyboardModifier.NoModifier, QPoint(2, slider.height() // 2))
    QTest.keyClick(slider, Qt.Key.Key_End)
    for _ in range(5):
        QTest.keyClick(slider, Qt.Key.Key_PageDown)
    assert slider.value() == 50
    steps = window.undo_stack.count()
    QTest.mouseClick(child(dock, QPushButton, "applyPose"), LEFT)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == steps + 1
    for name in JOINTS:
        assert same_rotation(shown(window, name), slerp(start[name], saved[name], 0.5)), name
    window.undo_stack.undo()
    wait_solved(qtbot, window)
    assert all(same_rotation(shown(window, n), start[n]) for n in JOINTS)


def test_rename_in_the_list_and_delete(qtbot, window, dock, library_folder):
    save_as(qtbot, dock, "crouch")
    lst = child(dock, QListWidget, "poseList")
    lst.setCurrentItem(item_of(dock, "crouch"))
    QTest.mouseClick(child(dock, QPushButton, "renamePose"), LEFT)
    editor = lst.findChild(QLineEdit)
    qtbot.waitUntil(lambda: lst.findChild(QLineEdit) is not None and lst.findChild(QLineEdit).isVisible())
    editor = lst.findChild(QLineEdit)
    editor.selectAll()
    QTest.keyClicks(editor, "kneel")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: rigedit.PoseLibrary(library_folder).names == ["kneel"])
    lst.setCurrentItem(item_of(dock, "kneel"))
    QTest.mouseClick(child(dock, QPushButton, "deletePose"), LEFT)
    assert rigedit.PoseLibrary(library_folder).names == [] and lst.count() == 0


def test_a_name_in_use_is_refused_with_a_message(qtbot, window, dock, library_folder):
    save_as(qtbot, dock, "idle")
    save_as(qtbot, dock, "idle")
    assert "already" in window.statusBar().currentMessage()
    assert list(rigedit.PoseLibrary(library_folder).names) == ["idle"]


@pytest.mark.parametrize("size", [(1280, 800), (1400, 900)])  # the default size, and a larger one
def test_a_saved_pose_shows_its_whole_picture_and_name_in_the_default_layout(qtbot, make_window, size):
    """Beside Lint, in the layout a new window gets, the list was shorter than one thumbnail:
    the pictures were cut and the names under them not shown. The pictures shrink to fit."""
    w = make_window(size=size)
    w.fit_docks()
    d = w.findChild(QDockWidget, "poseLibrary")
    d.raise_()
    qtbot.waitUntil(d.isVisible)
    name = child(d, QLineEdit, "poseName")
    QTest.mouseClick(name, LEFT)
    QTest.keyClicks(name, "first")
    QTest.keyClick(name, Qt.Key.Key_Return)
    poses = child(d, QListWidget, "poseList")
    qtbot.waitUntil(lambda: poses.count() == 1)
    qtbot.waitUntil(lambda: poses.viewport().rect().contains(poses.visualItemRect(poses.item(0))))
    assert poses.iconSize().height() >= 32  # still a picture
