"""The wheel scrolls a dock, not the field under the pointer (as in Blender and Maya).

A Qt spin box, combo box or slider takes every wheel event over it, focused or not: a user
scrolling down the property dock changed the reach clamp under the pointer instead, one undo
step a notch. Here a field takes the wheel only once it has the focus (a click or Tab into it);
an unfocused field passes the wheel on to its parents, and the dock's scroll area scrolls.

StrongFocus: the wheel no longer gives a field the focus (Qt's default for these fields,
WheelFocus, would focus it on the first notch and then let it take the rest).
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QComboBox, QScrollBar, QWidget

FIELDS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def is_field(obj: QObject) -> bool:
    return isinstance(obj, FIELDS) and not isinstance(obj, QScrollBar)


class FieldWheelGuard(QObject):
    """Guards every field inside `root`, those made later included (the limits table makes
    new ones for each chain): it watches each widget under `root` for new children."""

    def __init__(self, root: QWidget) -> None:
        super().__init__(root)
        self._watch(root)

    def _watch(self, widget: QWidget) -> None:
        for w in [widget, *widget.findChildren(QWidget)]:
            w.removeEventFilter(self)  # once per widget, however often it is seen
            w.installEventFilter(self)
            if is_field(w) and w.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        kind = ev.type()
        if kind == QEvent.Type.Wheel:
            if is_field(obj) and not obj.hasFocus():
                ev.ignore()  # not taken: Qt offers it to the parents, up to the scroll area
                return True
        elif kind in (QEvent.Type.ChildAdded, QEvent.Type.ChildPolished):
            # Added: a widget may be half built (its class's constructor still running), so
            # polished too: every widget is polished, once whole, before it is first shown.
            child = ev.child()
            if child is not None and child.isWidgetType():
                self._watch(child)
        return False
