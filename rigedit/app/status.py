"""The status bar readout: the selected chain's solve, the solver rate and the frame rate.
A solve running longer than about a second says what it is doing (solve_watch.py): "spine:
solving… (compiling the solver kernels on first use, once)" when numba compiles meanwhile."""
from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar

from rigedit import ChainReport, Rig
from rigedit.core.ik import registry

from .document import Document
from .solve_watch import slow_note


def reach_state(rig: Rig, chain: str, report: ChainReport) -> str:
    """"reached", "OUT OF REACH" (farther than the chain is long, or closer than a two-bone
    chain can fold) or "not reached" (in reach, but limits or the iteration cap stopped it)."""
    if report.reached:
        return "reached"
    ch = rig.chain(chain)
    pts = np.array([rig.world_position(j) for j in ch.joints])
    bones = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    d = float(np.linalg.norm(rig.shown_target(chain) - pts[0]))
    longest = float(bones.sum())
    shortest = float(max(0.0, 2 * bones.max() - longest))
    if d > longest + ch.tolerance or d < shortest - ch.tolerance:
        return "OUT OF REACH"
    return "not reached"


def gave_way(rig: Rig, chain: str, report: ChainReport) -> bool:
    """Under full body, whether a chain short of its goal was outpulled: some other weighted
    chain pulls harder, so the body served that goal first (issue 16). Dragging a hand moves the
    hips and chest, and the spine's untouched goal is left behind: "OUT OF REACH" would
    read as the user's doing."""
    if not rig.full_body or report.reached:
        return False
    ch = rig.chain(chain)
    return any(c.pull > ch.pull and c.weight > 0.0 for c in rig.chains if c is not ch)


def shown_miss(rig: Rig, chain: str) -> float:
    """The distance from the tip in the pose shown (the IK blended with the animated pose by
    the chain's weight) to the goal: what the eye sees (issue 14). A look-at aims rather than
    reaches: its report's miss is the angle it measures."""
    ch = rig.chain(chain)
    return float(np.linalg.norm(rig.world_position(ch.joints[-1]) - rig.shown_target(chain)))


def describe(rig: Rig, chain: str, report: ChainReport | None) -> str:
    if report is None:
        return f"{chain}: solving…"
    ch = rig.chain(chain)
    kind = registry.get(ch.solver)
    it = kind.method.status(report.iterations, rig.full_body)
    if not kind.reaches:
        return f"{chain}: error {report.error * 1000:.3g} mm · {it} · {reach_state(rig, chain, report)}"
    miss = shown_miss(rig, chain)
    # The IK may reach while the blend (a weight below 1) leaves the tip short of the goal.
    if report.reached and miss > ch.tolerance:
        state = "off target"
    elif gave_way(rig, chain, report):
        state = f"gave way to stronger pulls (pull {ch.pull:.2g})"
    else:
        state = reach_state(rig, chain, report)
    if ch.weight < 1.0:
        return (f"{chain}: error {miss * 1000:.3g} mm at weight {ch.weight:.3g} "
                f"(IK alone {report.error * 1000:.3g} mm) · {it} · {state}")
    return f"{chain}: error {miss * 1000:.3g} mm · {it} · {state}"


# The readout's styles: a chain off its goal reads in bold red; one that gave way under full
# body (the body served a stronger pull first: nothing to put right) in amber, not bold.
OFF_STYLE = "color: #ff5a4a; font-weight: bold;"
GAVE_WAY_STYLE = "color: #b07800;"


def readout_style(rig: Rig, chain: str, report: ChainReport | None) -> str:
    """The style sheet of the readout for the chain: "" on its goal (or not yet solved),
    GAVE_WAY_STYLE when it gave way (gave_way), else OFF_STYLE when it is off its goal."""
    if report is None:
        return ""
    ch = rig.chain(chain)
    if not registry.get(ch.solver).reaches:
        return "" if report.reached else OFF_STYLE
    if report.reached and shown_miss(rig, chain) <= ch.tolerance:
        return ""
    return GAVE_WAY_STYLE if gave_way(rig, chain, report) else OFF_STYLE


class StatusReadout(QObject):
    """Labels in the window's status bar, refreshed on every solve and once a second for rates.
    A child of the bar, its timers children of it: they end with the window (a timer of no
    parent outlived a closed window and fired into its deleted labels)."""

    def __init__(self, bar: QStatusBar, document: Document, solves_counter, frames_counter) -> None:
        super().__init__(bar)
        self.doc = document
        self.chain = QLabel()
        self.chain.setObjectName("chainStatus")
        self.solver = QLabel()
        self.solver.setObjectName("solverRate")
        self.fps = QLabel()
        self.fps.setObjectName("frameRate")
        # Takes the free width (its text changes length as it goes), as a normal widget: a
        # permanent one covered every message shown in the bar ("Exported ...", "Imported ...").
        bar.addWidget(self.chain, 1)
        bar.installEventFilter(self)
        bar.addPermanentWidget(self.solver)
        bar.addPermanentWidget(self.fps)
        self._solves = solves_counter
        self._frames = frames_counter
        self._last = (time.perf_counter(), solves_counter(), frames_counter())
        self.solves_per_second = 0.0
        self.frames_per_second = 0.0
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        # The chain readout follows solves at most ~15 times a second: restyling a label at
        # mouse rate costs the viewport frames.
        self._chain_timer = QTimer(self)
        self._chain_timer.setSingleShot(True)
        self._chain_timer.setInterval(66)
        self._chain_timer.timeout.connect(self.refresh_chain)
        self._shown = (None, None)
        self._busy_since = lambda: None  # the solver's (watch_solver), once it has one
        self._slow = ""  # the note on a slow solve shown now
        # A solve that outlasts SLOW_SOLVE_S is seen within a quarter second of it.
        self._slow_timer = QTimer(self)
        self._slow_timer.setInterval(250)
        self._slow_timer.timeout.connect(self._check_slow)
        self._slow_timer.start()
        document.pose_changed.connect(self._pose_changed)
        document.selection_changed.connect(self.refresh_chain)
        document.rig_replaced.connect(self.refresh_chain)
        self._listening = True
        self.refresh_chain()
        self.tick()

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        # A message shown before the window is (File > Import from the command line, then
        # --screenshot) had the bar hide the readout while hidden itself; showing the window
        # showed the readout again, drawn over the message. Hide it as the bar does for a
        # message: not as an explicit hide, so the bar shows it again when the message ends.
        if ev.type() == QEvent.Type.Show and obj.currentMessage():
            self.chain.hide()
            self.chain.setAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide, False)
        return False

    def watch_solver(self, busy_since) -> None:
        """`busy_since()`: when the solver's running solve began, or None (SolverWorker.busy_since)."""
        self._busy_since = busy_since

    def _check_slow(self) -> None:
        if slow_note(self._busy_since()) != self._slow:
            self.refresh_chain()

    def _pose_changed(self) -> None:
        if not self._chain_timer.isActive():
            self._chain_timer.start()

    def refresh_chain(self, *_ignored) -> None:
        sel = self.doc.selected
        self._slow = slow_note(self._busy_since())
        if self._slow:  # the last report is stale, and the wait wants a reason
            self._show(f"{sel + ': ' if sel else ''}solving… ({self._slow})", "")
            return
        if not sel:
            self._show("no chain selected", "")
            return
        report = self.doc.reports.get(sel)
        self._show(describe(self.doc.rig, sel, report), readout_style(self.doc.rig, sel, report))

    def _show(self, text: str, style: str) -> None:
        if (text, style) == self._shown:
            return
        if text != self._shown[0]:
            self.chain.setText(text)
        if style != self._shown[1]:
            self.chain.setStyleSheet(style)
        self._shown = (text, style)

    def tick(self) -> None:
        now, solves, frames = time.perf_counter(), self._solves(), self._frames()
        t0, s0, f0 = self._last
        dt = max(now - t0, 1e-6)
        self.solves_per_second = (solves - s0) / dt
        self.frames_per_second = (frames - f0) / dt
        self._last = (now, solves, frames)
        self.solver.setText(f"solver {self.solves_per_second:.0f} solves/s")
        # An idle viewport draws nothing, and "0 fps" would read as a hang.
        self.fps.setText(f"viewport {self.frames_per_second:.0f} fps" if frames > f0 else "viewport idle")

    def stop(self) -> None:
        """The window closed: no more ticks, and a late solve no longer refreshes the labels."""
        self.timer.stop()
        self._chain_timer.stop()
        self._slow_timer.stop()
        if self._listening:
            self._listening = False
            self.doc.pose_changed.disconnect(self._pose_changed)
            self.doc.selection_changed.disconnect(self.refresh_chain)
            self.doc.rig_replaced.disconnect(self.refresh_chain)
