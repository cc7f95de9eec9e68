"""The mouse wheel over the property dock scrolls the dock; a field takes the wheel only once
it has been clicked into (as in Blender and Maya). Before, ten notches over the reach clamp
took it from 99.90 % to 99.40 % in ten undo steps."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from .helpers import wait_solved

NOTCH = 120  # one step of a mouse wheel, in eighths of a degree


def wheel(window, widget, notches: int) -> None:
    """`notches` wheel steps (negative: towards the user, scrolling down) with the pointer on
    the middle of `widget`, through the window system's path: Qt finds the widget under the
    pointer and offers the event up its parents until one takes it."""
    at = QPointF(widget.mapTo(window, widget.rect().center()))
    for _ in range(abs(notches)):
        QTest.wheelEvent(window.windowHandle(), at, QPoint(0, NOTCH if notches > 0 else -NOTCH))
        QApplication.processEvents()


def activate(qtbot, window) -> None:
    """The window active, so that focus means something (hasFocus is false in an inactive one)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def shown_in_dock(dock, widget) -> bool:
    scroll = dock.widget()
    top_left = widget.mapTo(scroll.viewport(), QPoint(0, 0))
    return scroll.viewport().rect().contains(top_left + widget.rect().center())


def test_the_wheel_over_an_unfocused_field_scrolls_the_dock_and_edits_nothing(qtbot, make_window):
    window = make_window(size=(1000, 600))  # the dock is taller than the window: it scrolls
    dock, p = window.properties, window.properties.panel
    bar = dock.widget().verticalScrollBar()
    activate(qtbot, window)
    p.chain_selector.setFocus()  # a field of the dock has the focus: not the one under the pointer
    qtbot.waitUntil(p.chain_selector.hasFocus)
    clamp = p.uses.reach_clamp
    dock.widget().ensureWidgetVisible(clamp)
    assert shown_in_dock(dock, clamp) and clamp.isEnabled() and not clamp.hasFocus()
    top = bar.value()
    assert top < bar.maximum()  # room to scroll down
    before, steps = clamp.value(), window.undo_stack.count()
    settings = window.rig.chain(window.document.selected).settings()

    wheel(window, clamp, -3)
    assert bar.value() > top  # the dock scrolled down
    assert clamp.value() == before and window.undo_stack.count() == steps
    assert window.rig.chain(window.document.selected).settings() == settings
    assert not clamp.hasFocus()  # the wheel does not give a field the focus

    scrolled = bar.value()
    for field in (p.solver, p.weight.slider, p.weight.spin, p.tolerance, p.limits.cellWidget(0, 1)):
        if not shown_in_dock(dock, field):
            dock.widget().ensureWidgetVisible(field)
            scrolled = bar.value()
        value = field.currentIndex() if hasattr(field, "currentIndex") else field.value()
        wheel(window, field, 1)
        assert (field.currentIndex() if hasattr(field, "currentIndex") else field.value()) == value, field.objectName()
        assert not field.hasFocus() and bar.value() <= scrolled
        scrolled = bar.value()
    assert window.undo_stack.count() == steps
    assert window.rig.chain(window.document.selected).settings() == settings


def test_a_field_clicked_into_takes_the_wheel(qtbot, window):
    p = window.properties.panel
    clamp = p.uses.reach_clamp
    activate(qtbot, window)
    window.properties.widget().ensureWidgetVisible(clamp)
    bar = window.properties.widget().verticalScrollBar()
    QTest.mouseClick(clamp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(8, clamp.height() // 2))
    qtbot.waitUntil(clamp.hasFocus)
    before, steps, scrolled = clamp.value(), window.undo_stack.count(), bar.value()
    wheel(window, clamp, -1)
    assert abs(clamp.value() - (before - clamp.singleStep())) < 1e-9  # the field took it: one step down
    assert window.undo_stack.count() == steps + 1 and bar.value() == scrolled
    wait_solved(qtbot, window)
    name = window.document.selected
    assert abs(window.rig.chain(name).reach_clamp - clamp.value() / 100.0) < 1e-9


def test_fields_made_for_another_chain_are_guarded_too(qtbot, window):
    """The limits table makes new fields for each chain it shows."""
    p = window.properties.panel
    activate(qtbot, window)
    old = p.limits.cellWidget(0, 6)
    window.document.select("left_arm")
    qtbot.waitUntil(lambda: p.limits.item(1, 0) is not None and p.limits.item(1, 0).text() == "LeftForeArm")
    hinge_max, kind = p.limits.cellWidget(1, 6), p.limits.cellWidget(1, 1)
    assert hinge_max is not old and kind.currentText() == "hinge" and hinge_max.isEnabled()
    settings, steps = window.rig.chain("left_arm").settings(), window.undo_stack.count()
    for field in (hinge_max, kind):
        window.properties.widget().ensureWidgetVisible(field)
        value = field.currentIndex() if field is kind else field.value()
        assert field.focusPolicy() == Qt.FocusPolicy.StrongFocus
        wheel(window, field, -2)
        assert (field.currentIndex() if field is kind else field.value()) == value
        assert not field.hasFocus()
    assert window.undo_stack.count() == steps and window.rig.chain("left_arm").settings() == settings
