"""File > Import and File > Export (every format of io/formats.py's table) for the main window.

Import reads the file, proposes chains (the dialog lets the user keep, rename and re-solve
them) and opens the result as a new, untitled rig with the file's animation under the IK.
Export bakes the rig's IK over its clip, with a progress dialog that can cancel, and writes
the format the file name's suffix names (io/export.py): glTF into a copy of the imported
glTF document (its meshes, skins and animations kept), USD as a UsdSkel skeleton, BVH in the
imported BVH's hierarchy, channel orders, units, axes and angles (also for a saved rig whose
clip came from a BVH file), in metres otherwise.

A glTF file's animation is chosen in the dialog (or given: `animation=` a name or an index).
The file dialog starts in the folder of the last import, and every import goes into File >
Open Recent with the up axis and animation it was read with (rigedit/app/recent.py reads
it again that way).

Nothing here raises to the caller: failures are shown in the editor's error dialog, and the
editor keeps the rig (and the file on disk) it had.

Automation surface: `window.importer.import_file(path, ask=False, up=..., animation=...)` and
`window.importer.export_file(path)` (`export_bvh` is the older name), the actions
`window.action_import` and `window.action_export`.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QProgressDialog

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import BakeCancelled
from rigedit.core.character import CharacterRef
from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.rig import Rig
from rigedit.io import formats
from rigedit.io.clip_source import bvh_layout
from rigedit.io.export import ExportSource, export_rig
from rigedit.io.gltf_mesh import read_gltf_mesh
from rigedit.io.loaded import Loaded, load, read_gltf_source

from . import dialogs, settings
from .export_dialog import ask_export_path
from .import_dialog import ChainProposalDialog

if TYPE_CHECKING:
    from .main_window import MainWindow

IMPORT_FILTER = formats.dialog_filter(formats.IMPORTS, "Motion and characters")
EXPORT_FILTER = formats.dialog_filter(formats.EXPORTS)
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
        # Off for runs that should leave no trace in the user's settings (a --screenshot run):
        # no Open Recent entry, no remembered folder.
        self.remember = True
        self.last_summary: str = ""
        # Why the last import shows no mesh ("" when it shows one or the file has none).
        self.last_mesh_note: str = ""
        # How the last import was read: {"up": ..., "animation": name or index or None}.
        self.last_options: dict | None = None
        # What the imported rig was read from, for writing it back the way it came.
        self._source_for: tuple[Rig, ExportSource] | None = None
        self.progress: QProgressDialog | None = None

    # --- import ------------------------------------------------------------------------------

    def import_dialog(self) -> None:
        if not self.w.files.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self.w, "Import motion or character", settings.last_folder("import"), IMPORT_FILTER)
        if path:
            settings.set_last_folder("import", Path(path).parent)
            self.import_file(path)

    def import_file(self, path: str | Path, *, ask: bool = True, up: str = "auto", animation: int | str | None = None) -> bool:
        """Read `path`, propose chains (asking, unless ask=False), and edit the result.

        up: the file's up axis ("auto" guesses). animation: a glTF's animation by name or
        index (None: the first); the dialog offers the others.
        """
        path = Path(path)
        read: dict = {}

        def reread(up: str, animation=animation):
            """Read (again) with this up axis and animation: the dialog's overrides."""
            r = read_for_editing(path, up, animation)
            proposals = propose_chains(r.skeleton, r.skeleton.rest_pose() if r.clip is None else r.clip.frame(0))
            read.update(read=r, up=up)
            return proposals, f"{path.name}: {status_line(r)}"

        try:
            proposals, head = reread(up)
            anims = [(a.label, a.duration) for a in animations_in(path)]
        except Exception as e:  # BvhError / GltfError name file, line or field; nothing else may escape either
            message = str(e)
            self._fail("Cannot import", message if str(path) in message else f"{path}: {message}")
            return False
        if ask:
            first = read["read"].animation_index or 0
            dialog = ChainProposalDialog(proposals, head, self.w, up_axis=up, reread=reread, animations=anims, animation=first)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            proposals = dialog.chains()
        r: Loaded = read["read"]
        skeleton, clip, source, summary = r.skeleton, r.clip, r.source, status_line(r)
        try:
            rig = Rig(skeleton, clip=clip, name=path.stem)
            for c in proposals:  # following the clip: it plays as recorded until a goal moves
                rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(clip))
        except ValueError as e:
            self._fail("Cannot import", f"{path}: {e}")
            return False
        if r.gltf is not None:  # saved with the rig, so that opening it shows the mesh again
            rig.character = CharacterRef(str(path.resolve()), read["up"])
        self._source_for = (rig, source)
        mesh, note = _mesh_of(path, r.gltf)
        if note:
            summary = f"{summary}; {note}"
        self.w.document.replace_rig(rig, None, mesh)
        self.last_summary = summary
        self.last_mesh_note = note if mesh is None else ""
        self.last_error = None
        # A name survives the file being re-exported with its animations in another order;
        # an index is kept where the name is missing or not the only one of its kind.
        chosen = r.animation_index
        if r.animation_name and [label for label, _ in anims].count(r.animation_name) == 1:
            chosen = r.animation_name
        self.last_options = {"up": read["up"], "animation": chosen}
        if self.remember:
            settings.add_recent_file(path, self.last_options)
            settings.set_last_folder("import", path.parent)
            self.w.refresh_recent_menu()
        self.w.statusBar().showMessage(f"Imported {path.name}: {len(proposals)} chains; {summary}", 10_000)
        return True

    def character_of(self, rig: Rig):
        """The mesh of an opened rig's character (rig.character), bound to its skeleton, and a
        note for the status line; (None, note) when the file is gone, unreadable or no longer
        the skeleton's. The rig opens either way: the mesh is a view of it, not part of it."""
        ref = rig.character
        if ref is None:
            return None, ""
        path = Path(ref.path)
        if not path.is_file():
            return None, f"mesh not shown: {path} is not there any more"
        try:
            imp, gltf = read_gltf_source(path, up=ref.up_axis, animation=None)
        except Exception as e:  # GltfError names the field; the rig must open regardless
            return None, f"mesh not shown: {e}"
        if list(imp.skeleton.names) != list(rig.skeleton.names):
            return None, f"mesh not shown: {path.name}'s joints are no longer this rig's skeleton"
        self._source_for = (rig, ExportSource(str(path), gltf=gltf))
        return _mesh_of(path, imp)

    # --- export ------------------------------------------------------------------------------

    def export_dialog(self) -> None:
        rig = self.w.document.rig
        source = self._source(rig)
        fmt = _export_format(source)
        folder = Path(settings.last_folder("export") or Path.cwd())
        path = ask_export_path(self.w, folder / f"{rig.name or 'rig'}_baked{fmt.suffixes[0]}", EXPORT_FILTER)
        if path is not None:
            if self.remember:
                settings.set_last_folder("export", path.parent)
            self.export_file(path)

    def _source(self, rig: Rig) -> ExportSource:
        if self._source_for and self._source_for[0] is rig:
            return self._source_for[1]
        # A saved rig whose clip came from a BVH file is written back in that file's layout.
        layout = bvh_layout(rig.clip.source) if rig.clip is not None else None
        return ExportSource(bvh_layout=layout)

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
        self.w.statusBar().showMessage(f"Exported {report.format}, {report.frames} frames, to {Path(path).resolve()}", 10_000)
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


def read_for_editing(path: Path, up: str = "auto", animation: int | str | None = None) -> Loaded:
    """The file as File > Import reads it, by its format's reader (io/formats.py)."""
    return load(path, up=up, animation=animation)


def animations_in(path: Path) -> list:
    """The animations of a file that may hold several (io/formats.py), else none to choose."""
    fmt = formats.of(path, formats.IMPORTS)
    return fmt.animation_lister()(path) if fmt is not None and fmt.animations else []


def status_line(r: Loaded) -> str:
    return "; ".join([r.summary] + r.notes)


def _export_format(source: ExportSource) -> formats.Format:
    """What File > Export offers first: the format the rig was imported from where rigedit
    writes it, a BVH clip's BVH, else glTF."""
    came_from = formats.of(source.path, formats.EXPORTS) if source.path else None
    if came_from is not None:
        return came_from
    return formats.BVH if source.bvh_layout is not None else formats.GLTF


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
        return None, "; ".join(got.warnings)  # e.g. why a compressed mesh is not shown
    return got.mesh, "; ".join([f"mesh of {len(got.mesh)} vertices"] + got.warnings)


class ImportActions(NamedTuple):
    importer: ImportController
    action_import: QAction
    action_export: QAction


def install_import_actions(window: "MainWindow") -> ImportActions:
    """File > Import… and File > Export… (above Save), and the controller behind them."""
    ctl = ImportController(window)
    menu = window.file_menu
    before = window.action_save
    action_import = QAction(f"&Import {' / '.join(f.name for f in formats.IMPORTS)}…", window)
    action_import.setShortcut("Ctrl+I")
    action_import.triggered.connect(lambda _c=False: ctl.import_dialog())
    action_export = QAction(f"&Export ({', '.join(f.name for f in formats.EXPORTS)})…", window)
    action_export.setShortcut("Ctrl+E")
    action_export.triggered.connect(lambda _c=False: ctl.export_dialog())
    menu.insertAction(before, action_import)
    menu.insertAction(before, action_export)
    menu.insertSeparator(before)
    return ImportActions(ctl, action_import, action_export)
