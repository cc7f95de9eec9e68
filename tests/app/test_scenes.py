"""Issue 8 in the editor: the reach clamp / soft IK / look-at fields of the property dock
(undoable), and the bundled scenes that open from File > New and play."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QWidget

from rigedit.core.chain_uses import LookAtSettings

from .helpers import wait_solved


def select(window, name):
    combo = window.findChild(QComboBox, "chainSelector")
    idx = combo.findText(name)
    combo.setCurrentIndex(idx)
    combo.activated.emit(idx)
    assert window.document.selected == name


def test_reach_clamp_and_softness_fields_edit_the_chain_and_undo(qtbot, window):
    select(window, "left_arm")
    clamp = window.findChild(QDoubleSpinBox, "reachClamp")
    soft = window.findChild(QDoubleSpinBox, "softness")
    assert clamp.isVisibleTo(window) and clamp.value() == 99.9
    clamp.setValue(100.0)
    assert window.rig.chain("left_arm").reach_clamp == 1.0
    soft.setValue(50.0)
    assert window.rig.chain("left_arm").softness == 0.05
    # A target at exactly full reach: soft IK (50 mm) keeps the unclamped arm short of it by
    # 50 mm * e^-1 (rigedit.core.ik.soft), where plain IK would stretch it straight.
    rig = window.rig
    shoulder, elbow, hand = (rig.world_position(n) for n in ("LeftArm", "LeftForeArm", "LeftHand"))
    full = np.linalg.norm(elbow - shoulder) + np.linalg.norm(hand - elbow)
    window.document.edit_chain("left_arm", "t", {"target": tuple(shoulder + full * np.array([0.6, -0.8, 0.0]))})
    wait_solved(qtbot, window)
    reach = np.linalg.norm(rig.world_position("LeftHand") - rig.world_position("LeftArm"))
    assert abs((full - reach) - 0.05 * np.exp(-1.0)) < 1e-4
    window.undo_stack.undo()  # the target
    window.undo_stack.undo()  # the softness
    assert window.rig.chain("left_arm").softness == 0.0 and soft.value() == 0.0
    window.undo_stack.undo()
    assert window.rig.chain("left_arm").reach_clamp == 0.999 and clamp.value() == 99.9


def test_switching_to_look_at_shows_the_aim_fields_and_edits_are_undoable(qtbot, make_window):
    from rigedit.core.rig import Rig

    rig = Rig.default()
    rig.add_chain("look", ["Neck", "Head"], solver="look_at")
    window = make_window(rig)
    select(window, "look")
    p = window.properties.panel
    assert p.solver.currentData() == "look_at"
    cone = window.findChild(QDoubleSpinBox, "lookMaxAngle")
    assert cone.isVisibleTo(window)
    assert not window.findChild(QDoubleSpinBox, "reachClamp").isVisibleTo(window)
    cone.setValue(30.0)
    assert window.rig.chain("look").look_at.max_angle_deg == 30.0
    weights = p.uses.look_weights
    weights.setText("0.25, 0.75")
    weights.editingFinished.emit()
    assert window.rig.chain("look").look_at.weights == (0.25, 0.75)
    weights.setText("1, 2, 3")
    weights.editingFinished.emit()  # refused: three shares for two joints
    assert window.rig.chain("look").look_at.weights == (0.25, 0.75)
    head = window.rig.world_position("Head")
    window.document.edit_chain("look", "t", {"target": tuple(head + np.array([2.0, 0.0, 0.2]))})
    wait_solved(qtbot, window)
    window.undo_stack.undo()
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert window.rig.chain("look").look_at == LookAtSettings()


# --- bundled scenes ---------------------------------------------------------------------------


def open_scene(qtbot, window, stem: str):
    from rigedit.core.rig import BUNDLED_PRESETS

    window.open_preset(BUNDLED_PRESETS / f"{stem}.json")
    wait_solved(qtbot, window)
    panel = window.timeline_dock.widget()
    return panel


def test_the_scenes_are_in_the_file_new_menu(window):
    titles = set()
    for action in window.menuBar().actions():
        menu = action.menu()
        for sub in menu.actions() if menu else ():
            if sub.menu() is not None:
                titles |= {a.text() for a in sub.menu().actions()}
    assert {"Look At", "Uneven Ground Walk", "Creature Gait"} <= titles, titles


def test_look_at_scene_plays_and_the_head_follows_the_keyed_target(qtbot, window):
    panel = open_scene(qtbot, window, "look_at")
    assert window.rig.chain("look").solver == "look_at"
    panel.scrub_to(1.6)  # the key above and ahead of the head
    wait_solved(qtbot, window)
    rig = window.rig
    pos, quats = rig.skeleton.fk(rig.pose)
    h = rig.skeleton.index("Head")
    from rigedit.core.transforms import quat_rotate

    fwd = quat_rotate(quats[h], np.array([0.0, 0.0, 1.0]))
    to = np.asarray(rig.chain("look").target) - pos[h]
    assert to[1] > 0.5  # the keyed target is up there
    # An exact aim can round the cosine just past 1.
    assert np.degrees(np.arccos(np.clip(fwd @ to / np.linalg.norm(to), -1.0, 1.0))) < 0.5
    # Play runs the clock forward and the head keeps following.
    panel.play_button.click()
    qtbot.waitUntil(lambda: abs(panel.time - 1.6) > 0.3, timeout=5000)
    panel.play_button.click()
    wait_solved(qtbot, window)
    assert window.document.reports["look"].reached


def test_uneven_ground_walk_scene_shows_its_ground_and_plays_with_feet_on_it(qtbot, window):
    from PySide6.QtWidgets import QCheckBox

    panel = open_scene(qtbot, window, "uneven_ground_walk")
    rig = window.rig
    assert rig.ground is not None and rig.ground.kind == "slope"
    assert window.viewport.ground.item is not None  # the mesh is in the scene
    item = window.viewport.ground.item
    select(window, "left_leg")
    box = window.findChild(QCheckBox, "groundFeet")
    assert box.isChecked()
    panel.scrub_to(2.0)
    wait_solved(qtbot, window)
    assert window.viewport.ground.item is item  # drawn once, not per frame
    foot = rig.world_position("LeftFoot")
    ankle = rig.skeleton.fk(rig.skeleton.rest_pose())[0][rig.skeleton.index("LeftFoot"), 1]
    anim_lift = rig.skeleton.fk(rig.clip.pose_at(2.0))[0][rig.skeleton.index("LeftFoot"), 1] - ankle
    assert anim_lift <= 1e-9  # planted at 2 s in the clip
    assert abs(foot[1] - (rig.ground.field.height(foot[0], foot[2]) + ankle)) < 1e-3
    box.setChecked(False)  # undoable, like every dock edit
    assert not rig.chain("left_leg").ground_feet
    window.undo_stack.undo()
    assert rig.chain("left_leg").ground_feet and box.isChecked()


def test_creature_gait_scene_plays_and_its_legs_step(qtbot, window):
    panel = open_scene(qtbot, window, "creature_gait")
    rig = window.rig
    assert rig.gait is not None
    start = {leg: np.asarray(rig.chain(leg).target).copy() for leg in rig.gait.legs}
    panel.scrub_to(0.0)
    # Frame by frame, as Play drives it: the body walks its path and the feet follow.
    for frame in range(1, 61):
        panel.scrub_to(frame / 30.0)
    wait_solved(qtbot, window)
    moved = [leg for leg in rig.gait.legs if np.linalg.norm(np.asarray(rig.chain(leg).target) - start[leg]) > 0.05]
    assert len(moved) == len(rig.gait.legs), moved
    for leg in rig.gait.legs:
        tip = rig.world_position(rig.chain(leg).joints[-1])
        assert np.linalg.norm(tip - np.asarray(rig.chain(leg).target)) < 2e-3
    panel.play_button.click()
    qtbot.waitUntil(lambda: panel.time > 2.2, timeout=8000)
    panel.play_button.click()


def test_dragging_the_look_target_sphere_turns_the_head(qtbot, window):
    from PySide6.QtCore import QPointF

    from rigedit.core.transforms import quat_rotate

    from .helpers import drag, screen

    open_scene(qtbot, window, "look_at")
    window.viewport.reset_camera()
    window.viewport.sync()
    before = np.asarray(window.rig.chain("look").target).copy()
    start = screen(window, before)
    drag(window.viewport, start, QPointF(start.x() + 120, start.y() - 60))
    wait_solved(qtbot, window)
    rig = window.rig
    after = np.asarray(rig.chain("look").target)
    assert np.linalg.norm(after - before) > 0.05
    assert window.undo_stack.undoText()  # one undoable drag
    pos, quats = rig.skeleton.fk(rig.pose)
    h = rig.skeleton.index("Head")
    fwd = quat_rotate(quats[h], np.array([0.0, 0.0, 1.0]))
    to = after - pos[h]
    # An exact aim can round the cosine just past 1.
    assert np.degrees(np.arccos(np.clip(fwd @ to / np.linalg.norm(to), -1.0, 1.0))) < 0.5
