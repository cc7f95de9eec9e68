"""The editor's main window: viewport in the middle, property and timeline docks, menus,
status bar, and the solver thread behind it all.

Automation surface (DESIGN.md): `window.rig`, `window.viewport.world_to_screen(xyz)`,
`window.undo_stack`, `window.open_preset(path)`, `window.save_preset(path)`; objectNames
`viewport`, `properties`, `chainSelector`, `blendWeight`, `timeline`, `lint`.

Plug-ins from other parts of the app, each optional (the window works without them):
- `rigedit/app/timeline_dock.py`: `create_timeline_widget(window) -> QWidget` fills the
  `timeline` dock (the window's `document` has `set_time`, `set_clip`, `edit_chain`,
  `set_chain_live` and the signals); without it the dock holds a placeholder.
- `rigedit/app/import_actions.py`: `install_import_actions(window)` adds its File menu items
  (`window.file_menu`, `window.action_save` to insert before).
- `rigedit/app/retarget_action.py`: File > Retarget onto This Rig… (after Import; not optional).
A plug-in that fails to load is reported on stderr and left out; the editor still opens.
"""
from __future__ import annotations

import importlib
import sys
import traceback
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from rigedit import Rig

from . import settings
from .document import Document
from .file_ops import FileController
from .lint_panel import install_lint_panel
from .lint_state import LintState
from .menus import build_menus, fill_recent
from .properties_dock import PropertiesDock
from .retarget_action import install_retarget_action
from .solver_thread import Goals, Solution, SolverThread
from .status import StatusReadout
from .viewport import Viewport


class MainWindow(QMainWindow):
    def __init__(self, rig: Rig | None = None, path: str | Path | None = None, *, keep_layout: bool = True) -> None:
        """keep_layout=False neither restores nor saves the window layout (screenshots want
        the same layout every time)."""
        super().__init__()
        self.setObjectName("mainWindow")
        self.document = Document(rig if rig is not None else Rig.default(), path, self)
        self.undo_stack = self.document.undo_stack
        self.solver = SolverThread(self)
        self.solver.worker.solved.connect(self._solved)
        # Bound methods of this window, not lambdas: a lambda has no thread of its own, so Qt
        # would call it in the solver thread; a method of a QObject is queued to the GUI thread.
        self.solver.worker.failed.connect(self._solver_failed)
        self.solves = 0
        self.posted_serial = 0  # goals posted so far
        self.solved_serial = 0  # the newest goals whose pose the window has applied

        self.viewport = Viewport(self.document, self)
        self.setCentralWidget(self.viewport.container)  # the GL window's widget (view.py says why)
        self.properties = PropertiesDock(self.document, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.properties)
        self.properties.panel.problem.connect(lambda msg: self.statusBar().showMessage(msg, 8000))
        self.viewport.dragging.connect(self.properties.panel.set_dragging)
        self.lint = LintState(self.document, self)  # the clip's lint findings: the Lint dock's and the timeline's
        self.timeline_dock = QDockWidget("Timeline", self)
        self.timeline_dock.setObjectName("timeline")
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.timeline_dock)
        self._install_timeline()

        self.keep_layout = keep_layout
        self.files = FileController(self)
        build_menus(self)
        self._plugin("import_actions", "install_import_actions", self)
        install_retarget_action(self)
        self.panels_menu.addAction(self.properties.toggleViewAction())
        self.panels_menu.addAction(self.timeline_dock.toggleViewAction())
        self.lint_dock = install_lint_panel(self)
        self.status = StatusReadout(self.statusBar(), self.document, lambda: self.solves, lambda: self.viewport.frames)

        self.document.goals_changed.connect(self.post_goals)
        self.document.rig_replaced.connect(self._post_rig)
        self.document.animation_changed.connect(self._post_rig)
        self.document.restart_solver.connect(self._post_rig)
        self.document.clip_edited.connect(self._post_rig)
        self.document.path_changed.connect(self._update_title)
        self.document.modified_changed.connect(self.setWindowModified)
        self.document.rig_replaced.connect(self.viewport.reset_camera)

        self.resize(1280, 800)
        self.fit_docks()
        if keep_layout:
            self._restore_layout()
        self._update_title()
        self._post_rig()
        self.lint.run()

    # --- automation surface ------------------------------------------------------------------

    @property
    def rig(self) -> Rig:
        return self.document.rig

    def open_preset(self, path: str | Path) -> bool:
        """File > Open without the file dialog; a failure shows a dialog and keeps the old rig."""
        return self.files.open_preset(path)

    def save_preset(self, path: str | Path) -> bool:
        """File > Save As without the file dialog; a failure shows a dialog and loses nothing."""
        return self.files.save_preset(path)

    def offer_recovery(self) -> bool:
        return self.files.offer_recovery()

    # --- solver ------------------------------------------------------------------------------

    def goals(self) -> Goals:
        doc = self.document
        return Goals(doc.generation, doc.goals(), doc.selected, doc.rig.time, self.posted_serial, doc.body_goal,
                     doc.rig.full_body)

    def post_goals(self) -> None:
        self.posted_serial += 1
        self.solver.post(self.goals())

    def solver_caught_up(self) -> bool:
        """The pose shown answers the newest goals posted."""
        return self.solved_serial == self.posted_serial

    def _post_rig(self) -> None:
        self.solver.post_rig(self.document.rig.copy(), self.document.generation)
        self.post_goals()

    def _solver_failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Solver: {message}", 8000)

    def _solved(self, s: Solution) -> None:
        if self.document.apply_solution(s.generation, s.pose, s.reports, s.errors, s.solved):
            self.solves += 1
            self.solved_serial = max(self.solved_serial, s.serial)

    # --- window ------------------------------------------------------------------------------

    def _plugin(self, module: str, function: str, *args):
        """Call rigedit.app.MODULE.FUNCTION(*args) if that module exists; None if not or if it fails."""
        try:
            mod = importlib.import_module(f".{module}", __package__)
        except ModuleNotFoundError as e:
            if e.name == f"{__package__}.{module}":
                return None
            mod = e
        try:
            if isinstance(mod, Exception):
                raise mod
            fn = getattr(mod, function, None)
            return fn(*args) if fn is not None else None
        except Exception:
            print(f"rigedit: the {module} plug-in failed and is left out:", file=sys.stderr)
            traceback.print_exc()
            return None

    def _install_timeline(self) -> None:
        widget: QWidget | None = self._plugin("timeline_dock", "create_timeline_widget", self)
        if widget is None:
            widget = QLabel("Timeline: blend-weight keys will appear here.")
            widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
            widget.setMinimumHeight(60)
        self.timeline_dock.setWidget(widget)

    def fit_docks(self) -> None:
        """Default dock sizes for the window's size: the viewport is what the user works in."""
        self.resizeDocks([self.properties], [min(430, int(0.36 * self.width()))], Qt.Orientation.Horizontal)
        self.resizeDocks([self.timeline_dock], [110], Qt.Orientation.Vertical)
        # The Lint list under the properties: a few rows; the properties keep most of the height.
        self.resizeDocks([self.properties, self.lint_dock], [int(0.45 * self.height()), int(0.25 * self.height())],
                         Qt.Orientation.Vertical)

    def refresh_recent_menu(self) -> None:
        fill_recent(self)

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.files.display_name}[*] — rigedit")
        self.setWindowModified(self.document.modified)

    def _restore_layout(self) -> None:
        s = settings.settings()
        geometry = s.value("geometry")
        state = s.value("windowState")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)

    def _save_layout(self) -> None:
        s = settings.settings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        s.sync()

    def closeEvent(self, ev) -> None:  # noqa: N802
        self.viewport.cancel_drag()
        if not self.files.maybe_save():
            ev.ignore()
            return
        if self.keep_layout:
            self._save_layout()
        self.shutdown()
        ev.accept()

    def shutdown(self) -> None:
        """Stop timers and join the solver thread (closing the window does this)."""
        self.files.autosave_timer.stop()
        self.status.timer.stop()
        self.status._chain_timer.stop()
        self.solver.stop()
        try:
            self.document.rig_replaced.disconnect(self.viewport.reset_camera)
        except (RuntimeError, TypeError):
            pass
        self.viewport.dispose()
