"""File > Import (BVH, glTF) and File > Export Baked BVH for the main window.

Import reads the file, proposes chains (the dialog lets the user keep, rename and re-solve
them) and opens the result as a new, untitled rig with the file's animation under the IK.
Export bakes the rig's IK over its clip, with a progress dialog that can cancel, and writes
BVH: in the imported file's hierarchy, channel orders, units and axes when the rig came from
a BVH import, in metres with default channels otherwise.

Nothing here raises to the caller: failures are shown in the editor's error dialog, and the
editor keeps the rig (and the file on disk) it had.

Automation surface: `window.importer.import_file(path, ask=False)` and
`window.importer.export_bvh(path)`, the actions `window.action_import` and
`window.action_export_bvh`.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QProgressDialog

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import BakeCancelled, bake
from rigedit.core.rig import Rig
from rigedit.io.bvh import BvhLayout, read_bvh, write_bvh
from rigedit.io.gltf import read_gltf
from rigedit.io.gltf_mesh import read_gltf_mesh

from . import dialogs
from .import_dialog import ChainProposalDialog

if TYPE_CHECKING:
    from .main_window import MainWindow

IMPORT_FILTER = "Motion and characters (*.bvh *.glb *.gltf);;BVH (*.bvh);;glTF (*.glb *.gltf);;All files (*)"
EXPORT_FILTER = "BVH (*.bvh);;All files (*)"
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
        # The BVH layout of the imported rig, for writing it back the way it came.
        self._layout_for: tuple[Rig, BvhLayout] | None = None
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
            skeleton, clip, layout, summary, gltf = _read(path, up)
            proposals = propose_chains(skeleton, skeleton.rest_pose() if clip is None else clip.frame(0))
            read.update(skeleton=skeleton, clip=clip, layout=layout, summary=summary, gltf=gltf)
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
        skeleton, clip, layout, summary = read["skeleton"], read["clip"], read["layout"], read["summary"]
        try:
            rig = Rig(skeleton, clip=clip, name=path.stem)
            for c in proposals:
                rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)
        except ValueError as e:
            self._fail("Cannot import", f"{path}: {e}")
            return False
        self._layout_for = (rig, layout) if layout is not None else None
        mesh, note = _mesh_of(path, read["gltf"])
        if note:
            summary = f"{summary}; {note}"
        self.w.document.replace_rig(rig, None, mesh)
        self.last_summary = summary
        self.last_error = None
        self.w.statusBar().showMessage(f"Imported {path.name}: {len(proposals)} chains; {summary}", 10_000)
        return True

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        start = f"{self.w.document.rig.name or 'rig'}_baked.bvh"
        path, _ = QFileDialog.getSaveFileName(self.w, "Export baked BVH", start, EXPORT_FILTER)
        if path:
            if not Path(path).suffix:
                path += ".bvh"
            self.export_bvh(path)

    def export_bvh(self, path: str | Path) -> bool:
        """Bake the rig over its clip (the rest pose over the timeline when it has none) and write BVH."""
        rig = self.w.document.rig
        layout = self._layout_for[1] if self._layout_for and self._layout_for[0] is rig else None
        self.progress = QProgressDialog("Baking IK over the clip…", "Cancel", 0, 100, self.w)
        self.progress.setObjectName("bakeProgress")
        self.progress.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress.setMinimumDuration(PROGRESS_DELAY_MS)
        self.progress.setAutoClose(False)
        self.progress.setAutoReset(False)
        try:
            result = bake(rig, progress=self._step)
            write_bvh(path, rig.skeleton, result.clip, layout)
        except BakeCancelled:
            self.w.statusBar().showMessage("Export cancelled; nothing was written", 8000)
            return False
        except Exception as e:  # the writer is atomic: an old file at `path` is still whole
            self._fail("Cannot export BVH", f"{path}: {e}" if str(path) not in str(e) else str(e))
            return False
        finally:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        self.last_error = None
        self.w.statusBar().showMessage(f"Exported {Path(path).name}: {result.clip.n_frames} frames", 8000)
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
    """(skeleton, clip or None, BVH layout or None, one-line summary, GltfImport or None)."""
    ext = path.suffix.lower()
    if ext == ".bvh":
        imp = read_bvh(path, up_axis=up)
        return imp.skeleton, imp.clip, imp.layout, imp.summary(), None
    if ext in (".glb", ".gltf"):
        imp = read_gltf(path, up_axis=up)
        turned = [w for w in imp.warnings if w.startswith("turned")]
        return imp.skeleton, imp.clip, None, "; ".join([imp.summary()] + turned), imp
    raise ValueError(f"{path}: rigedit imports .bvh, .glb and .gltf files")


def _mesh_of(path: Path, gltf) -> tuple[object, str]:
    """The glTF character's mesh bound to the imported skeleton, and a note for the status
    line. A mesh that cannot be read leaves the rig as bones only: the note says why."""
    if gltf is None:
        return None, ""
    try:
        got = read_gltf_mesh(path, gltf)
    except ValueError as e:
        return None, f"mesh not shown: {e}"
    if got.mesh is None:
        return None, ""
    return got.mesh, "; ".join([f"mesh of {len(got.mesh)} vertices"] + got.warnings)


def install_import_actions(window: "MainWindow") -> ImportController:
    """Add File > Import… and File > Export Baked BVH… (above Save) and `window.importer`."""
    ctl = ImportController(window)
    window.importer = ctl
    menu = window.file_menu
    before = window.action_save
    window.action_import = QAction("&Import BVH / glTF…", window)
    window.action_import.setShortcut("Ctrl+I")
    window.action_import.triggered.connect(lambda _c=False: ctl.import_dialog())
    window.action_export_bvh = QAction("&Export Baked BVH…", window)
    window.action_export_bvh.setShortcut("Ctrl+E")
    window.action_export_bvh.triggered.connect(lambda _c=False: ctl.export_dialog())
    menu.insertAction(before, window.action_import)
    menu.insertAction(before, window.action_export_bvh)
    menu.insertSeparator(before)
    return ctl
