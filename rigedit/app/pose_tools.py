"""Edit > Key Pose, Copy Pose, Paste Pose, Paste Pose Mirrored, Mirror Pose (issue 25), and
Clear Rotation (Alt+R, as Blender's): the pose layer's turn taken off the selected joints.

Copy puts the shown local rotations of the selected joints (every joint with none selected)
on the system clipboard as JSON, the text of a pose library file (io/pose_library.py), so a
pose goes from one editor window, rig, script or pose file to another; Paste reads it back onto the pose layer
(Rig.paste_pose), mirrored left <-> right with Ctrl+Shift+V. Each edit is one undo step
(Document.edit_pose).

The shortcuts (I, Ctrl+C, Ctrl+V, Ctrl+Shift+V) are WidgetWithChildrenShortcut actions
of the viewport (and I of the timeline too): the widget with the focus decides, so with the
timeline focused Ctrl+C / Ctrl+V copy and paste its pose keys (timeline/pose_keys.py), and
in a text field they copy and paste text. The menu entries work from anywhere.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from rigedit.core.pose_layer import IDENTITY
from rigedit.io.pose_library import FORMAT, VERSION

from .pose_edit import selected_joints

if TYPE_CHECKING:
    from .main_window import MainWindow



class PoseTools(NamedTuple):
    key_pose: QAction
    copy_pose: QAction
    paste_pose: QAction
    paste_mirrored: QAction
    mirror_pose: QAction
    clear_rotation: QAction


def install_pose_tools(w: "MainWindow") -> PoseTools:
    """The pose entries at the end of the Edit menu, their shortcuts the viewport's (and I
    the timeline's too)."""
    m = w.edit_menu
    m.addSeparator()
    view, timeline = w.viewport.container, w.timeline_dock.panel

    def action(text: str, keys, tip: str, slot: Callable[[], object], *widgets) -> QAction:
        act = QAction(text, w)
        act.setShortcuts([QKeySequence(k) for k in keys])
        act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        act.setToolTip(tip)
        act.setStatusTip(tip)
        act.triggered.connect(lambda _c=False: slot())
        m.addAction(act)
        for widget in widgets:
            widget.addAction(act)
        return act

    m.setToolTipsVisible(True)
    return PoseTools(
        action("&Key Pose", ["I"], "Key the selected joints (every joint with none selected) with every chain's goal "
               "and weight at the playhead (I with the viewport or timeline focused; also the timeline's Key pose)",
               lambda: w.timeline_dock.panel.pose_keys.key_pose(), view, timeline),
        action("&Copy Pose", [QKeySequence.StandardKey.Copy], "Copy the selected joints' rotations (every joint with "
               "none selected) to the clipboard (Ctrl+C with the viewport focused)", lambda: copy_pose(w), view),
        action("&Paste Pose", [QKeySequence.StandardKey.Paste], "Paste the pose on the clipboard onto the pose layer "
               "(Ctrl+V with the viewport focused)", lambda: paste_pose(w), view),
        action("Paste Pose &Mirrored", ["Ctrl+Shift+V"], "Paste the pose on the clipboard with left and right swapped "
               "(Ctrl+Shift+V with the viewport focused)", lambda: paste_pose(w, mirror=True), view),
        action("Mi&rror Pose", [], "Swap the selected joints' pose (every joint with none selected) with their "
               "left / right partners, reflected across the character's symmetry plane", lambda: mirror_pose(w)),
        action("C&lear Rotation", ["Alt+R"], "Take the pose layer's turn off the selected joints (every joint with "
               "none selected): the clip, or the rest pose, shows there again (Alt+R with the viewport focused)",
               lambda: clear_rotation(w), view),
    )


def _say(w: "MainWindow", text: str, ms: int = 6000) -> None:
    w.statusBar().showMessage(text, ms)


def copy_pose(w: "MainWindow") -> bool:
    joints = selected_joints(w.document)
    try:
        pose = w.rig.copy_pose(list(joints) or None)
    except (ValueError, KeyError) as e:
        _say(w, f"Copy pose: {e.args[0] if e.args else e}", 8000)
        return False
    QApplication.clipboard().setText(json.dumps({"format": FORMAT, "version": VERSION, **pose}, indent=1))
    n = len(pose.get("joints", {}))
    _say(w, f"Copied the pose of {n} joint{'s' * (n != 1)}")
    return True


def clipboard_pose() -> dict:
    """The pose on the system clipboard ({"joints", "root"}: a pose file's text, or the bare
    pose); ValueError saying why when there is none."""
    text = QApplication.clipboard().text()
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError("the clipboard holds no pose (copy one with Edit > Copy Pose)") from None
    if not isinstance(data, dict) or not isinstance(data.get("joints"), dict):
        raise ValueError("the clipboard's JSON is not a pose: it needs a 'joints' object of name: [x, y, z, w]")
    if data.get("format", FORMAT) != FORMAT:
        raise ValueError(f"the clipboard's JSON is a {data.get('format')!r}, not a {FORMAT!r}")
    return {k: data[k] for k in ("joints", "root") if k in data}


def paste_pose(w: "MainWindow", mirror: bool = False) -> bool:
    what = "Paste pose mirrored" if mirror else "Paste pose"
    missing: list = []

    def paste(rig) -> None:
        report = rig.paste_pose(pose, mirror=mirror)
        missing.extend(report or ())

    try:
        pose = clipboard_pose()
        done = w.document.edit_pose(what, paste)
    except (ValueError, KeyError) as e:
        _say(w, f"{what}: {e.args[0] if e.args else e}", 8000)
        return False
    n = len(pose["joints"])
    note = f"; not in this rig: {', '.join(map(str, missing[:6]))}{'…' if len(missing) > 6 else ''}" if missing else ""
    _say(w, f"{what}: {n} joint{'s' * (n != 1)}{note}" if done else f"{what}: the pose is already so{note}")
    return done


def mirror_pose(w: "MainWindow") -> bool:
    joints = selected_joints(w.document)
    try:
        return w.document.edit_pose("Mirror pose", lambda rig: rig.mirror_pose(list(joints) or None))
    except (ValueError, KeyError) as e:
        _say(w, f"Mirror pose: {e.args[0] if e.args else e}", 8000)
        return False


def clear_rotation(w: "MainWindow") -> bool:
    """The layer's delta of the selected joints (every joint with one, none selected) made
    the identity at the playhead: an unkeyed edit, as a rotation is, keyed with Auto-key on."""
    doc = w.document
    layer = doc.rig.pose_layer
    joints = selected_joints(doc) or tuple(layer.joints)

    def clear(rig) -> None:
        cleared = rig.pose_layer
        for name in joints:
            cleared = cleared.with_rotation(name, IDENTITY, rig.time)
        rig.pose_layer = cleared
        if doc.auto_keying():
            rig.key_pose(list(joints), chains=False)

    done = bool(joints) and doc.edit_pose("Clear rotation", clear)
    _say(w, f"Cleared the rotation of {len(joints)} joint{'s' * (len(joints) != 1)}" if done
         else "Clear rotation: no joint is turned on the pose layer here")
    return done
