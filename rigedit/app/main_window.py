"""The editor's main window: viewport in the middle, docks around it, menus, status bar, and
the solver thread behind it all.

Automation surface (scripts and tests): `window.rig`, `window.viewport.world_to_screen(xyz)`,
`window.undo_stack`, `window.open_preset(path)`, `window.save_preset(path)`, `window.document`,
`window.viewport.select_joint(name)` and `window.document.selected_joints`;
objectNames `viewport`, `properties`, `chainSelector`, `blendWeight`, `timeline`, `lint`, `poseKeys`
(the timeline's row of pose keys), `keyPose`, `poseLibrary`.

Every part of the window is a field declared below and set once, in __init__: modules build
the parts and hand them back (menus.py, help_menu.py, lint_panel.py, import_actions.py,
retarget_action.py); the docks come from the list in docks.py, each into the field its entry
names. A part that fails to build stops the window from opening, with the part named.
"""
from __future__ import annotations

import inspect
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMenu

from rigedit import Rig

from . import docks, help_menu, settings
from .chain_edit import ChainEdit, install_chain_edit
from .docks import Dock
from .document import Document
from .file_ops import FileController
from .import_actions import ImportController, install_import_actions
from .lint_panel import build_clip_menu
from .lint_state import LintState
from .menus import build_menus, fill_recent
from .motion_overlays import MotionOverlays
from .pose_tools import PoseTools, install_pose_tools
from .retarget_action import RetargetController, install_retarget_action
from .solver_thread import Goals, Solution, SolverThread
from .status import StatusReadout
from .viewport import Viewport


class MainWindow(QMainWindow):
    # --- the window's parts, in the order __init__ makes them --------------------------------
    document: Document  # the rig being edited, its selection, undo stack and signals
    undo_stack: QUndoStack  # the document's
    viewport: Viewport  # the central 3D view
    motion: MotionOverlays  # View > Onion Skin and Motion Trails, and their thread (started on first use)
    lint: LintState  # the clip's lint findings: the Lint dock's and the timeline's
    files: FileController  # New / Open / Save, Open Recent, autosave and recovery
    # menus.py (File, Edit, View, Help)
    file_menu: QMenu
    action_open: QAction
    recent_menu: QMenu
    action_save: QAction
    action_save_as: QAction
    action_quit: QAction
    edit_menu: QMenu
    action_undo: QAction
    action_redo: QAction
    view_menu: QMenu
    action_reset_camera: QAction
    action_frame: QAction
    action_frame_all: QAction
    view_actions: dict[str, QAction]  # View > Viewpoint, by view name ("front", "left", ...)
    navigation_actions: dict[str, QAction]  # View > Navigation, by preset ("blender", "maya")
    action_show_limits: QAction
    action_show_reach: QAction
    action_onion_skin: QAction
    action_onion_settings: QAction
    action_motion_trails: QAction
    view_mode_actions: dict[str, QAction]  # View > Mesh / Bones / Both, by mode
    panels_menu: QMenu  # View > Panels: one entry per dock
    help_menu: QMenu
    action_shortcuts: QAction
    action_about: QAction
    # docks.DOCKS: each entry's dock, in its field
    properties: Dock  # "properties": the selected chain's settings
    timeline_dock: Dock  # "timeline": keys, playhead and playback
    lint_dock: Dock  # "lint": the clip's findings
    pose_library_dock: Dock  # "poseLibrary": saved poses to apply with a blend
    # lint_panel.py: the Clip menu
    clip_menu: QMenu
    action_lint: QAction
    action_fix_selected: QAction
    action_fix_all: QAction
    # import_actions.py and retarget_action.py: File > Import, Export, Retarget
    importer: ImportController
    action_import: QAction
    action_export: QAction
    retargeter: RetargetController
    action_retarget: QAction
    pose_tools: PoseTools  # pose_tools.py: Edit > Key / Copy / Paste / Paste Mirrored / Mirror Pose
    chain_edit: ChainEdit  # chain_edit.py: Edit > Add IK Chain / Remove Chain
    status: StatusReadout  # the status bar's readout
    solver: SolverThread  # made last: nothing above failed, so it will be stopped on close
    # the window's state
    keep_layout: bool  # restore and save the window layout
    solves: int  # solutions applied
    posted_serial: int  # goals posted so far
    solved_serial: int  # the newest goals whose pose the window has applied
    shortcuts_dialog: help_menu.ShortcutsDialog | None  # the last Help > Keyboard Shortcuts opened
    about_dialog: help_menu.AboutDialog | None  # the last Help > About opened

    def __init__(self, rig: Rig | None = None, path: str | Path | None = None, *, keep_layout: bool = True) -> None:
        """keep_layout=False neither restores nor saves the window layout (screenshots want
        the same layout every time)."""
        super().__init__()
        self.setObjectName("mainWindow")
        self.keep_layout = keep_layout
        self.solves = self.posted_serial = self.solved_serial = 0
        self.shortcuts_dialog = self.about_dialog = None

        self.document = Document(rig if rig is not None else Rig.default(), path, self)
        self.undo_stack = self.document.undo_stack
        self.viewport = Viewport(self.document, self)
        self.setCentralWidget(self.viewport.container)  # the GL window's widget (view.py says why)
        self.motion = MotionOverlays(self.document, self.viewport, self)
        self.motion.failed.connect(self._motion_failed)
        self.lint = LintState(self.document, self)
        self.files = FileController(self)
        self._take_menus()
        for spec in docks.DOCKS:
            self._take_dock(spec)
        self.clip_menu, self.action_lint, self.action_fix_selected, self.action_fix_all = build_clip_menu(
            self, self.lint_dock.panel)
        self.importer, self.action_import, self.action_export = install_import_actions(self)
        self.retargeter, self.action_retarget = install_retarget_action(self)
        self.pose_tools = install_pose_tools(self)
        self.chain_edit = install_chain_edit(self)
        self.status = StatusReadout(self.statusBar(), self.document, lambda: self.solves, lambda: self.viewport.frames)
        self.viewport.rotating.connect(self._show_rotating)  # the turn as it goes, as Blender's header
        self.viewport.rotated.connect(self._show_rotated)
        self.solver = SolverThread(self)
        self.status.watch_solver(self.solver.worker.busy_since)
        self.solver.worker.solved.connect(self._solved)
        # Bound methods of this window, not lambdas: a lambda has no thread of its own, so Qt
        # would call it in the solver thread; a method of a QObject is queued to the GUI thread.
        self.solver.worker.failed.connect(self._solver_failed)

        self.document.goals_changed.connect(self.post_goals)
        self.document.rig_replaced.connect(self._post_rig)
        self.document.animation_changed.connect(self._post_rig)
        self.document.restart_solver.connect(self._post_rig)
        self.document.clip_edited.connect(self._post_rig)
        self.document.path_changed.connect(self._update_title)
        self.document.modified_changed.connect(self.setWindowModified)
        self.document.rig_opened.connect(self.viewport.reset_camera)

        self.resize(1280, 800)
        self.fit_docks()
        if keep_layout:
            self._restore_layout()
        self._update_title()
        self._post_rig()
        self.lint.run()

    def _take_menus(self) -> None:
        m = build_menus(self)
        self.file_menu, self.action_open, self.recent_menu = m.file_menu, m.action_open, m.recent_menu
        self.action_save, self.action_save_as, self.action_quit = m.action_save, m.action_save_as, m.action_quit
        self.edit_menu, self.action_undo, self.action_redo = m.edit_menu, m.action_undo, m.action_redo
        self.view_menu, self.action_reset_camera, self.action_frame = m.view_menu, m.action_reset_camera, m.action_frame
        self.action_frame_all = m.action_frame_all
        self.view_actions, self.navigation_actions = m.view_actions, m.navigation_actions
        self.action_show_limits, self.action_show_reach = m.action_show_limits, m.action_show_reach
        self.action_onion_skin, self.action_onion_settings = m.action_onion_skin, m.action_onion_settings
        self.action_motion_trails = m.action_motion_trails
        self.view_mode_actions, self.panels_menu = m.view_mode_actions, m.panels_menu
        self.help_menu, self.action_shortcuts, self.action_about = m.help

    def _take_dock(self, spec: docks.DockSpec) -> None:
        """The dock of `spec` into its declared field, and its entry into View > Panels."""
        if not any(spec.field in inspect.get_annotations(c) for c in type(self).__mro__):
            raise docks.DockBuildError(f"the {spec.title} dock's field {spec.field!r} is not declared on "
                                       f"{type(self).__name__}")
        dock = docks.build_dock(self, spec)
        setattr(self, spec.field, dock)
        self.panels_menu.addAction(dock.toggleViewAction())

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
                     doc.rig.full_body, layer=doc.rig.pose_layer)

    def post_goals(self) -> None:
        self.posted_serial += 1
        self.solver.post(self.goals())

    def solver_caught_up(self) -> bool:
        """The pose shown answers the newest goals posted."""
        return self.solved_serial == self.posted_serial

    def _post_rig(self) -> None:
        self.solver.post_rig(self.document.rig.copy(), self.document.generation)
        self.post_goals()

    def _show_rotating(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()

    def _show_rotated(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _solver_failed(self, message: str) -> None:
        self.statusBar().showMessage(f"Solver: {message}", 8000)

    def _motion_failed(self, message: str) -> None:
        self.statusBar().showMessage(message, 8000)

    def _solved(self, s: Solution) -> None:
        if self.document.apply_solution(s.generation, s.pose, s.reports, s.errors, s.solved):
            self.solves += 1
            self.solved_serial = max(self.solved_serial, s.serial)

    # --- window ------------------------------------------------------------------------------

    def fit_docks(self) -> None:
        """Default dock sizes for the window's size: the viewport is what the user works in."""
        self.resizeDocks([self.properties], [min(430, int(0.36 * self.width()))], Qt.Orientation.Horizontal)
        self.resizeDocks([self.timeline_dock], [110], Qt.Orientation.Vertical)
        # The Lint list (the pose library a tab beside it) under the properties: a few rows;
        # the properties keep most of the height.
        self.resizeDocks([self.properties, self.lint_dock], [int(0.45 * self.height()), int(0.25 * self.height())],
                         Qt.Orientation.Vertical)

    def refresh_recent_menu(self) -> None:
        fill_recent(self)

    def show_shortcuts(self) -> None:
        """Help > Keyboard Shortcuts."""
        self.shortcuts_dialog = help_menu.show_shortcuts(self)

    def show_about(self) -> None:
        """Help > About rigedit."""
        self.about_dialog = help_menu.show_about(self)

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
        self.status.stop()
        self.solver.stop()
        self.motion.stop()
        try:
            self.document.rig_opened.disconnect(self.viewport.reset_camera)
        except (RuntimeError, TypeError):
            pass
        self.viewport.dispose()
