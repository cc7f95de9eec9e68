"""The timeline's pose keys: the row of diamonds (pose_keys_row.py), the Key pose button, and
the edits they make, each one undo step through Document.edit_pose (pose_edit.py).

Keys are the pose layer's key times (core/pose_layer.py): a diamond stands for every joint's
key at that time. Moving one moves them all (Rig.move_pose_key), Delete removes them
(Rig.delete_pose_key), the right-click menu sets the interpolation of the segment leaving it
(Rig.set_pose_key_interpolation). Ctrl+C copies the selected keys' values, every joint's,
and Ctrl+V puts them at the playhead, spaced as they were: these shortcuts belong to the
timeline (WidgetWithChildrenShortcut), so with the viewport focused Ctrl+C / Ctrl+V are the
Edit menu's Copy / Paste pose instead (pose_tools.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QMenu, QToolButton, QWidget

from rigedit.core.pose_channel import TIME_EPS, Channel, PoseKey
from rigedit.core.pose_layer import PoseLayer

from ..pose_edit import key_pose
from .pose_keys_row import PoseKeysRow

if TYPE_CHECKING:
    from ..timeline_dock import TimelinePanel

INTERPOLATIONS = (("linear", "Linear"), ("ease", "Ease in-out"), ("constant", "Constant (hold)"))
KEY_POSE_TIP = ("Key pose (I): key the selected joints, or every joint with none selected, with every\n"
                "chain's goal and weight, at the playhead. The keys show as diamonds above the curves.")


@dataclass(frozen=True)
class CopiedKeys:
    """Pose keys copied out of a layer, their times counted from the first one copied."""

    joints: dict[str, tuple[PoseKey, ...]]
    root: tuple[PoseKey, ...]

    @classmethod
    def of(cls, layer: PoseLayer, times) -> "CopiedKeys":
        start = min(times)

        def pick(ch: Channel) -> tuple[PoseKey, ...]:
            return tuple(PoseKey(k.time - start, k.value, k.interpolation) for k in ch.keys
                         if any(abs(k.time - t) <= TIME_EPS for t in times))

        return cls({n: ks for n, c in layer.joints.items() if (ks := pick(c))}, pick(layer.root))

    def pasted(self, layer: PoseLayer, at: float) -> PoseLayer:
        """`layer` with these keys put from time `at` on (replacing keys at those times)."""
        def put(ch: Channel, keys) -> Channel:
            for k in keys:
                ch = ch.with_key(at + k.time, k.value).edited_key(at + k.time, interpolation=k.interpolation)
            return ch

        joints = dict(layer.joints)
        for name, keys in self.joints.items():
            joints[name] = put(joints.get(name, Channel()), keys)
        return PoseLayer(joints, put(layer.root, self.root))


class PoseKeys(QObject):
    def __init__(self, panel: "TimelinePanel") -> None:
        super().__init__(panel)
        self.panel = panel
        self.doc = panel.doc
        self.plot = panel.plot
        self.copied: CopiedKeys | None = None
        self.menu: QMenu | None = None  # the open key menu, if any
        self.row = PoseKeysRow(self._time_to_x, self._x_to_time, lambda t: panel.timeline.snap(t))
        # Key pose sits left of the row, over the plot's weight axis: the button row above
        # must fit a 760 px window.
        self.key_button = QToolButton()
        self.key_button.setText("Key ◆")
        self.key_button.setObjectName("keyPose")
        self.key_button.setFixedHeight(self.row.height())
        self.strip = QWidget()
        self.strip.setObjectName("poseKeysStrip")
        strip = QHBoxLayout(self.strip)
        strip.setContentsMargins(0, 0, 0, 0)
        strip.setSpacing(0)
        strip.addWidget(self.key_button)
        strip.addWidget(self.row, 1)
        self.key_button.clicked.connect(lambda _c=False: self.key_pose())
        self.delete_action = self._action("Delete pose keys", [QKeySequence.StandardKey.Delete, QKeySequence(Qt.Key.Key_Backspace)],
                                          self.row, self.delete_selected)
        self.copy_action = self._action("Copy pose keys", [QKeySequence.StandardKey.Copy], panel, self.copy_selected)
        self.paste_action = self._action("Paste pose keys at the playhead", [QKeySequence.StandardKey.Paste], panel, self.paste)
        self.row.moved.connect(self.move)
        self.row.menu_requested.connect(self._open_menu)
        self.row.scrub_requested.connect(panel.scrub_to)
        self.doc.layer_changed.connect(self.refresh)
        self.doc.rig_replaced.connect(self.refresh)
        self.plot.vb.sigXRangeChanged.connect(lambda *_: self.refresh())
        self.plot.vb.sigResized.connect(lambda *_: self.refresh())

    def _action(self, text: str, keys, widget, slot) -> QAction:
        act = QAction(text, widget)
        act.setShortcuts([QKeySequence(k) for k in keys])
        act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.triggered.connect(lambda _c=False: slot())
        widget.addAction(act)
        return act

    # --- where times are in the row (the plot's mapping) ------------------------------------

    def _plot_x(self, time: float) -> float:
        p = self.plot.to_widget(time, 0.0)
        return self.row.mapFromGlobal(self.plot.viewport().mapToGlobal(p)).x()

    def _time_to_x(self, time: float) -> float:
        return self._plot_x(time)

    def _x_to_time(self, x: float) -> float:
        lo, hi = self.plot.vb.viewRange()[0]
        x0, x1 = self._plot_x(lo), self._plot_x(hi)
        return lo + (x - x0) * (hi - lo) / (x1 - x0) if x1 != x0 else lo

    # --- showing ---------------------------------------------------------------------------

    def refresh(self) -> None:
        layer = self.doc.rig.pose_layer
        # The button as wide as the plot's axis, so the row starts where the plot's view does.
        view_left = self.strip.mapFromGlobal(self.plot.viewport().mapToGlobal(
            self.plot.mapFromScene(self.plot.vb.sceneBoundingRect().topLeft()))).x()
        if view_left > 24 and view_left != self.key_button.width():
            self.key_button.setFixedWidth(view_left)
        self.row.view_left = max(view_left - self.row.x(), 0)
        keys = [(t, _interpolation(layer, t)) for t in layer.key_times]
        if keys != self.row.keys:  # a joint rotation changes the layer at mouse rate, not its keys
            self.row.set_keys(keys)
        else:
            self.row.update()  # the plot may have panned or zoomed

    # --- edits: each one undo step -----------------------------------------------------------

    def key_pose(self) -> bool:
        self.panel.playback.stop()
        done = _reporting(self.panel, "Key pose", lambda: key_pose(self.doc))
        if done:
            self.row.select([self.doc.rig.time])
        return bool(done)

    def move(self, time: float, to: float) -> bool:
        done = _reporting(self.panel, "Move pose key", lambda: self.doc.edit_pose(
            f"Move pose key {time:.3f} → {to:.3f} s", lambda rig: rig.move_pose_key(time, to)))
        if done:
            self.row.select([to])
        return bool(done)

    def delete_selected(self) -> bool:
        times = sorted(self.row.selected)
        if not times:
            return False

        def delete(rig) -> None:
            for t in times:
                rig.delete_pose_key(t)

        return bool(_reporting(self.panel, "Delete pose keys", lambda: self.doc.edit_pose(
            f"Delete {len(times)} pose key{'s' * (len(times) != 1)}", delete)))

    def set_interpolation(self, interpolation: str) -> bool:
        times = sorted(self.row.selected)

        def change(rig) -> None:
            for t in times:
                rig.set_pose_key_interpolation(t, interpolation)

        return bool(times) and bool(_reporting(self.panel, "Pose key interpolation", lambda: self.doc.edit_pose(
            f"Pose key interpolation: {interpolation}", change)))

    def copy_selected(self) -> bool:
        times = sorted(self.row.selected)
        if not times:
            self.panel.window_.statusBar().showMessage("Copy pose keys: select keys in the pose row first", 5000)
            return False
        self.copied = CopiedKeys.of(self.doc.rig.pose_layer, times)
        self.panel.window_.statusBar().showMessage(f"Copied {len(times)} pose key{'s' * (len(times) != 1)}", 4000)
        return True

    def paste(self) -> bool:
        copied, at = self.copied, self.panel.timeline.snap(self.panel.time)
        if copied is None:
            self.panel.window_.statusBar().showMessage("Paste pose keys: copy keys (Ctrl+C in the pose row) first", 5000)
            return False

        def put(rig) -> None:
            rig.pose_layer = copied.pasted(rig.pose_layer, at)

        done = _reporting(self.panel, "Paste pose keys", lambda: self.doc.edit_pose(f"Paste pose keys at {at:.3f} s", put))
        if done:
            self.row.select([at])
        return bool(done)

    # --- the key menu ------------------------------------------------------------------------

    def _open_menu(self, time: float, screen_pos: QPoint) -> None:
        self.menu = self.key_menu(time)
        self.menu.popup(screen_pos)

    def key_menu(self, time: float) -> QMenu:
        current = _interpolation(self.doc.rig.pose_layer, time)
        menu = QMenu(self.row)
        menu.setObjectName("poseKeyMenu")
        n = len(self.row.selected)
        menu.addSection(f"Pose key at {time:.3f} s → next key" if n <= 1 else f"{n} pose keys → their next keys")
        for name, label in INTERPOLATIONS:
            act = menu.addAction(label)
            act.setCheckable(True)
            act.setChecked(current == name)
            act.setData(name)
            act.triggered.connect(lambda _c=False, i=name: self.set_interpolation(i))
        menu.addSeparator()
        menu.addAction("Delete").triggered.connect(lambda _c=False: self.delete_selected())
        return menu


def _interpolation(layer: PoseLayer, time: float) -> str:
    """The interpolation leaving the keys at `time` (the first channel's keyed there)."""
    for ch in (*layer.joints.values(), layer.root):
        i = ch.index_at(time)
        if i is not None:
            return ch.keys[i].interpolation
    return "ease"


def _reporting(panel, what: str, edit):
    """Run an edit; a ValueError or KeyError goes to the status bar instead of up."""
    try:
        return edit()
    except (ValueError, KeyError) as e:
        panel.window_.statusBar().showMessage(f"{what}: {e.args[0] if e.args else e}", 8000)
        return False
