"""File > Retarget onto This Rig…: a clip (any of io/formats.py's CLIPS) from another skeleton, retargeted onto
the open rig (rigedit/core/retarget), becomes its clip.

The whole change (the clip, and every chain's goal set to follow it, as an import sets them)
is one undo command, so Undo puts back the clip and the chains the rig had. A clip that cannot
be retargeted (no legs, not a clip, unreadable) is said in the error dialog naming the file,
and the rig is left as it was.

The options (root motion, feet locked, feet above the ground, hands off the body) are asked
after the file, in retarget_dialog.py; the last ones are offered again (`retargeter.options`).

Automation surface: `window.retargeter.retarget_file(path, animation=None, options=None)` does
what the menu does after its dialogs (options None: the last ones); `window.action_retarget`
is the menu entry.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.retarget import RetargetOptions, retarget_clip
from rigedit.io import formats

from . import dialogs, settings
from .commands import NewClipCommand
from .import_actions import read_for_editing
from .retarget_dialog import RetargetOptionsDialog

if TYPE_CHECKING:
    from .main_window import MainWindow

CLIP_FILTER = formats.dialog_filter(formats.CLIPS, "Motion")


class RetargetController(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window
        self.show_errors = True
        self.last_error: str | None = None
        self.last_result = None  # the core RetargetResult of the last retarget
        self.options = RetargetOptions()  # offered in the options dialog, the last ones asked

    def retarget_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.w, "Retarget a clip onto this rig", settings.last_folder("import"), CLIP_FILTER)
        if not path:
            return
        settings.set_last_folder("import", Path(path).parent)
        dialog = RetargetOptionsDialog(self.options, Path(path).name, self.w)
        if dialog.exec() == RetargetOptionsDialog.DialogCode.Accepted:
            self.options = dialog.options()
            self.retarget_file(path)

    def retarget_file(self, path: str | Path, animation: int | str | None = None,
                      options: RetargetOptions | None = None) -> bool:
        path = Path(path)
        options = self.options if options is None else options
        doc = self.w.document
        rig = doc.rig
        try:
            read = read_for_editing(path, "auto", animation)
            if read.clip is None:
                raise ValueError(f"{path}: the file has no animation to retarget")
            own = rig.clip.frame(0) if rig.clip is not None else None  # a rest pose may be no pose (Bandai's)
            result = retarget_clip(read.skeleton, read.clip, rig.skeleton, target_pose=own, source_label=str(path),
                                   target_label=rig.name or "the open rig", **options.as_dict())
        except Exception as e:  # BvhError, GltfError, RetargetError name the file; nothing may escape a menu
            message = str(e)
            self._fail(message if str(path) in message else f"{path}: {message}")
            return False
        clip = result.clip
        clip.source = read.clip.source
        chains = {name: dataclasses.replace(rig.chain(name).settings(), **follow_kwargs(clip)) for name in rig.chain_names}
        doc.undo_stack.push(NewClipCommand(doc, f"Retarget {path.name}", clip, chains))
        self.last_result, self.last_error = result, None
        self.w.statusBar().showMessage(
            f"Retargeted {path.name}: {clip.n_frames} frames, {len(result.chains)} chains mapped, "
            f"root motion {_root_text(result)}, max foot slide {1000 * result.max_slide:.1f} mm", 10_000)
        return True

    def _fail(self, message: str) -> None:
        self.last_error = message
        if self.show_errors:
            dialogs.show_error(self.w, "Cannot retarget", message)


def _root_text(result) -> str:
    root = result.options.root
    return f"x{result.leg_ratio:.3f} (leg ratio)" if root == "scaled" else "kept as is" if root == "kept" else "in place"


def install_retarget_action(window: MainWindow) -> tuple[RetargetController, QAction]:
    """File > Retarget onto This Rig… (after Import), and the controller behind it."""
    ctl = RetargetController(window)
    action = QAction("&Retarget onto This Rig…", window)
    action.triggered.connect(lambda _c=False: ctl.retarget_dialog())
    window.file_menu.insertAction(window.action_export, action)
    return ctl, action
