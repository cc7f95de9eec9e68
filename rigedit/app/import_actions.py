"""File > Import (BVH, glTF) and File > Export (glTF, USD, BVH) for the main window.

Import reads the file, proposes chains (the dialog lets the user keep, rename and re-solve
them) and opens the result as a new, untitled rig with the file's animation under the IK.
Export bakes the rig's IK over its clip, with a progress dialog that can cancel, and writes
the format the file name's suffix names (io/export.py): glTF into a copy of the imported
glTF document (its meshes, skins and animations kept), USD as a UsdSkel skeleton, BVH in the
imported BVH's hierarchy, channel orders, units, axes and angles, in metres otherwise.

Nothing here raises to the caller: failures are shown in the editor's error dialog, and the
editor keeps the rig (and the file on disk) it had.

Automation surface: `window.importer.import_file(path, ask=False)` and
`window.importer.export_file(path)` (`export_bvh` is the older name), the actions
`window.action_import` and `window.action_export` (also `window.action_export_bvh`).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QProgressDialog

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import BakeCancelled
from rigedit.core.rig import Rig
from rigedit.io.bvh import read_bvh
from rigedit.io.export import ExportSource, bvh_source, export_rig, read_gltf_source

from . import dialogs
from .import_dialog import ChainProposalDialog

if TYPE_CHECKING:
    from .main_window import MainWindow

IMPORT_FILTER = "Motion and characters (*.bvh *.glb *.gltf);;BVH (*.bvh);;glTF (*.glb *.gltf);;All files (*)"
EXPORT_FILTER = "glTF (*.glb *.gltf);;USD (*.usd *.usda *.usdc);;BVH (*.bvh);;All files (*)"
# A bake shorter than this shows no progress dialog at all (the CMU walk takes ~0.1 s).
PROGRESS_DELAY_MS = 400


class ImportController(QObject):
    def __init__(self, window: "MainWindow") -> None:
        super().__init__(window)
        self.w = window
        self.last_error: str | None = None
        # Off where no one could answer a dialog (a --screenshot run): the failure is still
        # kept in last_error for the caller to report.
        self.show_errors = True
        self.last_summary: str = ""
        # What the imported rig was read from, for writing it back the way it came.
        self._source_for: tuple[Rig, ExportSource] | None = None
        self.progress: QProgressDialog | None = None

    # --- import ------------------------------------------------------------------------------

    def import_dialog(self) -> None:
        if not self.w.files.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self.w, "Import motion or character", "", IMPORT_FILTER)
        if path:
            self.import_file(path)

    def import_file(self, path: str | Path, *, ask: bool = True) -> bool:
        """Read `path`, propose chains (asking, unless ask=False), and edit the result."""
        path = Path(path)
        read: dict = {}

        def reread(up: str):
            """Read (again) with this up axis: the dialog's override."""
            skeleton, clip, source, summary = _read(path, up)
            proposals = propose_chains(skeleton, skeleton.rest_pose() if clip is None else clip.frame(0))
            read.update(skeleton=skeleton, clip=clip, source=source, summary=summary)
            return proposals, f"{path.name}: {summary}"

        try:
            proposals, head = reread("auto")
        except Exception as e:  # BvhError / GltfError name file, line or field; nothing else may escape either
            message = str(e)
            self._fail("Cannot import", message if str(path) in message else f"{path}: {message}")
            return False
        if ask:
            dialog = ChainProposalDialog(proposals, head, self.w, reread=reread)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            proposals = dialog.chains()
        skeleton, clip, source, summary = read["skeleton"], read["clip"], read["source"], read["summary"]
        try:
            rig = Rig(skeleton, clip=clip, name=path.stem)
            for c in proposals:
                rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
        except ValueError as e:
            self._fail("Cannot import", f"{path}: {e}")
            return False
        self._source_for = (rig, source)
        self.w.document.replace_rig(rig, None)
        self.last_summary = summary
        self.last_error = None
        self.w.statusBar().showMessage(f"Imported {path.name}: {len(proposals)} chains; {summary}", 10_000)
        return True

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        rig = self.w.document.rig
        source = self._source(rig)
        suffix = ".bvh" if source.bvh_layout is not None else ".glb"
        path, chosen = QFileDialog.getSaveFileName(self.w, "Export", f"{rig.name or 'rig'}_baked{suffix}", EXPORT_FILTER)
        if path:
            if not Path(path).suffix:
                path += {"glTF": ".glb", "USD": ".usdc", "BVH": ".bvh"}.get(chosen.split(" ")[0], suffix)
            self.export_file(path)

    def _source(self, rig: Rig) -> ExportSource:
        return self._source_for[1] if self._source_for and self._source_for[0] is rig else ExportSource()

    def export_bvh(self, path: str | Path) -> bool:
        """The older name of export_file (which writes BVH, glTF or USD by the suffix)."""
        return self.export_file(path)

    def export_file(self, path: str | Path) -> bool:
        """Bake the rig over its clip (its current pose when it has none) and write `path`."""
        rig = self.w.document.rig
        self.progress = QProgressDialog("Baking IK over the clip…", "Cancel", 0, 100, self.w)
        self.progress.setObjectName("bakeProgress")
        self.progress.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress.setMinimumDuration(PROGRESS_DELAY_MS)
        self.progress.setAutoClose(False)
        self.progress.setAutoReset(False)
        try:
            report = export_rig(rig, path, self._source(rig), progress=self._step)
        except BakeCancelled:
            self.w.statusBar().showMessage("Export cancelled; nothing was written", 8000)
            return False
        except Exception as e:  # the writer is atomic: an old file at `path` is still whole
            self._fail("Cannot export", f"{path}: {e}" if str(path) not in str(e) else str(e))
            return False
        finally:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        self.last_error = None
        self.w.statusBar().showMessage(f"Exported {Path(path).name}: {report.format}, {report.frames} frames", 8000)
        return True

    def _step(self, done: int, total: int) -> bool:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        QApplication.processEvents()
        return not self.progress.wasCanceled()

    def _fail(self, title: str, message: str) -> None:
        self.last_error = message
        if self.show_errors:
            dialogs.show_error(self.w, title, message)


def _read(path: Path, up: str = "auto"):
    """(skeleton, clip or None, what an export needs of the file, one-line summary)."""
    ext = path.suffix.lower()
    if ext == ".bvh":
        imp = read_bvh(path, up_axis=up)
        return imp.skeleton, imp.clip, bvh_source(path, imp.layout), imp.summary()
    if ext in (".glb", ".gltf"):
        imp, gltf = read_gltf_source(path, up=up)
        turned = [w for w in imp.warnings if w.startswith("turned")]
        return imp.skeleton, imp.clip, ExportSource(str(path), gltf=gltf), "; ".join([imp.summary()] + turned)
    raise ValueError(f"{path}: rigedit imports .bvh, .glb and .gltf files")


def install_import_actions(window: "MainWindow") -> ImportController:
    """Add File > Import… and File > Export… (above Save) and `window.importer`."""
    ctl = ImportController(window)
    window.importer = ctl
    menu = window.file_menu
    before = window.action_save
    window.action_import = QAction("&Import BVH / glTF…", window)
    window.action_import.setShortcut("Ctrl+I")
    window.action_import.triggered.connect(lambda _c=False: ctl.import_dialog())
    window.action_export = window.action_export_bvh = QAction("&Export (glTF, USD, BVH)…", window)
    window.action_export_bvh.setShortcut("Ctrl+E")
    window.action_export_bvh.triggered.connect(lambda _c=False: ctl.export_dialog())
    menu.insertAction(before, window.action_import)
    menu.insertAction(before, window.action_export_bvh)
    menu.insertSeparator(before)
    return ctl
