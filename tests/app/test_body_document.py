"""The body (root joint) as the document moves it, and the body handle's picking, without a
window: exact undo, no-op drags push nothing, bad moves are refused, the gait replants."""
from __future__ import annotations

import numpy as np
import pytest
import rigedit
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.app.document import Document
from rigedit.app.viewport.body_handle import RING_SCALE, pick_body
from rigedit.core.rig import BUNDLED_PRESETS

coord = st.floats(-3.0, 3.0, allow_nan=False)


@pytest.fixture
def doc(qapp):
    return Document(rigedit.Rig.default())


@pytest.fixture
def creature(qapp):
    return Document(rigedit.Rig.load(BUNDLED_PRESETS / "creature_gait.json"))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(coord, coord, coord), min_size=1, max_size=4))
def test_body_moves_undo_and_redo_exactly(qapp, moves):
    doc = Document(rigedit.Rig.load(BUNDLED_PRESETS / "creature_gait.json"))
    states = [doc.body_state()]
    positions = [doc.body_position()]
    for m in moves:
        start = doc.body_state()
        doc.set_body_live(start, m)
        if doc.edit_body("Move body", start):
            states.append(doc.body_state())
            positions.append(doc.body_position())
    for k in range(len(states) - 1, 0, -1):
        doc.undo_stack.undo()
        np.testing.assert_array_equal(doc.body_position(), positions[k - 1])
        np.testing.assert_array_equal(doc.body_state().path, states[k - 1].path)
    for k in range(1, len(states)):
        doc.undo_stack.redo()
        np.testing.assert_array_equal(doc.body_state().offset, states[k].offset)
        np.testing.assert_array_equal(doc.body_state().path, states[k].path)


def test_a_drag_that_ends_where_it_began_pushes_nothing(doc):
    start = doc.body_state()
    doc.set_body_live(start, (0.2, 0.0, 0.1))
    doc.set_body_live(start, (0.0, 0.0, 0.0))
    assert not doc.edit_body("Move body", start)
    assert doc.undo_stack.count() == 0 and not doc.modified


def test_a_body_move_moves_the_animated_root_and_nothing_else(doc):
    rig = doc.rig
    before = rig.animated_pose()
    start = doc.body_state()
    doc.set_body_live(start, (0.25, -0.1, 0.5))
    after = rig.animated_pose()
    np.testing.assert_allclose(after.translations[0], before.translations[0] + [0.25, -0.1, 0.5], atol=1e-15)
    np.testing.assert_array_equal(after.translations[1:], before.translations[1:])
    np.testing.assert_array_equal(after.rotations, before.rotations)


@pytest.mark.parametrize("bad", [(np.nan, 0.0, 0.0), (0.0, np.inf, 0.0), (1.0, 2.0)])
def test_bad_body_moves_are_refused_and_change_nothing(doc, bad):
    start = doc.body_state()
    with pytest.raises(ValueError, match="body move"):
        doc.set_body_live(start, bad)
    np.testing.assert_array_equal(doc.body_state().offset, start.offset)


def test_undo_plants_the_gait_feet_on_their_rest_spots_around_the_body(creature):
    rig = creature.rig
    rig.advance_gait()
    planted = np.array([rig.chain(leg).target for leg in rig.gait.legs])
    start = creature.body_state()
    # The drag: the body walks 0.3 m in 28 moves, the feet step after it. 28, not 30: at 0.01 m
    # a move the 12th lands the rest spots on the 0.12 m step length, where round-off decides.
    for k in range(1, 29):
        creature.set_body_live(start, (0.3 * k / 28, 0.0, 0.0))
        creature.step_gait(1.0 / 60.0)
    walked = np.array([rig.chain(leg).target for leg in rig.gait.legs])
    assert np.all(np.linalg.norm(walked - planted, axis=1) > 0.0)  # every foot left its spot
    assert creature.edit_body("Move body", start)
    np.testing.assert_array_equal([rig.chain(leg).target for leg in rig.gait.legs], walked)  # push jumps nothing
    creature.undo_stack.undo()
    np.testing.assert_allclose([rig.chain(leg).target for leg in rig.gait.legs], planted, atol=1e-12)
    creature.undo_stack.redo()
    np.testing.assert_allclose([rig.chain(leg).target for leg in rig.gait.legs], planted + [0.3, 0.0, 0.0], atol=1e-9)


def test_the_ring_and_the_box_are_picked_and_the_inside_of_the_ring_is_not():
    center = np.array([0.0, 0.5, 0.0])
    r, px = 0.02, 1e-3
    down = np.array([0.0, -1.0, 0.0])
    ring = RING_SCALE * r

    def from_above(x, z):
        return pick_body(np.array([x, 2.0, z]), down, center, r, px)

    assert np.isfinite(from_above(0.0, 0.0))  # the box
    assert np.isfinite(from_above(ring, 0.0)) and np.isfinite(from_above(0.0, -ring))  # the ring
    assert not np.isfinite(from_above(0.5 * ring, 0.0))  # inside the ring, off the box
    assert not np.isfinite(from_above(2.0 * ring, 0.0))  # outside
    # Seen from the side, the box still catches the ray; a ray beside it does not.
    side = np.array([1.0, 0.0, 0.0])
    assert np.isfinite(pick_body(np.array([-2.0, 0.5, 0.0]), side, center, r, px))
    assert not np.isfinite(pick_body(np.array([-2.0, 0.5, 0.5 * ring]), side, center, r, px))
