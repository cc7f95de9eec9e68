"""The property dock: the selected joint (joint_panel.py), then pick a chain and edit its
solver settings; every edit is an undo command."""
from __future__ import annotations

import dataclasses
import itertools
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from rigedit.core.chain_checks import MAX_ITERATIONS_CAP
from rigedit.core.ik import registry

from .document import Document
from .error_plot import ErrorPlot
from .full_body_fields import FullBodyFields
from .joint_panel import JointPanel
from .limits_table import LimitsTable
from .poles import default_pole
from .uses_fields import UsesFields

if TYPE_CHECKING:
    from .main_window import MainWindow

SOLVERS = [(s.name, s.label) for s in registry.SOLVERS]  # the solver combo's items, in order
WEIGHT_STEPS = 1000  # slider resolution: 0.001 of blend weight per step
# The error plot follows solves at most this often (ms); less often while a handle is dragged,
# when every repaint of it is time the viewport does not get (bench_editor: a quarter of the
# GUI thread at 10 Hz). The last solve of a drag is shown once the mouse lets go.
PLOT_INTERVAL_MS = 100
PLOT_INTERVAL_DRAGGING_MS = 400


# The Joints line when no chain is shown.
NO_CHAINS_HINT = ("No IK chains: the rig plays its clip. Click a bone to select its joint, R to rotate it, "
                  "Shift+I to add an IK chain ending there.")
NO_SELECTION_HINT = "No chain selected: pick one above, or click its target in the viewport."


class BlendWeight(QWidget):
    """A slider and a spin box showing one value in [0, 1]."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("blendWeight")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, WEIGHT_STEPS)
        self.slider.setPageStep(WEIGHT_STEPS // 10)
        self.spin = QDoubleSpinBox()
        self.spin.setRange(0.0, 1.0)
        self.spin.setDecimals(3)
        self.spin.setSingleStep(0.05)
        self.spin.setKeyboardTracking(False)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)

    def show_value(self, w: float) -> None:
        for widget, v in ((self.slider, round(w * WEIGHT_STEPS)), (self.spin, w)):
            widget.blockSignals(True)
            widget.setValue(v)
            widget.blockSignals(False)


_HISTORY_KEYS = (QKeySequence.StandardKey.Undo, QKeySequence.StandardKey.Redo)


class CommitBeforeUndo(QObject):
    """Ctrl+Z (or redo) with the cursor still in one of the panel's number or text fields:
    the field's text is committed (one undo command, as Enter would) and the window's undo
    runs on it. A line edit otherwise keeps the key for its own text undo, and the typed value
    would neither be applied nor undone.

    Installed on each field of the panel as it takes the focus (the limits table makes new
    fields for every chain), so it sees nothing but the focused field's events."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__(panel)
        self._panel = panel
        QApplication.instance().focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old, new) -> None:
        if isinstance(new, (QAbstractSpinBox, QLineEdit)) and self._panel.isAncestorOf(new):
            new.removeEventFilter(self)  # once per field, however often it is focused
            new.installEventFilter(self)

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        if ev.type() == QEvent.Type.ShortcutOverride and any(ev.matches(k) for k in _HISTORY_KEYS):
            if isinstance(obj, QAbstractSpinBox):
                obj.interpretText()  # emits valueChanged if the typed value differs
            elif isinstance(obj, QLineEdit) and obj.isModified():
                obj.setModified(False)
                obj.editingFinished.emit()
            ev.ignore()  # not the field's: the window's Undo/Redo shortcut takes the key
            return True
        return False


class PropertiesPanel(QWidget):
    problem = Signal(str)  # an edit the chain refused: the window shows why

    def __init__(self, document: Document, parent=None) -> None:
        super().__init__(parent)
        self.doc = document
        self._loading = False
        self._slider_session = itertools.count()
        self._slider_key = None
        self._shown = None  # (chain, settings without target, pole on?) the widgets show
        # Solves come in at mouse rate; the plot redraws a few times a second at most.
        self._plot_timer = QTimer(self)
        self._plot_timer.setSingleShot(True)
        self._plot_timer.setInterval(PLOT_INTERVAL_MS)
        self._plot_timer.timeout.connect(self._show_errors)

        self._build_fields()
        self._lay_out(document)
        self._connect_fields()
        document.rig_replaced.connect(self.reload)
        document.selection_changed.connect(self.reload)
        document.chain_changed.connect(self._chain_changed)
        document.full_body_changed.connect(self.reload)
        document.pose_changed.connect(self._errors_changed)
        self._commit_before_undo = CommitBeforeUndo(self)
        self.reload()

    # --- building ------------------------------------------------------------------------

    def _build_fields(self) -> None:
        """The chain's own fields: selector, joints, solver, tolerance, iterations, weight,
        pole, limits table and the error plot."""
        self.chain_selector = QComboBox()
        self.chain_selector.setObjectName("chainSelector")
        self.joints_label = QLabel()
        self.joints_label.setWordWrap(True)
        self.joints_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.solver = QComboBox()
        self.solver.setObjectName("solver")
        for key, label in SOLVERS:
            self.solver.addItem(label, key)
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setObjectName("tolerance")
        self.tolerance.setDecimals(3)
        self.tolerance.setRange(0.001, 10_000.0)
        self.tolerance.setSuffix(" mm")
        self.tolerance.setKeyboardTracking(False)
        self.max_iterations = QSpinBox()
        self.max_iterations.setObjectName("maxIterations")
        self.max_iterations.setRange(1, MAX_ITERATIONS_CAP)
        self.max_iterations.setKeyboardTracking(False)
        self.weight = BlendWeight()
        self.pole = QCheckBox("Use a pole (bend direction)")
        self.pole.setObjectName("usePole")
        self.limits = LimitsTable()
        self.error_plot = ErrorPlot()

    def _lay_out(self, document: Document) -> None:
        """The form over the uses and full-body fields (their own widgets), the limits and
        the error plot, with the clicked bone's joint panel on top."""
        form = QFormLayout()
        form.addRow("Chain", self.chain_selector)
        form.addRow("Joints", self.joints_label)
        form.addRow("Solver", self.solver)
        form.addRow("Tolerance", self.tolerance)
        form.addRow("Max iterations", self.max_iterations)
        form.addRow("Blend weight", self.weight)
        form.addRow("", self.pole)
        self.uses = UsesFields(lambda text, **changes: self._edit(text, **changes), self._refused,  # issue 8
                               has_clip=lambda: self.doc.rig.clip is not None)
        self.full_body = FullBodyFields(document, lambda text, **changes: self._edit(text, **changes),  # issue 16
                                        lambda: self._loading)
        self.joint = JointPanel(document)  # issue 25: the clicked bone's joint, when there is one
        lay = QVBoxLayout(self)
        lay.addWidget(self.joint)
        lay.addLayout(form)
        lay.addWidget(self.uses)
        lay.addWidget(self.full_body)
        lay.addWidget(QLabel("Joint limits"))
        self.limits.setMaximumHeight(160)  # long chains scroll inside; the plot below stays in view
        lay.addWidget(self.limits)
        self.plot_label = QLabel("Error per iteration (last solve)")
        lay.addWidget(self.plot_label)
        lay.addWidget(self.error_plot)
        lay.addStretch(1)

    def _connect_fields(self) -> None:
        """Each field's edit to an undoable change of the chain."""
        self.chain_selector.activated.connect(self._chain_picked)
        self.solver.activated.connect(self._solver_picked)
        self.tolerance.valueChanged.connect(lambda v: self._edit("Set tolerance", tolerance=v / 1000.0))
        self.max_iterations.valueChanged.connect(lambda v: self._edit("Set max iterations", max_iterations=int(v)))
        self.weight.slider.sliderPressed.connect(self._slider_down)
        self.weight.slider.sliderReleased.connect(self._slider_up)
        self.weight.slider.valueChanged.connect(self._slider_moved)
        self.weight.spin.valueChanged.connect(lambda v: self._edit("Set blend weight", weight=float(v)))
        self.pole.toggled.connect(self._pole_toggled)
        self.limits.limits_edited.connect(lambda lims: self._edit("Edit joint limits", limits=lims))
        self.limits.problem.connect(self._refused)

    # --- document -> widgets -----------------------------------------------------------------

    def reload(self, *_ignored) -> None:
        self._loading = True
        try:
            rig = self.doc.rig
            names = rig.chain_names
            if [self.chain_selector.itemText(i) for i in range(self.chain_selector.count())] != names:
                self.chain_selector.clear()
                self.chain_selector.addItems(names)
            sel = self.doc.selected
            self.chain_selector.setCurrentIndex(names.index(sel) if sel in names else -1)
            self._show_settings()
        finally:
            self._loading = False

    def _errors_changed(self) -> None:
        if not self._plot_timer.isActive():
            self._plot_timer.start()

    def set_dragging(self, on: bool) -> None:
        """A handle in the viewport is being dragged (on) or was let go (off)."""
        self._plot_timer.setInterval(PLOT_INTERVAL_DRAGGING_MS if on else PLOT_INTERVAL_MS)
        if not on and self._plot_timer.isActive():
            self._plot_timer.start()  # restarted at the short interval: the final curve soon

    def _chain_changed(self, name: str) -> None:
        if name == self.doc.selected and self._shown != self._key(name):
            self._loading = True
            try:
                self._show_settings()
            finally:
                self._loading = False

    def _key(self, name: str):
        """What the panel shows of a chain: everything but where its target and pole are (a
        drag moves those at mouse rate and the panel need not redraw for them)."""
        s = self.doc.settings(name)
        return name, dataclasses.replace(s, target=(0.0, 0.0, 0.0), pole=None), s.pole is not None

    def _show_settings(self) -> None:
        sel = self.doc.selected
        self._shown = self._key(sel) if sel else None
        enabled = bool(sel)
        for w in (self.solver, self.tolerance, self.max_iterations, self.weight, self.pole, self.limits, self.uses):
            w.setEnabled(enabled)
        if not enabled:  # what to do instead: the fields below are greyed out
            self.joints_label.setText(NO_CHAINS_HINT if not self.doc.rig.chain_names else NO_SELECTION_HINT)
            self.full_body.show_chain(None)
            return
        ch = self.doc.rig.chain(sel)
        full = " → ".join(ch.joints)
        # A long chain (a tentacle) in one line: its ends, the count, the rest in the tooltip.
        self.joints_label.setText(full if len(ch.joints) <= 5 else f"{ch.joints[0]} → … → {ch.joints[-1]}  ({len(ch.joints)} joints)")
        self.joints_label.setToolTip(full)
        model = self.solver.model()
        kind = registry.get(ch.solver)
        if isinstance(model, QStandardItemModel):
            # Offer a solver only where it fits (the closed-form limb needs exactly three joints).
            for i, s in enumerate(registry.SOLVERS):
                model.item(i).setEnabled(s.fits(len(ch.joints)))
        self.solver.setCurrentIndex(registry.NAMES.index(ch.solver))
        self.tolerance.setValue(ch.tolerance * 1000.0)
        self.tolerance.setEnabled(kind.tolerance)
        self.max_iterations.setValue(ch.max_iterations)
        self.max_iterations.setEnabled(kind.iterations)
        if self._slider_key is None:
            self.weight.show_value(ch.weight)
        self.pole.setChecked(ch.pole is not None)
        # A solver that takes no pole (CCD, look-at) would ignore one: the box says so.
        self.pole.setEnabled(kind.pole)
        self.pole.setToolTip("" if kind.pole else f"{kind.label} takes no pole")
        if not self._table_shows(ch):
            self.limits.load(ch.joints, ch.limits)
        self.uses.show_chain(ch)
        self.full_body.show_chain(ch)
        # The tip error after each pass; under full body, this chain's after each of the
        # body's passes (which move every chain but a look-at).
        body = self.doc.rig.full_body and kind.reaches
        self.plot_label.setText("This chain's tip error after each whole-body pass (last solve)" if body
                                else "Error per iteration (last solve)")
        self.plot_label.setVisible(kind.iterations or body)
        self.error_plot.setVisible(kind.iterations or body)
        self._show_errors()

    def _table_shows(self, ch) -> bool:
        rows = [self.limits.item(r, 0).text() for r in range(self.limits.rowCount())]
        if rows != list(ch.joints[:-1]):
            return False
        try:
            return self.limits.current_limits() == dict(ch.limits)
        except ValueError:
            return False

    def _show_errors(self) -> None:
        sel = self.doc.selected
        if not sel or not self.error_plot.isVisibleTo(self):
            return
        errors = self.doc.errors.get(sel)
        if errors is not None:
            report = self.doc.reports.get(sel)
            reached = None if report is None else bool(report.reached)
            self.error_plot.show_errors(errors, self.doc.rig.chain(sel).tolerance, reached)

    # --- widgets -> document -----------------------------------------------------------------

    def _edit(self, text: str, merge_key=None, **changes) -> None:
        if self._loading or not self.doc.selected:
            return
        try:
            self.doc.edit_chain(self.doc.selected, text, changes, merge_key=merge_key)
        except ValueError as e:
            self._refused(str(e))

    def _refused(self, message: str) -> None:
        self.problem.emit(message)
        self._loading = True
        try:
            self._show_settings()  # put the widgets back to what the chain has
        finally:
            self._loading = False

    def _chain_picked(self, index: int) -> None:
        if not self._loading and index >= 0:
            self.doc.select(self.chain_selector.itemText(index))

    def _solver_picked(self, index: int) -> None:
        self._edit("Set solver", solver=self.solver.itemData(index))

    def _slider_down(self) -> None:
        self._slider_key = ("weight", self.doc.selected, next(self._slider_session))

    def _slider_up(self) -> None:
        self._slider_key = None

    def _slider_moved(self, value: int) -> None:
        w = value / WEIGHT_STEPS
        self.weight.spin.blockSignals(True)
        self.weight.spin.setValue(w)
        self.weight.spin.blockSignals(False)
        # While the slider is held, every step merges into the one command the drag started.
        self._edit("Set blend weight", merge_key=self._slider_key, weight=w)

    def _pole_toggled(self, on: bool) -> None:
        if self._loading or not self.doc.selected:
            return
        name = self.doc.selected
        ch = self.doc.rig.chain(name)
        if on:
            pole = self.doc.remembered_pole(name) or default_pole(self.doc.rig, name)
            self._edit("Use pole", pole=pole)
        else:
            self.doc.remember_pole(name, ch.pole)
            self._edit("Remove pole", pole=None)


def create_properties_panel(window: "MainWindow") -> PropertiesPanel:
    """The `properties` dock's content (docks.py): it says in the status bar why an edit was
    refused, and redraws its plot less often while a handle is dragged."""
    panel = PropertiesPanel(window.document)
    panel.problem.connect(lambda msg: window.statusBar().showMessage(msg, 8000))
    window.viewport.dragging.connect(panel.set_dragging)
    return panel
