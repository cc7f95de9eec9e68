"""The editor's docks, declared in one list (DOCKS); MainWindow makes every dock from it.

An entry says where the dock goes, what its View > Panels entry is, and which function builds
its content from the window (its document, viewport, lint state and menus are there by then).
The dock goes into the MainWindow field the entry names, which main_window.py declares.
Adding a dock: write its module (a function `window -> QWidget`), add its entry here and
declare its field on MainWindow. A builder that raises stops the window from opening with the
dock's name in the error: a dock is never silently left out or replaced by a placeholder.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QScrollArea, QWidget

from .field_wheel import FieldWheelGuard
from .lint_panel import create_lint_panel
from .pose_library_dock import create_pose_library_panel
from .properties_dock import create_properties_panel
from .timeline_dock import create_timeline_widget

if TYPE_CHECKING:
    from .main_window import MainWindow

Area = Qt.DockWidgetArea


@dataclass(frozen=True)
class DockSpec:
    field: str  # the MainWindow attribute that holds the dock (declared in main_window.py)
    title: str  # the dock's title and its View > Panels entry
    object_name: str  # for saved layouts, tests and scripts: findChild(QDockWidget, name)
    area: Qt.DockWidgetArea
    build: Callable[["MainWindow"], QWidget]  # the dock's content
    shortcut: str = ""  # of its View > Panels entry ("" for none)
    scroll: bool = False  # the content scrolls (a form taller than a short window)
    below: str = ""  # the field of a dock in the same area this one sits under
    tabbed_with: str = ""  # the field of a dock this one shares a tab with
    visible: bool = True  # shown when the window first opens (a saved layout may say otherwise)


DOCKS: tuple[DockSpec, ...] = (
    DockSpec("properties", "Properties", "properties", Area.RightDockWidgetArea, create_properties_panel, scroll=True),
    DockSpec("timeline_dock", "Timeline", "timeline", Area.BottomDockWidgetArea, create_timeline_widget),
    DockSpec("lint_dock", "Lint", "lint", Area.RightDockWidgetArea, create_lint_panel, below="properties"),
    # A tab behind Lint: a third dock stacked in the column would not fit a 540 px window.
    DockSpec("pose_library_dock", "Pose Library", "poseLibrary", Area.RightDockWidgetArea, create_pose_library_panel,
             tabbed_with="lint_dock"),
)


class DockBuildError(RuntimeError):
    """A dock's builder failed: the window cannot open without it."""


class Dock(QDockWidget):
    """A dock of DOCKS. `panel` is the content its builder made; `widget()` is that content,
    or the scroll area around it."""

    def __init__(self, spec: DockSpec, panel: QWidget, parent: QWidget) -> None:
        super().__init__(spec.title, parent)
        self.setObjectName(spec.object_name)
        self.spec = spec
        self.panel = panel
        if spec.scroll:
            scroll = QScrollArea()
            scroll.setWidget(panel)
            scroll.setWidgetResizable(True)
            self.setWidget(scroll)
        else:
            self.setWidget(panel)
        # Fields take the wheel only once clicked into: the wheel over the dock scrolls it.
        self.wheel_guard = FieldWheelGuard(panel)
        action = self.toggleViewAction()
        # Qt shows a tabbed dock behind its neighbour; who asks for a panel wants to see it.
        action.triggered.connect(lambda shown: shown and self.raise_())
        if spec.shortcut:
            action.setShortcut(QKeySequence(spec.shortcut))


def build_dock(window: "MainWindow", spec: DockSpec) -> Dock:
    """The dock of `spec`, placed in `window` (not yet stored in its field)."""
    try:
        panel = spec.build(window)
    except Exception as e:
        raise DockBuildError(f"the {spec.title} dock ({spec.object_name!r}) could not be built: "
                             f"{type(e).__name__}: {e}") from e
    if not isinstance(panel, QWidget):
        raise DockBuildError(f"the {spec.title} dock ({spec.object_name!r}) got no widget from "
                             f"{getattr(spec.build, '__qualname__', spec.build)!r}: {panel!r}")
    dock = Dock(spec, panel, window)
    window.addDockWidget(spec.area, dock)
    if spec.below:
        window.splitDockWidget(getattr(window, spec.below), dock, Qt.Orientation.Vertical)
    if spec.tabbed_with:
        front = getattr(window, spec.tabbed_with)
        window.tabifyDockWidget(front, dock)
        front.raise_()  # a dock joining another's tabs sits behind it
    if not spec.visible:
        dock.hide()
    return dock
