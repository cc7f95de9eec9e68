"""Windows opened one after another in one process (scripts, test runs): what a window made
ends with it, and nothing of a closed window fires into the next one."""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

from rigedit.app.main_window import MainWindow

from .helpers import wait_solved


def _open(qtbot) -> MainWindow:
    w = MainWindow(keep_layout=False)
    w.resize(900, 640)
    w.show()
    qtbot.waitExposed(w)
    wait_solved(qtbot, w)
    return w


def test_the_status_readouts_timers_end_with_their_window(qtbot):
    first = _open(qtbot)
    readout = first.status
    timers = (readout.timer, readout._chain_timer)
    assert readout.timer.isActive()
    first.document.mark_saved()
    first.close()
    assert not any(t.isActive() for t in timers)
    # A solve on its way when the window closed arrives: the closed window's readout does not
    # start refreshing again.
    first.document.pose_changed.emit()
    assert not any(t.isActive() for t in timers)
    first.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not any(shiboken6.isValid(t) for t in timers)  # gone with the window, not left to fire
    assert not shiboken6.isValid(readout)

    second = _open(qtbot)
    try:
        for _ in range(2):  # two ticks of the second window's readout: the first's would fire between
            with qtbot.waitSignal(second.status.timer.timeout, timeout=5000):
                pass
        second.document.select("left_leg")
        wait_solved(qtbot, second)
        qtbot.waitUntil(lambda: second.status.chain.text().startswith("left_leg:"))
    finally:
        second.document.mark_saved()
        second.close()
    assert not second.solver.is_running()


def test_the_viewports_key_timer_ends_with_its_window(qtbot):
    """pyqtgraph's orbit-by-arrow-keys timer is made without a parent; it must not outlive the
    window (a closed editor's timer firing into a dead view raises in the next window)."""
    first = _open(qtbot)
    key_timer = first.viewport.keyTimer
    first.document.mark_saved()
    first.close()
    first.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(key_timer)


def test_a_message_shown_before_the_window_is_not_drawn_over_by_the_readout(qtbot):
    """`rigedit --screenshot FILE` imports before the window shows: the bar's message ("Imported
    ...") must not have the chain readout drawn over it, and the readout comes back after it."""
    w = MainWindow(keep_layout=False)
    w.resize(900, 640)
    w.statusBar().showMessage("Imported a file with a long summary", 60_000)
    w.show()
    qtbot.waitExposed(w)
    try:
        wait_solved(qtbot, w)
        assert w.statusBar().currentMessage()
        assert not w.status.chain.isVisible()
        w.statusBar().clearMessage()
        qtbot.waitUntil(w.status.chain.isVisible)
    finally:
        w.document.mark_saved()
        w.close()
