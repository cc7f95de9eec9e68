"""Auto-key from any field (issue 25): with Auto-key ticked, a blend weight typed into the dock
at two times makes two keys, a slider drag makes one key in its one undo step, and undo takes
key and value back together. The key buttons and Help > Keyboard Shortcuts say how to key."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget

from rigedit.app.timeline_dock import HOW_TO_KEY

from .helpers import move_with_buttons

LEFT = Qt.MouseButton.LeftButton
NO_MOD = Qt.KeyboardModifier.NoModifier
LEG = "left_leg"


@pytest.fixture
def panel(qtbot, window):
    window.document.select(LEG)
    p = window.timeline_dock.widget()
    qtbot.mouseClick(p.auto_key, LEFT)
    assert p.auto_key.isChecked()
    return p


def blend_weight(window):
    return window.findChild(QWidget, "blendWeight")


def type_weight(window, text: str) -> None:
    """Click into the dock's weight field, replace its text and press Enter, as a user does."""
    field = blend_weight(window).spin.lineEdit()
    window.properties.widget().ensureWidgetVisible(field)
    QTest.mouseClick(field, LEFT, NO_MOD, field.rect().center())
    QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(field, text)
    QTest.keyClick(field, Qt.Key.Key_Return)


def weight_keys(panel, chain=LEG) -> list[tuple[float, float]]:
    return [(k.time, k.value) for k in panel.timeline.curve(chain, "weight").keys]


def test_a_weight_typed_at_two_times_makes_two_keys(qtbot, window, panel):
    t0, t1 = panel.timeline.snap(0.4), panel.timeline.snap(1.2)
    panel.scrub_to(t0)
    type_weight(window, "0.3")
    panel.scrub_to(t1)
    type_weight(window, "0.8")
    assert weight_keys(panel) == [(t0, pytest.approx(0.3)), (t1, pytest.approx(0.8))]
    assert window.undo_stack.count() == 2  # each edit and its key, one step
    # The curve is no longer flat: halfway between, the weight is between the two.
    panel.scrub_to((t0 + t1) / 2)
    assert 0.3 < window.rig.chain(LEG).weight < 0.8
    panel.scrub_to(t1)
    assert window.rig.chain(LEG).weight == pytest.approx(0.8)

    # Typing at a keyed time updates that key.
    type_weight(window, "0.6")
    assert weight_keys(panel) == [(t0, pytest.approx(0.3)), (t1, pytest.approx(0.6))]

    # Undo takes the key back with the value; the chain's weight is the curve's again.
    window.undo_stack.undo()
    assert weight_keys(panel)[-1] == (t1, pytest.approx(0.8)) and window.rig.chain(LEG).weight == pytest.approx(0.8)
    window.undo_stack.undo()
    assert weight_keys(panel) == [(t0, pytest.approx(0.3))]
    window.undo_stack.undo()
    assert weight_keys(panel) == [] and window.rig.chain(LEG).weight == 1.0
    assert blend_weight(window).spin.value() == 1.0

    # Auto-key off: a typed weight keys nothing.
    qtbot.mouseClick(panel.auto_key, LEFT)
    type_weight(window, "0.5")
    assert weight_keys(panel) == [] and window.rig.chain(LEG).weight == pytest.approx(0.5)


def test_a_slider_drag_keys_once_in_its_one_undo_step(qtbot, window, panel):
    t = panel.timeline.snap(0.7)
    panel.scrub_to(t)
    slider = blend_weight(window).slider
    window.properties.widget().ensureWidgetVisible(slider)
    x0, y = slider.width() - 6, slider.height() // 2
    QTest.mousePress(slider, LEFT, NO_MOD, QPoint(x0, y))
    for x in range(x0, x0 // 3, -10):
        move_with_buttons(slider, QPointF(x, y))
    QTest.mouseRelease(slider, LEFT, NO_MOD, QPoint(x0 // 3, y))
    w = window.rig.chain(LEG).weight
    assert w < 0.6
    assert weight_keys(panel) == [(t, pytest.approx(w))]
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert weight_keys(panel) == [] and window.rig.chain(LEG).weight == 1.0


def test_key_buttons_and_help_say_how_to_key(window):
    panel = window.timeline_dock.widget()
    for button in (panel.key_target_button, panel.auto_key, panel.ease_in_button, panel.ease_out_button, panel.plot):
        tip = button.toolTip()
        assert "Double-click the plot" in tip and "Auto-key" in tip, button.objectName()
    window.action_shortcuts.trigger()
    rows = window.shortcuts_dialog.texts()
    for how, does in HOW_TO_KEY:
        assert (how, does, "Timeline: keying") in rows
