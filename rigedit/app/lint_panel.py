"""The Lint dock (objectName `lint`): the clip's lint findings as a list to sort and group,
with Lint and Fix buttons, and the Clip menu's actions for the same.

A click on a row (or the arrows through the list) selects its chain and moves the time to the
finding's first frame; the timeline marks the findings and a click on a mark selects its row
(lint_state.py holds the findings and the selection for both). Fix selected / Fix all re-solve
pole flips, knee pops and foot slides (the core's `rigedit lint --fix`) in one undo step.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rigedit.core.lint import Finding
from rigedit.core.lint.fix import repaired_text

from .lint_state import SEVERITY_RANK, SEVERITY_RGB, LintState, describe, frames_text, where
from .menus import _action

if TYPE_CHECKING:
    from .main_window import MainWindow

COLUMNS = ("Severity", "Kind", "Chain / joint", "Frames", "Detail")
SEVERITY_COL, KIND_COL, WHERE_COL, FRAMES_COL, DETAIL_COL = range(len(COLUMNS))
GROUPS = [("none", "Flat list"), ("kind", "By kind"), ("chain", "By chain"), ("severity", "By severity")]
INDEX_ROLE = Qt.ItemDataRole.UserRole  # a finding's index in LintState.findings; -1 on a group row
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def severity_icon(severity: str, size: int = 12) -> QIcon:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor(*SEVERITY_RGB[severity]).darker(150))
    p.setBrush(QColor(*SEVERITY_RGB[severity]))
    p.drawEllipse(1, 1, size - 2, size - 2)
    p.end()
    return QIcon(pm)


class _Item(QTreeWidgetItem):
    """Sorts by SORT_ROLE (severity by rank, frames by number), not by the text shown."""

    def __lt__(self, other: QTreeWidgetItem) -> bool:
        col = self.treeWidget().sortColumn() if self.treeWidget() else 0
        a, b = self.data(col, SORT_ROLE), other.data(col, SORT_ROLE)
        if a is None or b is None or type(a) is not type(b):
            return self.text(col) < other.text(col)
        return a < b


def _button(text: str, name: str, tip: str) -> QPushButton:
    b = QPushButton(text)
    b.setObjectName(name)
    b.setToolTip(tip)
    return b


def _group_of(f: Finding, by: str) -> str:
    if by == "chain":
        return f.chain or (f.joint and f"joint {f.joint}") or "whole figure"
    return getattr(f, by)


class LintPanel(QWidget):
    def __init__(self, window: "MainWindow", lint: LintState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lintPanel")
        self.window_ = window
        self.lint = lint
        self.note = ""  # what the last repair did, shown until the next run
        self._syncing = False  # the list follows the state: no selection echoed back

        self._build_controls()
        self._build_findings()
        self._lay_out()

        self.run_button.clicked.connect(lambda _c=False: self.run())
        self.fix_selected_button.clicked.connect(lambda _c=False: self.fix_selected())
        self.fix_all_button.clicked.connect(lambda _c=False: self.fix_all())
        self.group.currentIndexChanged.connect(lambda _i: self.refresh())
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemSelectionChanged.connect(self._update_buttons)
        lint.changed.connect(self.refresh)
        lint.selection_changed.connect(self._follow_selection)
        self.refresh()

    # --- building ---------------------------------------------------------------------------

    def _build_controls(self) -> None:
        """The Lint and Fix buttons, the grouping box, the summary and the quality measures."""
        self.run_button = _button("Lint", "lintRun", "Check the clip for pole flips, knee pops, foot slides, joints past "
                                  "their limits\nand jumps, with the rig's chains and limits (Ctrl+L)")
        self.fix_selected_button = _button("Fix selected", "lintFixSelected", f"Re-solve the selected findings over their frames "
                                           f"({repaired_text()}),\nleaving every other frame as it was (one undo step)")
        self.fix_all_button = _button("Fix all", "lintFixAll", f"Re-solve every {repaired_text()} (one undo step);\nother "
                                      "findings (limits, lone jumps) are reported, not repaired (Ctrl+Shift+L)")
        self.group = QComboBox()
        self.group.setObjectName("lintGroup")
        for key, label in GROUPS:
            self.group.addItem(label, key)
        self.summary = QLabel()
        self.summary.setObjectName("lintSummary")
        self.summary.setWordWrap(True)
        self.measures = QLabel()
        self.measures.setObjectName("lintMeasures")
        # Wrapped at the dock's width: cut at its edge, the line hid its last measures
        # mid-word ("below g") behind a tooltip. The list below gives up a line for it.
        self.measures.setWordWrap(True)
        self.measures.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        self.measures_tip = ("The clip's motion quality, as `rigedit report` measures it (units of the figure's "
                                 "height): frames a low foot slides, travel over locked contacts, frames with a foot "
                                 "below the ground or a limb inside the body, jerk spikes")
        self.measures.setToolTip(self.measures_tip)

    def _build_findings(self) -> None:
        """The findings list, or in its place a line saying why it is empty."""
        self.tree = QTreeWidget()
        self.tree.setObjectName("lintFindings")
        self.tree.setColumnCount(len(COLUMNS))
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setSortingEnabled(True)
        self.tree.sortByColumn(FRAMES_COL, Qt.SortOrder.AscendingOrder)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for col in range(DETAIL_COL):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.empty = QLabel()
        self.empty.setObjectName("lintEmpty")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setMargin(12)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tree)
        self.stack.addWidget(self.empty)

    def _lay_out(self) -> None:
        """The button row over the summary, the measures and the findings."""
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for w in (self.run_button, self.fix_selected_button, self.fix_all_button):
            row.addWidget(w)
        row.addStretch(1)
        row.addWidget(self.group)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addLayout(row)
        lay.addWidget(self.summary)
        lay.addWidget(self.measures)
        lay.addWidget(self.stack, 1)

    # --- the list ---------------------------------------------------------------------------

    def refresh(self) -> None:
        lint = self.lint
        self._syncing = True
        try:
            self.tree.clear()
            by = self.group.currentData()
            groups: dict[str, _Item] = {}
            for i, f in enumerate(lint.findings):
                item = self._row(i, f)
                if by == "none":
                    self.tree.addTopLevelItem(item)
                    continue
                name = _group_of(f, by)
                if name not in groups:
                    groups[name] = self._group_item(name, by)
                groups[name].addChild(item)
            for name, g in groups.items():
                g.setText(0, f"{name} ({g.childCount()})")
            self.tree.setRootIsDecorated(by != "none")
            self.tree.expandAll()
        finally:
            self._syncing = False
        self.stack.setCurrentWidget(self.tree if lint.findings else self.empty)
        self.empty.setText(self._empty_text())
        # With nothing listed the empty page says why: the summary would only repeat it.
        if lint.findings:
            text = f"{lint.message} · linted in {1000 * lint.seconds:.0f} ms"
        elif lint.report is not None:
            text = f"Linted in {1000 * lint.seconds:.0f} ms"
        else:
            text = ""
        self.summary.setText("\n".join(t for t in (text, self.note) if t))
        self.summary.setVisible(bool(self.summary.text()))
        self.measures.setText(measures_text(lint.quality))
        self.measures.setToolTip(f"{self.measures.text()}\n\n{self.measures_tip}")
        self.measures.setVisible(bool(self.measures.text()))
        self.note = ""
        self._follow_selection(lint.selected)
        self._update_buttons()

    def _empty_text(self) -> str:
        lint = self.lint
        if lint.report is not None and not lint.findings:
            return "✓ " + lint.message + "\nNo pole flips, knee pops, foot slides, limits passed or jumps."
        return lint.message

    def _group_item(self, name: str, by: str) -> _Item:
        g = _Item([""] * len(COLUMNS))
        g.setData(0, INDEX_ROLE, -1)
        g.setFirstColumnSpanned(True)
        font = g.font(0)
        font.setBold(True)
        g.setFont(0, font)
        rank = SEVERITY_RANK.get(name, 0) if by == "severity" else name
        for col in range(len(COLUMNS)):
            g.setData(col, SORT_ROLE, rank if col == SEVERITY_COL else name)
        if by == "severity":
            g.setIcon(0, severity_icon(name))
        self.tree.addTopLevelItem(g)
        return g

    def _row(self, index: int, f: Finding) -> _Item:
        item = _Item([f.severity, f.kind, where(f), frames_text(f), f.detail])
        item.setData(0, INDEX_ROLE, index)
        sort = [SEVERITY_RANK[f.severity], f.kind, where(f), (f.frame_start, f.frame_end), f.detail]
        for col, key in enumerate(sort):
            item.setData(col, SORT_ROLE, key)
        colour = QColor(*SEVERITY_RGB[f.severity])
        item.setIcon(SEVERITY_COL, severity_icon(f.severity))
        item.setForeground(SEVERITY_COL, QBrush(colour.darker(115)))
        if f.severity == "error":
            bold = QFont(item.font(SEVERITY_COL))
            bold.setBold(True)
            item.setFont(SEVERITY_COL, bold)
        item.setToolTip(DETAIL_COL, describe(f) + ("" if self.lint.repairable(f) else "\n(reported, not repaired by Fix)"))
        item.setToolTip(KIND_COL, item.toolTip(DETAIL_COL))
        return item

    def rows(self) -> dict[int, QTreeWidgetItem]:
        """Each finding's row in the list, by its index."""
        out = {}
        stack = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        while stack:
            item = stack.pop()
            index = item.data(0, INDEX_ROLE)
            if index is not None and index >= 0:
                out[index] = item
            stack.extend(item.child(i) for i in range(item.childCount()))
        return out

    def selected_indices(self) -> list[int]:
        """The findings selected in the list (a group row selects its findings)."""
        chosen: set[int] = set()
        for item in self.tree.selectedItems():
            index = item.data(0, INDEX_ROLE)
            if index is not None and index >= 0:
                chosen.add(index)
            else:
                chosen.update(item.child(i).data(0, INDEX_ROLE) for i in range(item.childCount()))
        return sorted(chosen)

    def _current_changed(self, item, _previous) -> None:
        if not self._syncing and item is not None and item.data(0, INDEX_ROLE) >= 0:
            self.lint.select(item.data(0, INDEX_ROLE))

    def _clicked(self, item, _column) -> None:
        # A click on the row already current jumps again (the time may have moved since).
        if item is self.tree.currentItem() and item.data(0, INDEX_ROLE) >= 0:
            self.lint.select(item.data(0, INDEX_ROLE))

    def _follow_selection(self, index: int) -> None:
        item = self.rows().get(index)
        if item is None or item is self.tree.currentItem():
            return
        self._syncing = True
        try:
            self.tree.setCurrentItem(item)
            self.tree.scrollToItem(item)
        finally:
            self._syncing = False

    def _update_buttons(self) -> None:
        if self._syncing:  # the list is being rebuilt (clear() reports the old rows' selection): refresh() calls it after
            return
        findings = self.lint.findings
        self.fix_all_button.setEnabled(any(self.lint.repairable(f) for f in findings))
        self.fix_selected_button.setEnabled(any(self.lint.repairable(findings[i]) for i in self.selected_indices()))
        self.run_button.setEnabled(self.lint.clip is not None)

    # --- commands -----------------------------------------------------------------------------

    def run(self) -> None:
        self.lint.run()

    def fix_selected(self) -> bool:
        return self._fix(self.selected_indices())

    def fix_all(self) -> bool:
        return self._fix(None)

    def _fix(self, indices) -> bool:
        try:
            result = self.lint.fix(indices)
        except ValueError as e:  # the clip cannot be linted or solved: say so, change nothing
            self.window_.statusBar().showMessage(f"Fix: {e}", 10_000)
            return False
        if result is None or not result.changed.any():
            note = f"Nothing to fix: Fix repairs {repaired_text()}; other findings are reported only."
            self.summary.setText("\n".join(t for t in (self.summary.text(), note) if t))
            self.summary.setVisible(True)
            self.window_.statusBar().showMessage(note, 8000)
            return False
        n = len(result.repaired)
        note = (f"Fixed {n} finding{'s' if n != 1 else ''} (frames {result.changed_description()}; Ctrl+Z undoes it)"
                + (f"; {len(result.remaining)} still found" if result.remaining else "")
                + (f"; {len(result.introduced)} new: " + ", ".join(f"{f.kind} {f.frame_start}–{f.frame_end}" for f in result.introduced)
                   if result.introduced else ""))
        self.window_.statusBar().showMessage(note, 10_000)
        self.note = note
        self.refresh()  # the re-lint ran already (clip_edited): show it with the note
        return True


def measures_text(q: dict | None) -> str:
    """One line of the report's measures (core/quality/result.py's keys); "" without them."""
    if not q:
        return ""
    if q.get("foot_skate_share") is None:
        return f"Quality: no two legs found (jerk spikes {q['jitter_spike_count']})"
    parts = [f"foot skate {100 * q['foot_skate_share']:.1f} %", f"locked slide {q['slide_mm']:.0f} mm",
             f"below ground {100 * q['ground_penetration_share']:.1f} %",
             f"self-penetration {100 * q['self_penetration_frame_share']:.1f} %", f"jerk spikes {q['jitter_spike_count']}"]
    if q.get("limit_max_deg") is not None:
        parts.append(f"past limits {q['limit_max_deg']:.1f}° for {q['limit_seconds']:.2f} s")
    return f"Quality (height {q['height_m']:.2f} m): " + " · ".join(parts)


def create_lint_panel(window: "MainWindow") -> LintPanel:
    """The `lint` dock's content (docks.py: right, under the properties)."""
    return LintPanel(window, window.lint)


class ClipMenu(NamedTuple):
    menu: QMenu
    lint: QAction
    fix_selected: QAction
    fix_all: QAction


def build_clip_menu(window: "MainWindow", panel: LintPanel) -> ClipMenu:
    """The Clip menu (before Help): Lint Clip (Ctrl+L), Fix Selected Findings, Fix All
    Findings (Ctrl+Shift+L), each doing what the Lint dock's button does."""
    menu = QMenu("&Clip", window)
    menu.setObjectName("clipMenu")
    window.menuBar().insertMenu(window.help_menu.menuAction(), menu)
    return ClipMenu(menu,
                    _action(window, menu, "&Lint Clip", "Ctrl+L", panel.run),
                    _action(window, menu, "Fix &Selected Findings", "", panel.fix_selected),
                    _action(window, menu, "Fix &All Findings", "Ctrl+Shift+L", panel.fix_all))
