"""The Pose Library dock (issue 25): poses saved under a name with a thumbnail, applied with
a blend, renamed and deleted.

It is a view of `rigedit.PoseLibrary(folder)` (JSON files in a folder scripts can use too),
the folder from settings.pose_library_folder(). Save stores the shown pose of every joint,
or of the selected joints only, with a 96 px picture of the viewport; Apply (or a
double-click) puts the chosen pose onto the pose layer at the blend slider's weight
(0-100 %) as one undo step (Document.edit_pose). Rename edits the name in the list; Delete
removes the pose's file at once (the library is not part of the rig, so not of undo).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QObject, QRect, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

import rigedit

from . import settings
from .pose_edit import selected_joints

if TYPE_CHECKING:
    from .main_window import MainWindow

THUMB_PX = 96
MIN_SHOWN_PX = 40  # the list shrinks its pictures to its height, down to this (then it scrolls)
NAME_PX = 30  # the name under a picture, and the space about it
THUMB_MARGIN = 0.08  # of the character's size on the screen, each side of its thumbnail


def create_pose_library_panel(window: "MainWindow") -> "PoseLibraryPanel":
    return PoseLibraryPanel(window)


def thumbnail_png(window: "MainWindow") -> bytes | None:
    """The viewport's picture of the character (a square around its joints on the screen)
    scaled to THUMB_PX, as PNG bytes; None before the viewport has been shown."""
    vp = window.viewport
    img = vp.grab_image()
    if img.isNull():
        return None
    square = img.copy(_character_square(vp, window.rig.world_positions(), img.width(), img.height()))
    small = square.scaled(THUMB_PX, THUMB_PX, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    small.save(buf, "PNG")
    buf.close()
    return bytes(data.data())


def _character_square(vp, points, width: int, height: int) -> QRect:
    """The square of the viewport's image (device pixels) that holds `points` (world) with a
    margin, kept inside the image; the centre square when they are off the screen."""
    dpr = vp.devicePixelRatioF()
    xy = np.array([[p.x(), p.y()] for p in (vp.world_to_screen(q) for q in points)]) * dpr
    side = min(width, height)
    if len(xy) and np.all(np.isfinite(xy)):
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        side = int(min(max(float((hi - lo).max()) * (1 + 2 * THUMB_MARGIN), THUMB_PX), width, height))
        cx, cy = (lo + hi) / 2
    else:
        cx, cy = width / 2, height / 2
    left = int(min(max(cx - side / 2, 0), width - side))
    top = int(min(max(cy - side / 2, 0), height - side))
    return QRect(left, top, side, side)


class PoseLibraryPanel(QWidget):
    def __init__(self, window: "MainWindow", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("poseLibraryPanel")
        self.window_ = window
        self.doc = window.document
        self.library = rigedit.PoseLibrary(settings.pose_library_folder())
        self._renaming: str | None = None  # the name of the item being renamed in the list

        self.list = QListWidget()
        self.list.setObjectName("poseList")
        self.list.setViewMode(QListView.ViewMode.IconMode)
        self.list.setMinimumHeight(THUMB_PX // 2)  # what a 540 px window has room for (it scrolls)
        self._fit_pictures(THUMB_PX)
        self.list.installEventFilter(self)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setMovement(QListView.Movement.Static)
        self.list.setWordWrap(True)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setToolTip("Saved poses: double-click one to apply it at the blend below; F2 renames")
        self.name = QLineEdit()
        self.name.setObjectName("poseName")
        self.name.setPlaceholderText("name of the pose to save")
        self.save_button = QPushButton("Save pose")
        self.save_button.setObjectName("savePose")
        self.save_button.setToolTip("Save the shown pose (every joint, or the selected joints only) under the name, "
                                    "with a picture of the viewport")
        self.selected_only = QCheckBox("Selected only")
        self.selected_only.setObjectName("poseSelectedOnly")
        self.selected_only.setToolTip("Save only the joints selected in the viewport (select joints there first)")
        self.blend = QSlider(Qt.Orientation.Horizontal)
        self.blend.setObjectName("poseBlend")
        self.blend.setRange(0, 100)
        self.blend.setValue(100)
        self.blend.setToolTip("How much of the pose Apply puts on: 0 % leaves the pose as it is, 100 % "
                              "is the saved pose (each joint slerped between)")
        self.blend_label = QLabel()
        self.blend_label.setMinimumWidth(36)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setObjectName("applyPose")
        self.apply_button.setToolTip("Put the chosen pose on at the blend (one undo step)")
        self.rename_button = QPushButton("Rename")
        self.rename_button.setObjectName("renamePose")
        self.rename_button.setToolTip("Rename the chosen pose (type the new name in the list, Enter)")
        self.delete_button = QPushButton("Delete")
        self.delete_button.setObjectName("deletePose")
        self.delete_button.setToolTip("Delete the chosen pose's file from the library folder")
        self.folder_button = QToolButton()
        self.folder_button.setObjectName("poseFolder")
        self.folder_button.setText("Folder…")
        self._layout()
        self._connect()
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.list and event.type() == QEvent.Type.Resize:
            # The new size (the filter runs before the list lays out its viewport anew).
            self._fit_pictures(event.size().height() - 2 * self.list.frameWidth() - NAME_PX)
        return super().eventFilter(watched, event)

    def _fit_pictures(self, room: int) -> None:
        """One row of pictures with their names under them in the list's height: at full size
        the names were cut off in the room the dock gets beside Lint in a 1280 x 800 window."""
        px = max(MIN_SHOWN_PX, min(THUMB_PX, room))
        if self.list.iconSize().height() != px:
            self.list.setIconSize(QSize(px, px))
            self.list.setGridSize(QSize(px + 18, px + NAME_PX))

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        # A row of thumbnails with their names and the controls under it: what the dock asks
        # for first; a short window may squeeze it (the list scrolls).
        hint = super().sizeHint()
        return QSize(hint.width(), max(hint.height(), THUMB_PX + 150))

    def _layout(self) -> None:
        save = QHBoxLayout()
        save.addWidget(self.name, 1)
        save.addWidget(self.save_button)
        save.addWidget(self.selected_only)
        use = QHBoxLayout()
        use.addWidget(QLabel("Blend"))
        use.addWidget(self.blend, 1)
        use.addWidget(self.blend_label)
        use.addWidget(self.apply_button)
        manage = QHBoxLayout()
        manage.addStretch(1)
        for b in (self.rename_button, self.delete_button, self.folder_button):
            manage.addWidget(b)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(3)
        lay.addWidget(self.list, 1)
        lay.addLayout(save)
        lay.addLayout(use)
        lay.addLayout(manage)

    def _connect(self) -> None:
        self.save_button.clicked.connect(lambda _c=False: self.save())
        self.name.returnPressed.connect(self.save)
        self.apply_button.clicked.connect(lambda _c=False: self.apply())
        self.list.itemDoubleClicked.connect(lambda _item: self.apply())
        self.rename_button.clicked.connect(lambda _c=False: self.start_rename())
        self.list.itemChanged.connect(self._renamed)
        self.delete_button.clicked.connect(lambda _c=False: self.delete())
        self.folder_button.clicked.connect(lambda _c=False: self._choose_folder())
        self.blend.valueChanged.connect(self._show_blend)
        self.list.currentItemChanged.connect(lambda *_: self._enable())
        self._show_blend(self.blend.value())

    def _say(self, text: str, ms: int = 6000) -> None:
        self.window_.statusBar().showMessage(text, ms)

    def _show_blend(self, value: int) -> None:
        self.blend_label.setText(f"{value} %")

    def _enable(self) -> None:
        chosen = self.current() is not None
        for b in (self.apply_button, self.rename_button, self.delete_button):
            b.setEnabled(chosen)
        self.folder_button.setToolTip(f"The library's folder: {self.library.folder}\nClick to choose another")

    # --- the list ------------------------------------------------------------------------------

    def refresh(self, select: str | None = None) -> None:
        keep = select if select is not None else self.current()
        self.list.blockSignals(True)
        self.list.clear()
        for name in self.library.names:
            item = QListWidgetItem(name)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            png = self.library.thumbnail(name)
            if png:
                item.setIcon(QIcon(QPixmap.fromImage(QImage.fromData(png))))
            self.list.addItem(item)
            if name == keep:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self._enable()

    def current(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def choose(self, name: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == name:
                self.list.setCurrentRow(i)
                return
        raise KeyError(f"no pose named {name!r} in {self.library.folder}")

    # --- the edits ------------------------------------------------------------------------------

    def save(self, name: str | None = None) -> bool:
        name = (self.name.text() if name is None else name).strip()
        if not name:
            name = _free_name(self.library.names)
        if name in self.library.names:
            self._say(f"Save pose: {name!r} is in the library already: choose another name, or delete it first", 8000)
            return False
        joints = list(selected_joints(self.doc)) if self.selected_only.isChecked() else []
        if self.selected_only.isChecked() and not joints:
            self._say("Save pose: no joints are selected (select them in the viewport, or untick 'Selected only')", 8000)
            return False
        try:
            self.library.add(name, self.doc.rig, joints=joints or None, thumbnail=thumbnail_png(self.window_))
        except (OSError, ValueError) as e:
            self._say(f"Save pose: {e}", 8000)
            return False
        self.name.clear()
        self.refresh(select=name)
        self._say(f"Saved pose {name!r} in {self.library.folder}")
        return True

    def apply(self, weight: float | None = None) -> bool:
        name = self.current()
        if name is None:
            return False
        w = self.blend.value() / 100.0 if weight is None else float(weight)
        try:
            return self.doc.edit_pose(f"Apply pose {name!r} at {w:.0%}",
                                      lambda rig: self.library.apply(name, rig, weight=w))
        except (OSError, ValueError, KeyError) as e:
            self._say(f"Apply pose: {e}", 8000)
            return False

    def start_rename(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.list.editItem(item)

    def _renamed(self, item: QListWidgetItem) -> None:
        old, new = item.data(Qt.ItemDataRole.UserRole), item.text().strip()
        if new == old:
            return
        try:
            if not new:
                raise ValueError("a pose needs a name")
            self.library.rename(old, new)
        except (OSError, ValueError, KeyError) as e:
            self._say(f"Rename pose: {e}", 8000)
            new = old
        self.refresh(select=new)

    def delete(self) -> bool:
        name = self.current()
        if name is None:
            return False
        try:
            self.library.remove(name)
        except (OSError, KeyError) as e:
            self._say(f"Delete pose: {e}", 8000)
            return False
        self.refresh()
        self._say(f"Deleted pose {name!r} from {self.library.folder}")
        return True

    def set_folder(self, folder: str | Path) -> None:
        self.library = rigedit.PoseLibrary(folder)
        settings.set_pose_library_folder(folder)
        self.refresh()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Pose library folder", str(self.library.folder))
        if folder:
            self.set_folder(folder)


def _free_name(names) -> str:
    taken = set(names)
    return next(f"Pose {i}" for i in range(1, len(taken) + 2) if f"Pose {i}" not in taken)
