"""Edit > Add IK Chain (Shift+I on a selected bone) and Remove Chain, with real clicks and
keys: a chain made in the editor is dragged like any other, and each is one undo step."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox

from rigedit import Rig

from .helpers import camera_state, drag, screen, wait_solved
from .joints import CTRL, SHIFT, bone_middle, click

HAND, HAND_END = "LeftHand", "LeftHand_End"
NEW = "LeftHand_ik"


@pytest.fixture
def armless(make_window):
    """The humanoid without its left arm chain: the arm is posed by nothing but its clip."""
    rig = Rig.default()
    rig.remove_chain("left_arm")
    w = make_window(rig)
    w.viewport.requestActivate()
    return w


def test_shift_i_on_the_hand_bone_adds_an_arm_chain_that_a_drag_poses(qtbot, armless):
    w, vp = armless, armless.viewport
    before = w.rig.world_positions().copy()
    cam = camera_state(vp)
    click(vp, bone_middle(w, HAND, HAND_END))
    assert w.document.selected_joints == (HAND,)
    QTest.keyClick(vp, Qt.Key.Key_I, SHIFT)
    wait_solved(qtbot, w)
    ch = w.rig.chain(NEW)
    assert ch.joints == ("LeftArm", "LeftForeArm", HAND) and ch.solver == "two_bone" and ch.pole is not None
    assert w.document.selected == NEW and w.findChild(QComboBox, "chainSelector").currentText() == NEW
    assert w.undo_stack.count() == 1 and NEW in w.statusBar().currentMessage()
    np.testing.assert_allclose(w.rig.world_positions(), before, atol=1e-3)  # adding a chain moves nothing
    assert camera_state(vp) == cam  # the same character: the view stays

    start = screen(w, ch.target)
    drag(vp, start, QPointF(start.x() + 50, start.y() - 70))
    wait_solved(qtbot, w)
    goal = np.asarray(w.rig.chain(NEW).target)
    assert np.linalg.norm(goal - before[w.rig.skeleton.index(HAND)]) > 0.05
    qtbot.waitUntil(lambda: np.linalg.norm(w.rig.world_position(HAND) - goal) < 1e-6)
    assert w.undo_stack.count() == 2

    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)  # the drag
    QTest.keyClick(vp, Qt.Key.Key_Z, CTRL)  # the chain
    wait_solved(qtbot, w)
    assert NEW not in w.rig.chain_names
    np.testing.assert_allclose(w.rig.world_positions(), before, atol=1e-9)
    w.undo_stack.redo()
    wait_solved(qtbot, w)
    assert w.rig.chain(NEW).joints == ch.joints


def test_joints_along_one_limb_make_a_chain_from_the_highest_to_the_lowest(qtbot, armless):
    w, vp = armless, armless.viewport
    click(vp, bone_middle(w, HAND, HAND_END))
    click(vp, bone_middle(w, "LeftShoulder", "LeftArm"), modifiers=SHIFT)
    assert set(w.document.selected_joints) == {HAND, "LeftShoulder"}
    w.chain_edit.add_chain.trigger()
    wait_solved(qtbot, w)
    ch = w.rig.chain(NEW)
    assert ch.joints == ("LeftShoulder", "LeftArm", "LeftForeArm", HAND) and ch.solver == "fabrik"


def test_a_selection_off_one_limb_adds_nothing_and_says_why(qtbot, armless):
    w, vp = armless, armless.viewport
    click(vp, bone_middle(w, HAND, HAND_END))
    click(vp, bone_middle(w, "RightHand", "RightHand_End"), modifiers=SHIFT)
    names = w.rig.chain_names
    QTest.keyClick(vp, Qt.Key.Key_I, SHIFT)
    assert w.rig.chain_names == names and w.undo_stack.count() == 0
    assert "not on the line" in w.statusBar().currentMessage()


def test_remove_chain_takes_its_keys_and_undo_brings_both_back(qtbot, tmp_path, window):
    w = window
    w.document.select("left_arm")
    assert w.document.selected == "left_arm"
    w.rig.timeline.add_key("left_arm", "weight", 0.5, 0.25)
    keyed = w.rig.timeline.track("left_arm")
    w.chain_edit.remove_chain.trigger()
    wait_solved(qtbot, w)
    assert "left_arm" not in w.rig.chain_names and "left_arm" not in w.rig.timeline.tracks
    assert w.document.selected in w.rig.chain_names
    assert w.save_preset(tmp_path / "armless.json")  # no track of a chain that is gone
    assert "left_arm" not in Rig.load(tmp_path / "armless.json").chain_names
    w.viewport.requestActivate()
    QTest.keyClick(w.viewport, Qt.Key.Key_Z, CTRL)
    wait_solved(qtbot, w)
    assert "left_arm" in w.rig.chain_names and w.rig.timeline.track("left_arm") == keyed
    assert w.document.selected == "left_arm"
