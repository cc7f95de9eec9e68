"""Undoing File > Retarget onto This Rig puts the timeline back as it was (issue 25): its frame
rate and range, the plot's span, the readout, the playhead within the range and Key plants
off again with no clip to find plants in."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog

from rigedit.core.rig import BUNDLED_PRESETS, Rig

from .helpers import wait_solved
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


def test_undoing_a_retarget_puts_back_the_pose_the_drags_left(window, qtbot, monkeypatch, errors):
    """A FABRIK spine moved from one goal to another holds a pose its path made (another start
    reaches the same goal another way); undoing the retarget shows that very pose, not a
    fresh solve from rest (whose middle joints were up to 18 cm away)."""
    doc, rig = window.document, window.rig
    spine = rig.chain("spine")
    rng = np.random.default_rng()
    doc.set_chain_live("spine", limits=())  # free of its cones, it reaches goals below its rest tip
    tip = rig.skeleton.index(spine.joints[-1])
    for _ in range(4):  # small moves from where the tip is, as a drag makes, each solved from the last
        doc.set_chain_live("spine", target=rig.world_positions()[tip] + rng.uniform((-0.04, -0.06, -0.04), (0.04, -0.02, 0.04)))
        wait_solved(qtbot, window)
    # A chain short of its goal would go on moving with any solve; this one is done.
    assert rig.solved_state().chains["spine"].reached
    joints = [rig.skeleton.index(j) for j in spine.joints]
    before = rig.world_positions()[joints].copy()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(WALK), "")))
    answer_options(monkeypatch, qtbot, [])
    window.action_retarget.trigger()
    wait_solved(qtbot, window)
    window.undo_stack.undo()
    wait_solved(qtbot, window)
    assert errors == []
    assert np.abs(rig.world_positions()[joints] - before).max() < 1e-9
