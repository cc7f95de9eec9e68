"""Undoing File > Retarget onto This Rig puts the timeline back as it was (issue 25): its frame
rate and range, the plot's span, the readout, the playhead within the range and Key plants
off again with no clip to find plants in."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from rigedit.core.rig import BUNDLED_PRESETS, Rig

from .test_retarget_menu import answer_options

WALK = Path("/work/shared/data/cmu_12_01_walk.bvh")


def shown(window) -> dict:
    """What the timeline dock shows of its range."""
    panel = window.timeline_dock.widget()
    tl = panel.timeline
    return {"span": (tl.frame_rate, tl.start, tl.end), "plot": tuple(round(x, 9) for x in panel.plot.vb.viewRange()[0]),
            "readout": panel.readout.text(), "plants": panel.plants_button.isEnabled(), "time": panel.time}


@pytest.mark.parametrize("scene", [None, "uneven_ground_walk"])
def test_undoing_a_retarget_restores_the_timeline(window, make_window, qtbot, monkeypatch, errors, scene):
    if scene is not None:
        window = make_window(Rig.load(BUNDLED_PRESETS / f"{scene}.json"))
    window.document.set_time(window.timeline_dock.widget().timeline.end)  # the playhead at the range's end
    before = shown(window)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(WALK), "")))
    answer_options(monkeypatch, qtbot, [])  # the options dialog, OK'd as it opens
    window.action_retarget.trigger()
    assert errors == []
    retargeted = shown(window)
    clip = window.rig.clip
    assert retargeted["span"] == (clip.frame_rate, 0.0, pytest.approx(clip.duration)) != before["span"]
    assert retargeted["plants"]
    window.undo_stack.undo()
    assert shown(window) == before
    window.undo_stack.redo()
    assert shown(window)["span"] == retargeted["span"] and shown(window)["plants"]
