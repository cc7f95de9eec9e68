"""The property dock: every edit changes the solve and is undoable."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSlider, QWidget

from rigedit.app import status
from rigedit.core.ik.limits import ConeLimit, HingeLimit

from .helpers import wait_solved

ARM = "left_arm"


def panel(window):
    return window.properties.panel


def select(qtbot, window, name):
    combo = window.findChild(QComboBox, "chainSelector")
    idx = combo.findText(name)
    combo.setCurrentIndex(idx)
    combo.activated.emit(idx)  # what a user's pick emits
    assert window.document.selected == name


def test_the_stable_object_names_exist(window):
    for name in ("viewport", "properties", "chainSelector", "blendWeight", "timeline"):
        assert window.findChild(QWidget, name) is not None, name


def test_picking_a_chain_shows_its_settings(qtbot, window):
    select(qtbot, window, ARM)
    p = panel(window)
    assert p.solver.currentData() == "two_bone"
    assert p.joints_label.text() == " → ".join(window.rig.chain(ARM).joints)
    select(qtbot, window, "spine")
    assert p.solver.currentData() == "fabrik"
    assert p.max_iterations.value() == window.rig.chain("spine").max_iterations


def test_blend_weight_zero_gives_the_rest_pose_and_undo_brings_the_ik_back(qtbot, window):
    select(qtbot, window, ARM)
    rest = window.rig.copy()
    rest.reset()
    rest_hand = rest.world_position("LeftHand")
    goal = np.array([0.3, 1.3, 0.35])
    window.document.edit_chain(ARM, "t", {"target": goal})
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("LeftHand"), goal, atol=1e-6)
    spin = window.findChild(QWidget, "blendWeight").spin
    spin.setValue(0.0)
    assert window.rig.chain(ARM).weight == 0.0
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("LeftHand"), rest_hand, atol=1e-9)
    window.undo_stack.undo()
    assert window.rig.chain(ARM).weight == 1.0
    assert spin.value() == 1.0  # the dock follows the undo
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.world_position("LeftHand"), goal, atol=1e-6)


def test_a_slider_drag_is_one_undo_step(qtbot, window):
    select(qtbot, window, ARM)
    slider = window.findChild(QWidget, "blendWeight").slider
    handle_x = slider.width() - 6
    y = slider.height() // 2
    QTest.mousePress(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(handle_x, y))
    from .helpers import move_with_buttons
    from PySide6.QtCore import QPointF

    for x in range(handle_x, handle_x // 3, -10):
        move_with_buttons(slider, QPointF(x, y))
    QTest.mouseRelease(slider, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(handle_x // 3, y))
    w = window.rig.chain(ARM).weight
    assert w < 0.6
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert window.rig.chain(ARM).weight == 1.0


def test_switching_the_solver_changes_the_solve_and_undoes(qtbot, window):
    select(qtbot, window, ARM)
    p = panel(window)
    p.solver.setCurrentIndex(p.solver.findData("fabrik"))
    p.solver.activated.emit(p.solver.currentIndex())
    assert window.rig.chain(ARM).solver == "fabrik"
    assert p.error_plot.isVisibleTo(p)  # the per-iteration plot is for FABRIK chains
    wait_solved(qtbot, window)
    # A new target after the switch: FABRIK starts from the old pose and must iterate.
    window.document.edit_chain(ARM, "t", {"target": (0.45, 1.25, 0.3)})
    wait_solved(qtbot, window)
    rep = window.document.reports[ARM]
    assert rep.iterations >= 1 and rep.error <= window.rig.chain(ARM).tolerance
    # The plot follows solves on a timer: wait for it to show this one.
    qtbot.waitUntil(lambda: p.error_plot.errors is not None and len(p.error_plot.errors) == rep.iterations)
    assert p.error_plot.errors[-1] <= window.rig.chain(ARM).tolerance
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert window.rig.chain(ARM).solver == "two_bone"
    assert p.solver.currentData() == "two_bone"
    assert not p.error_plot.isVisibleTo(p)


def test_ccd_is_offered_and_switching_to_it_is_one_undo_step(qtbot, window):
    select(qtbot, window, "spine")
    p = panel(window)
    i = p.solver.findData("ccd")
    assert i >= 0 and p.solver.model().item(i).isEnabled()
    assert p.solver.itemText(i) == "CCD (iterative)"
    before = window.undo_stack.count()
    p.solver.setCurrentIndex(i)
    p.solver.activated.emit(i)
    assert window.rig.chain("spine").solver == "ccd"
    assert window.undo_stack.count() == before + 1
    assert p.max_iterations.isEnabled() and p.error_plot.isVisibleTo(p)
    assert not p.pole.isEnabled()  # CCD takes no pole
    wait_solved(qtbot, window)
    window.document.edit_chain("spine", "t", {"target": window.rig.chain("spine").target + (0.06, -0.05, 0.08)})
    wait_solved(qtbot, window)
    rep = window.document.reports["spine"]
    # CCD's passes (the humanoid's spine has cone limits, which CCD closes in on over more
    # passes than one solve's cap: the drag's next solves go on from here).
    assert rep.iterations >= 1 and len(rep.errors) == rep.iterations
    assert all(b <= a for a, b in zip(rep.errors, rep.errors[1:])) and rep.errors[-1] < rep.errors[0]
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert window.rig.chain("spine").solver == "fabrik"
    assert p.solver.currentData() == "fabrik"
    assert p.pole.isEnabled()
    assert window.undo_stack.index() == before


def test_two_bone_is_not_offered_for_a_five_joint_chain(qtbot, window):
    select(qtbot, window, "spine")
    p = panel(window)
    assert not p.solver.model().item(p.solver.findData("two_bone")).isEnabled()


def test_tolerance_and_max_iterations_reach_the_solver(qtbot, window):
    select(qtbot, window, "spine")
    p = panel(window)
    window.document.edit_chain("spine", "t", {"target": (0.25, 1.45, 0.15)})
    p.max_iterations.setValue(1)
    p.tolerance.setValue(0.01)  # mm
    assert window.rig.chain("spine").max_iterations == 1
    assert window.rig.chain("spine").tolerance == pytest.approx(1e-5)
    wait_solved(qtbot, window)
    assert window.document.reports["spine"].iterations <= 1
    for _ in range(3):
        window.undo_stack.undo()
    assert window.rig.chain("spine").max_iterations == 20
    assert window.rig.chain("spine").tolerance == pytest.approx(1e-3)


def test_pole_off_and_on(qtbot, window):
    select(qtbot, window, ARM)
    p = panel(window)
    pole = np.asarray(window.rig.chain(ARM).pole).copy()
    p.pole.setChecked(False)
    assert window.rig.chain(ARM).pole is None
    p.pole.setChecked(True)
    np.testing.assert_array_equal(window.rig.chain(ARM).pole, pole)  # the one it had comes back
    window.undo_stack.undo()
    window.undo_stack.undo()
    np.testing.assert_array_equal(window.rig.chain(ARM).pole, pole)
    assert window.undo_stack.index() == 0


def test_a_pole_switched_on_for_a_chain_without_one_is_on_its_bend_side(qtbot, window):
    select(qtbot, window, ARM)
    window.document.edit_chain(ARM, "t", {"target": (0.3, 1.15, 0.3), "pole": None})
    wait_solved(qtbot, window)
    panel(window).pole.setChecked(True)
    rig = window.rig
    sh, el, ha = (rig.world_position(j) for j in rig.chain(ARM).joints)
    axis = (ha - sh) / np.linalg.norm(ha - sh)
    bend = (el - sh) - axis * ((el - sh) @ axis)
    pole = np.asarray(rig.chain(ARM).pole)
    assert (pole - sh) @ bend > 0


def test_limits_table_edits_limits_and_undoes(qtbot, window):
    select(qtbot, window, "spine")
    table = panel(window).limits
    old = dict(window.rig.chain("spine").limits)
    table.set_cell("Spine2", "Limit", "hinge")
    lim = window.rig.chain("spine").limits["Spine2"]
    assert isinstance(lim, HingeLimit)
    table.set_cell("Spine2", "Max °", 35.0)
    assert window.rig.chain("spine").limits["Spine2"].max_deg == 35.0
    table.set_cell("Chest", "Limit", "none")
    assert "Chest" not in window.rig.chain("spine").limits
    assert window.undo_stack.count() == 3
    for _ in range(3):
        window.undo_stack.undo()
    assert dict(window.rig.chain("spine").limits) == old
    assert isinstance(table.row_limit(3), ConeLimit)  # the table shows the restored limits


def test_an_invalid_limit_is_refused_with_a_message_and_changes_nothing(qtbot, window):
    select(qtbot, window, ARM)
    table = panel(window).limits
    old = dict(window.rig.chain(ARM).limits)
    messages = []
    panel(window).problem.connect(messages.append)
    table.set_cell("LeftForeArm", "Min °", 170.0)  # above its max of 150
    assert dict(window.rig.chain(ARM).limits) == old
    assert messages and "min" in messages[-1].lower()
    assert window.undo_stack.count() == 0
    assert table.row_limit(1) == old["LeftForeArm"]  # the table shows the limit again


def test_status_bar_names_the_chain_its_error_and_reach(qtbot, window):
    select(qtbot, window, ARM)
    window.document.edit_chain(ARM, "t", {"target": (2.0, 1.4, 0.0)})  # far beyond the arm
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: "OUT OF REACH" in window.status.chain.text())  # the readout follows at ~15 Hz
    text = window.status.chain.text()
    assert ARM in text and "mm" in text
    assert window.status.chain.styleSheet() == status.OFF_STYLE
    window.undo_stack.undo()
    wait_solved(qtbot, window)
    qtbot.waitUntil(lambda: window.status.chain.text().endswith("· reached"))
    assert window.status.chain.styleSheet() == ""
