"""The iteration plot's caption: a solve that ran no iteration is "within tolerance" only
when its report says it reached the target (no iteration also means out of reach, or a
chain left alone after it stalled short)."""
from __future__ import annotations

from rigedit.app.error_plot import ErrorPlot


def test_no_iteration_says_within_tolerance_only_when_reached(qtbot):
    plot = ErrorPlot()
    qtbot.addWidget(plot)
    plot.show_errors((), 1e-3, reached=False)
    assert "within tolerance" not in plot.caption.text() and "not reached" in plot.caption.text()
    plot.show_errors((), 1e-3, reached=True)
    assert "within tolerance" in plot.caption.text()
    plot.show_errors((0.05, 0.01), 1e-3, reached=False)
    assert plot.caption.text().startswith("2 iterations")
    # The curve before stays on screen; the caption still says why the last solve ran none.
    plot.show_errors((), 1e-3, reached=False)
    assert "within tolerance" not in plot.caption.text() and "showing the one before" in plot.caption.text()
    plot.show_errors((), 1e-3, reached=True)
    assert "(within tolerance)" in plot.caption.text()
