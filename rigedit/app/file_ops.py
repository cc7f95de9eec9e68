"""File > New / Open / Save / Save As, recent files, autosave and recovery, for the main window.

Nothing here raises to the caller: a failure is shown in an error dialog (the PresetError text
names the file, the JSON field and the problem) and the editor keeps the rig it had.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QFileDialog

from rigedit import Rig
from rigedit.io import formats
from rigedit.io.preset import bundled_presets

from . import dialogs, recovery, settings

if TYPE_CHECKING:
    from .main_window import MainWindow

AUTOSAVE_MS = 60_000
FILTER = formats.dialog_filter([formats.PRESET])


class FileController(QObject):
    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.w = window
        self.doc = window.document
        self.last_error: str | None = None
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

    @property
    def display_name(self) -> str:
        return self.doc.path.name if self.doc.path else f"{self.doc.rig.name or 'untitled'} (unsaved)"

    # --- the public actions (no file dialogs) -------------------------------------------------

    def open_preset(self, path: str | Path) -> bool:
        path = Path(path)
        try:
            rig = Rig.load(path)
        except Exception as e:  # PresetError above all; never let a bad file take the editor down
            self._fail("Cannot open rig", str(e), "The rig you were editing is unchanged.")
            return False
        mesh, note = self.w.importer.character_of(rig)
        self.doc.replace_rig(rig, path, mesh)
        settings.add_recent_file(path)
        self.w.refresh_recent_menu()
        self.last_error = None
        parts = [f"Opened {path.name}"] + ([f"clip: {rig.clip.describe()}"] if rig.clip is not None else []) + ([note] if note else [])
        if len(parts) > 1:
            self.w.statusBar().showMessage("; ".join(parts), 10_000)
        return True

    def save_preset(self, path: str | Path) -> bool:
        path = Path(path)
        try:
            self.doc.rig.save(path)
        except Exception as e:  # the preset writer is atomic: the old file is still whole
            self._fail("Cannot save rig", f"{path}: {e}" if str(path) not in str(e) else str(e),
                       "Nothing was lost: the file on disk is as it was, and the rig is still open, unsaved.")
            return False
        old_path = self.doc.path
        self.doc.path = path
        self.doc.mark_saved()
        recovery.discard_recovery(old_path)
        recovery.discard_recovery(path)
        settings.add_recent_file(path)
        self.w.refresh_recent_menu()
        self.last_error = None
        return True

    def new_from(self, preset: str | Path) -> bool:
        """A bundled rig as a new, untitled document (Save asks where, never over the bundle)."""
        try:
            rig = Rig.load(preset)
        except Exception as e:
            self._fail("Cannot create rig", str(e))
            return False
        self.doc.replace_rig(rig, None)
        return True

    def _fail(self, title: str, message: str, reassurance: str = "") -> None:
        self.last_error = message
        dialogs.show_error(self.w, title, message, reassurance)

    # --- the menu actions (with dialogs) ------------------------------------------------------

    def maybe_save(self) -> bool:
        """Ask about unsaved changes; True when it is fine to throw the current rig away."""
        if not self.doc.modified:
            return True
        answer = dialogs.ask_save_changes(self.w, self.display_name)
        if answer == dialogs.Button.Save:
            return self.save()
        if answer == dialogs.Button.Discard:
            recovery.discard_recovery(self.doc.path)
            return True
        return False

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        start = str(self.doc.path.parent) if self.doc.path else ""
        path, _ = QFileDialog.getOpenFileName(self.w, "Open rig", start, FILTER)
        if path:
            self.open_preset(path)

    def open_recent(self, path: str) -> None:
        if self.maybe_save():
            self.open_preset(path)

    def new_dialog(self, preset: Path) -> None:
        if self.maybe_save():
            self.new_from(preset)

    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        return self.save_preset(self.doc.path)

    def save_as(self) -> bool:
        start = str(self.doc.path) if self.doc.path else f"{self.doc.rig.name or 'rig'}.json"
        path, _ = QFileDialog.getSaveFileName(self.w, "Save rig as", start, FILTER)
        if not path:
            return False
        if not Path(path).suffix:
            path += formats.PRESET.suffixes[0]
        return self.save_preset(path)

    @staticmethod
    def bundled() -> list[Path]:
        return bundled_presets()

    # --- autosave and recovery ---------------------------------------------------------------

    def autosave(self) -> Path | None:
        if not self.doc.modified:
            return None
        try:
            return recovery.write_recovery(self.doc.rig, self.doc.path)
        except Exception as e:  # autosave must never interrupt the user; say so quietly
            self.w.statusBar().showMessage(f"Autosave failed: {e}", 10_000)
            return None

    def offer_recovery(self) -> bool:
        """At start: if a recovery file newer than the rig's file exists, offer to restore it."""
        rec = recovery.pending_recovery(self.doc.path)
        if rec is None:
            return False
        when = datetime.datetime.fromtimestamp(rec.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        if not dialogs.ask_restore(self.w, self.display_name, when):
            recovery.discard_recovery(self.doc.path)
            return False
        try:
            rig = Rig.load(rec)
        except Exception as e:
            self._fail("Cannot restore", str(e))
            return False
        self.doc.replace_rig(rig, self.doc.path, self.w.importer.character_of(rig)[0])
        self.doc.mark_restored()
        return True
