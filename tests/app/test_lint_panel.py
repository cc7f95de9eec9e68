"""The Lint dock and the timeline's lint marks (issue 17, the editor side), with real mouse
events: a clip with a pole flip injected is opened, its finding listed and marked on the
timeline; a click on the mark or the row goes there; Fix repairs it in one undo step."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox

from rigedit.app.capture import image_array
from rigedit.app.lint_state import SEVERITY_RGB
from rigedit.app.timeline.lint_marks import LANE
from rigedit.core.autochains import propose_chains
from rigedit.core.clip import Clip
from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.lint import lint_clip
from rigedit.core.rig import Rig
from rigedit.io.bvh import read_bvh

from ..core.lint_faults import CMU, flip_thigh
from ..core.test_lint import bent_frames
from .helpers import wait_solved
from .test_timeline_scrub import click, mouse_drag, near_frame

LEG = "left_leg"
LEFT = Qt.MouseButton.LeftButton
NO_MOD = Qt.KeyboardModifier.NoModifier


def imported_rig(skeleton, clip: Clip) -> Rig:
    """The rig File > Import makes of a take: its proposed chains, following the clip."""
    rig = Rig(skeleton, clip=clip, name="take")
    for c in propose_chains(skeleton, clip.frame(0)):
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(clip))
    return rig


@pytest.fixture(scope="module")
def walk():
    return read_bvh(CMU)


@pytest.fixture(scope="module")
def faulted(walk, tmp_path_factory):
    """A saved rig whose clip is the CMU walk with the left thigh turned 180 degrees about
    the hip-ankle line on four frames where the knee is well bent; and those frames."""
    _, frames = bent_frames(lint_clip(walk.skeleton, walk.clip), LEG, 4)
    leg = next(l for l in lint_clip(walk.skeleton, walk.clip).motion.limbs if l.chain == LEG)
    clip = flip_thigh(walk.skeleton, walk.clip, leg.root, leg.mid, leg.end, frames)
    path = tmp_path_factory.mktemp("lint") / "faulted.json"
    imported_rig(walk.skeleton, clip).save(path)
    return path, frames


@pytest.fixture
def walk_window(make_window, walk):
    """A window already showing the walk's skeleton (test_import.walk_window says why)."""
    return make_window(imported_rig(walk.skeleton, Clip(walk.clip.rotations[:2], walk.clip.translations[:2], walk.clip.frame_time)))


@pytest.fixture
def opened(qtbot, walk_window, faulted):
    path, frames = faulted
    assert walk_window.open_preset(path)
    wait_solved(qtbot, walk_window)
    return walk_window, frames


def panel_of(window):
    return window.lint_dock.widget()


def flip_index(window, frames) -> int:
    (i,) = [i for i, f in enumerate(window.lint.findings)
            if f.kind == "pole_flip" and f.chain == LEG and f.frame_start <= frames[-1] and f.frame_end >= frames[0]]
    return i


def frame_time(window, frame: int) -> float:
    return frame * window.rig.clip.frame_time


def lane_point(window, t: float) -> QPointF:
    return window.timeline_dock.widget().plot.to_widget(t, 0.5 * sum(LANE))


def test_the_dock_is_in_view_panels_and_the_clip_menu(window):
    assert window.lint_dock.objectName() == "lint"
    toggle = window.lint_dock.toggleViewAction()
    assert toggle in window.panels_menu.actions()
    toggle.trigger()
    assert window.lint_dock.isHidden()
    toggle.trigger()
    assert not window.lint_dock.isHidden()
    assert [a.text() for a in window.menuBar().actions()][-2:] == ["&Clip", "&Help"]
    assert window.action_lint.shortcut().toString() == "Ctrl+L"


def test_a_rig_without_a_clip_says_why(window):
    panel = panel_of(window)
    assert window.rig.clip is None
    assert panel.stack.currentWidget() is panel.empty and panel.empty.isVisible()
    assert "no clip" in panel.empty.text() and "Import" in panel.empty.text()
    # Said once: the summary line above the page does not repeat it.
    assert not panel.summary.isVisible() or "no clip" not in panel.summary.text()
    assert not panel.run_button.isEnabled() and not panel.fix_all_button.isEnabled()
    assert window.timeline_dock.widget().plot.lint_marks.marks == []


def test_an_imported_walk_is_linted_and_shows_only_its_reference_frame(qtbot, walk_window):
    from rigedit.app.import_actions import install_import_actions

    importer = walk_window.importer if hasattr(walk_window, "importer") else install_import_actions(walk_window)
    assert importer.import_file(CMU, ask=False)
    findings = walk_window.lint.findings
    # The CMU walk is clean: its T-pose frame 0 is the one finding, as information.
    assert [(f.kind, f.severity, f.frame_start) for f in findings] == [("discontinuity", "info", 0)]
    panel = panel_of(walk_window)
    assert panel.stack.currentWidget() is panel.tree and len(panel.rows()) == 1
    marks = walk_window.timeline_dock.widget().plot.lint_marks.marks
    assert [m.severity for m in marks] == ["info"]


def test_a_clean_clip_shows_no_findings(qtbot, make_window, walk):
    clip = Clip(walk.clip.rotations[1:], walk.clip.translations[1:], walk.clip.frame_time)  # without the T-pose
    window = make_window(imported_rig(walk.skeleton, clip))
    panel = panel_of(window)
    assert window.lint.findings == [] and window.lint.report is not None
    assert panel.stack.currentWidget() is panel.empty and "No findings" in panel.empty.text()
    assert "No findings" not in panel.summary.text() and "Linted in" in panel.summary.text()
    assert window.timeline_dock.widget().plot.lint_marks.marks == []
    assert not panel.fix_all_button.isEnabled()


def test_the_flip_is_listed_and_marked_over_its_frames(qtbot, opened):
    window, frames = opened
    i = flip_index(window, frames)
    f = window.lint.findings[i]
    assert (f.frame_start, f.frame_end) == (frames[0], frames[-1]) and f.severity == "error"
    row = panel_of(window).rows()[i]
    assert [row.text(c) for c in range(4)] == ["error", "pole_flip", f"{LEG} / {f.joint}", f"{frames[0]}–{frames[-1]}"]

    plot = window.timeline_dock.widget().plot
    mark = plot.lint_marks.marks[i]
    assert mark.start < frame_time(window, frames[0]) < frame_time(window, frames[-1]) < mark.end
    assert mark.end - mark.start == pytest.approx(frame_time(window, len(frames)), rel=1e-9)
    assert "pole_flip" in mark.text and mark.severity == "error"
    # Drawn: the lane is the error red over the flip's frames and empty at the clip's middle.
    image = image_array(plot.grab().toImage())
    scale = plot.devicePixelRatioF()

    def pixel(t):
        p = lane_point(window, t)
        return image[int(p.y() * scale), int(p.x() * scale)].astype(int)

    red = np.array(SEVERITY_RGB["error"])
    assert np.abs(pixel(frame_time(window, 0.5 * (frames[0] + frames[-1]))) - red).max() < 40
    assert np.abs(pixel(0.5 * window.rig.clip.duration) - red).max() > 100


def test_a_click_on_the_mark_selects_the_row_and_goes_there(qtbot, opened):
    window, frames = opened
    i = flip_index(window, frames)
    timeline = window.timeline_dock.widget()
    window.document.select("right_arm")
    timeline.scrub_to(0.0)
    click(qtbot, timeline.plot.viewport(), lane_point(window, frame_time(window, 0.5 * (frames[0] + frames[-1]))))
    assert window.rig.time == pytest.approx(frame_time(window, frames[0]), abs=1e-9)
    assert window.lint.selected == i and window.document.selected == LEG
    assert panel_of(window).tree.currentItem() is panel_of(window).rows()[i]
    assert timeline.plot.lint_marks.selected == i
    assert window.undo_stack.count() == 0  # going to a finding is not an edit


def test_a_drag_from_a_mark_still_scrubs(qtbot, opened):
    window, frames = opened
    timeline = window.timeline_dock.widget()
    start = lane_point(window, frame_time(window, 0.5 * (frames[0] + frames[-1])))
    end_time = 0.8 * window.rig.clip.duration
    mouse_drag(qtbot, timeline.plot.viewport(), start, lane_point(window, end_time))
    assert near_frame(timeline, end_time)
    assert window.lint.selected == -1


def test_a_click_on_the_row_goes_there_and_selects_the_chain(qtbot, opened):
    window, frames = opened
    i = flip_index(window, frames)
    panel = panel_of(window)
    window.document.select("right_arm")
    window.timeline_dock.widget().scrub_to(0.0)
    tree = panel.tree
    rect = tree.visualItemRect(panel.rows()[i])
    QTest.mouseClick(tree.viewport(), LEFT, NO_MOD, rect.center())
    assert window.rig.time == pytest.approx(frame_time(window, frames[0]), abs=1e-9)
    assert window.document.selected == LEG
    assert window.findChild(QComboBox, "chainSelector").currentText() == LEG
    assert window.timeline_dock.widget().plot.lint_marks.selected == i


def test_fix_selected_repairs_the_flip_and_undo_brings_the_clip_back(qtbot, opened):
    window, frames = opened
    before = window.rig.clip
    rotations = before.rotations.copy()
    panel = panel_of(window)
    i = flip_index(window, frames)
    QTest.mouseClick(panel.tree.viewport(), LEFT, NO_MOD, panel.tree.visualItemRect(panel.rows()[i]).center())
    assert panel.fix_selected_button.isEnabled()
    QTest.mouseClick(panel.fix_selected_button, LEFT)
    wait_solved(qtbot, window)
    assert window.undo_stack.count() == 1
    assert window.rig.clip is not before
    # The panel linted the repaired clip: the flip is gone, here and in a fresh lint.
    assert not [f for f in window.lint.findings if f.kind == "pole_flip"]
    assert not [f for f in lint_clip(window.rig.skeleton, window.rig.clip).findings if f.kind == "pole_flip"]
    assert all(m.severity != "error" or "pole_flip" not in m.text for m in window.timeline_dock.widget().plot.lint_marks.marks)
    assert "Fixed 1 finding" in panel.summary.text()

    window.action_undo.trigger()
    wait_solved(qtbot, window)
    np.testing.assert_allclose(window.rig.clip.rotations, rotations, rtol=0, atol=1e-12)
    flip_index(window, frames)  # listed again
    window.action_redo.trigger()
    assert not [f for f in window.lint.findings if f.kind == "pole_flip"]


def test_fix_all_leaves_what_it_does_not_repair(qtbot, opened):
    window, _ = opened
    panel = panel_of(window)
    QTest.mouseClick(panel.fix_all_button, LEFT)
    kinds = {f.kind for f in window.lint.findings}
    assert "pole_flip" not in kinds and window.undo_stack.count() == 1
    # Only the reference frame is left: the flip's rotation jumps went with it.
    assert [(f.kind, f.frame_start) for f in window.lint.findings] == [("discontinuity", 0)]
    assert not panel.fix_all_button.isEnabled()


def test_hovering_a_mark_says_what_it_is(qtbot, opened):
    window, frames = opened
    plot = window.timeline_dock.widget().plot
    vp = plot.viewport()
    for t in (frame_time(window, 0.5 * (frames[0] + frames[-1])), 0.5 * window.rig.clip.duration):
        QTest.mouseMove(vp, lane_point(window, t).toPoint())
        qtbot.wait(40)  # pyqtgraph sends hover events at most every few milliseconds
        QTest.mouseMove(vp, (lane_point(window, t) + QPointF(0.4, 0)).toPoint())
        qtbot.wait(40)
        if t < 0.5 * window.rig.clip.duration:
            tip = plot.lint_marks.toolTip()
            assert "pole_flip" in tip and f"{frames[0]}–{frames[-1]}" in tip and LEG in tip
        else:
            assert plot.lint_marks.toolTip() == ""


def test_findings_group_and_sort(qtbot, opened):
    window, frames = opened
    panel = panel_of(window)
    tree = panel.tree
    panel.group.setCurrentIndex(panel.group.findData("kind"))
    groups = {tree.topLevelItem(i).text(0): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}
    kinds = {f.kind for f in window.lint.findings}
    assert tree.topLevelItemCount() == len(kinds) > 1
    assert set(groups) == {f"{k} ({sum(f.kind == k for f in window.lint.findings)})" for k in kinds}
    assert sum(g.childCount() for g in groups.values()) == len(window.lint.findings)
    flip = next(g for name, g in groups.items() if name.startswith("pole_flip"))
    assert flip.child(0).data(0, Qt.ItemDataRole.UserRole) == flip_index(window, frames)
    # A group row selected is its findings: Fix selected has a flip to repair.
    tree.clearSelection()
    flip.setSelected(True)
    assert panel.selected_indices() == [flip_index(window, frames)] and panel.fix_selected_button.isEnabled()

    panel.group.setCurrentIndex(panel.group.findData("none"))
    header = tree.header()
    QTest.mouseClick(header.viewport(), LEFT, NO_MOD, header.rect().topLeft() + QPointF(header.sectionPosition(0) + 10, 5).toPoint())
    ranks = [{"info": 0, "warning": 1, "error": 2}[tree.topLevelItem(i).text(0)] for i in range(tree.topLevelItemCount())]
    assert ranks in (sorted(ranks), sorted(ranks, reverse=True)) and len(set(ranks)) > 1
    QTest.mouseClick(header.viewport(), LEFT, NO_MOD, header.rect().topLeft() + QPointF(header.sectionPosition(0) + 10, 5).toPoint())
    again = [{"info": 0, "warning": 1, "error": 2}[tree.topLevelItem(i).text(0)] for i in range(tree.topLevelItemCount())]
    assert again == ranks[::-1]


def test_the_rigs_own_chains_and_limits_are_linted_as_lint_rig_does(qtbot, capsys, walk, walk_window, tmp_path):
    """A cone limit on the left knee: the panel's findings are `rigedit lint CLIP --rig PRESET`'s."""
    import json

    from rigedit.cli import main
    from rigedit.core.ik.limits import ConeLimit

    rig = imported_rig(walk.skeleton, walk.clip)
    rig.chain(LEG).limits = {"LeftLeg": ConeLimit(max_deg=40.0)}
    rig.save(tmp_path / "limited.json")
    assert walk_window.open_preset(tmp_path / "limited.json")
    capsys.readouterr()
    assert main(["lint", str(CMU), "--rig", str(tmp_path / "limited.json"), "--json"]) == 0
    cli = [(f["kind"], f["chain"], f["joint"], f["frame_start"], f["frame_end"], f["severity"])
           for f in json.loads(capsys.readouterr().out)["findings"]]
    shown = [(f.kind, f.chain, f.joint, f.frame_start, f.frame_end, f.severity) for f in walk_window.lint.findings]
    assert any(k == "limit" for k, *_ in shown) and shown == cli
    assert len(panel_of(walk_window).rows()) == len(shown)


def test_a_window_made_on_a_saved_take_fits_the_timeline_to_its_clip(make_window, faulted):
    """As File > Open does (`rigedit take.json` makes the window on the loaded rig): every
    mark is inside the timeline's range."""
    path, _ = faulted
    window = make_window(Rig.load(path))
    timeline = window.timeline_dock.widget().timeline
    clip = window.rig.clip
    assert (timeline.start, timeline.end) == pytest.approx((0.0, clip.duration))
    assert timeline.frame_rate == pytest.approx(clip.frame_rate)
    assert window.lint.findings and all(m.end <= clip.duration + clip.frame_time
                                        for m in window.timeline_dock.widget().plot.lint_marks.marks)


def test_the_lint_button_lints_again_after_a_limit_is_set(qtbot, opened):
    """Editing a chain does not re-lint by itself (Lint does): a 40 degree knee cone set in
    the property dock's data shows up when the Lint button is pressed."""
    from rigedit.core.ik.limits import ConeLimit

    window, _ = opened
    assert not [f for f in window.lint.findings if f.kind == "limit"]
    assert window.document.edit_chain(LEG, "limit", {"limits": {"LeftLeg": ConeLimit(max_deg=40.0)}})
    assert not [f for f in window.lint.findings if f.kind == "limit"]
    QTest.mouseClick(panel_of(window).run_button, LEFT)
    limits = [f for f in window.lint.findings if f.kind == "limit"]
    assert limits and {(f.chain, f.joint) for f in limits} == {(LEG, "LeftLeg")}
    assert len(window.timeline_dock.widget().plot.lint_marks.marks) == len(window.lint.findings)


def test_the_clips_measures_are_shown_and_follow_a_fix(qtbot, opened):
    """The dock shows the report's measures of the rig's clip (rigedit report's numbers); the
    flipped thigh's four frames are jerk spikes, and after Fix all the line is the repaired
    clip's, without them."""
    from rigedit.app.lint_panel import measures_text
    from rigedit.core.lint.of_rig import rig_chains
    from rigedit.core.quality import measure_clip

    window, _ = opened
    panel = panel_of(window)

    def measured() -> dict:
        chains, limits = rig_chains(window.rig)
        return measure_clip(window.rig.skeleton, window.rig.clip, chains, limits=limits).summary()

    before = measured()
    assert panel.measures.isVisible() and panel.measures.text() == measures_text(before)
    assert "foot skate" in panel.measures.text() and before["jitter_spike_count"] > 0
    # All of it is shown, on as many lines as the dock's width needs (none cut at its edge).
    box, metrics = panel.measures.contentsRect(), panel.measures.fontMetrics()
    lines = box.height() // metrics.lineSpacing()
    assert metrics.horizontalAdvance(panel.measures.text()) <= lines * box.width()
    QTest.mouseClick(panel.fix_all_button, LEFT)
    wait_solved(qtbot, window)
    after = measured()
    assert panel.measures.text() == measures_text(after) != measures_text(before)
    assert after["jitter_spike_count"] < before["jitter_spike_count"]
    window.action_undo.trigger()
    assert panel.measures.text() == measures_text(before)
