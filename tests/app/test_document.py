"""Edits go through the undo stack and restore exactly."""
from __future__ import annotations

import numpy as np
import pytest
import rigedit
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.app.document import Document
from rigedit.core.ik.limits import ConeLimit, HingeLimit


@pytest.fixture
def doc(qapp):
    return Document(rigedit.Rig.default())


def test_an_edit_is_one_undo_step_and_undo_restores_exactly(doc):
    before = doc.settings("left_arm")
    assert doc.edit_chain("left_arm", "t", {"target": (0.1, 1.3, 0.2), "weight": 0.5})
    after = doc.settings("left_arm")
    assert after.target == (0.1, 1.3, 0.2) and after.weight == 0.5
    assert doc.undo_stack.count() == 1 and doc.modified
    doc.undo_stack.undo()
    assert doc.settings("left_arm") == before
    assert not doc.modified
    doc.undo_stack.redo()
    assert doc.settings("left_arm") == after


def test_invalid_values_raise_and_change_nothing(doc):
    before = doc.settings("left_arm")
    with pytest.raises(ValueError, match="weight"):
        doc.edit_chain("left_arm", "w", {"weight": 1.5})
    with pytest.raises(ValueError, match="target"):
        doc.edit_chain("left_arm", "t", {"target": (np.nan, 0, 0)})
    with pytest.raises(ValueError, match="two_bone"):
        doc.edit_chain("spine", "s", {"solver": "two_bone"})
    assert doc.settings("left_arm") == before and doc.undo_stack.count() == 0


def test_an_edit_that_changes_nothing_pushes_nothing(doc):
    assert not doc.edit_chain("left_arm", "w", {"weight": doc.settings("left_arm").weight})
    assert doc.undo_stack.count() == 0


def test_edits_with_one_merge_key_merge_into_one_command(doc):
    w0 = doc.settings("left_arm").weight
    for w in (0.9, 0.7, 0.4):
        doc.edit_chain("left_arm", "w", {"weight": w}, merge_key="slider-1")
    doc.edit_chain("left_arm", "w", {"weight": 0.2}, merge_key="slider-2")
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    assert doc.settings("left_arm").weight == 0.4
    doc.undo_stack.undo()
    assert doc.settings("left_arm").weight == w0


def test_undo_only_rewinds_the_fields_the_command_changed(doc):
    doc.edit_chain("left_arm", "tol", {"tolerance": 0.01})
    doc.set_chain_live("left_arm", weight=0.3)  # e.g. the timeline playing a keyed weight
    doc.undo_stack.undo()
    s = doc.settings("left_arm")
    assert s.tolerance == 0.001 and s.weight == 0.3


def test_a_live_change_then_a_commit_with_before_is_one_command_back_to_before(doc):
    t0 = doc.settings("left_arm").target
    for y in (1.0, 1.1, 1.2):
        doc.set_chain_live("left_arm", target=(0.3, y, 0.1))
    assert doc.undo_stack.count() == 0
    doc.edit_chain("left_arm", "drag", {"target": (0.3, 1.2, 0.1)}, before={"target": t0})
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert doc.settings("left_arm").target == t0


def test_limits_edit_and_undo(doc):
    old = dict(doc.rig.chain("spine").limits)
    new = dict(old, Spine1=HingeLimit((0, 0, 1), -10, 45), Chest=ConeLimit(5))
    doc.edit_chain("spine", "lim", {"limits": new})
    assert dict(doc.rig.chain("spine").limits) == new
    doc.undo_stack.undo()
    assert dict(doc.rig.chain("spine").limits) == old


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.tuples(st.floats(-1, 1), st.floats(0, 2), st.floats(-1, 1)), min_size=1, max_size=6))
def test_any_sequence_of_target_edits_undoes_back_to_the_start_exactly(qapp, steps):
    doc = Document(rigedit.Rig.default())
    start = doc.settings("left_arm")
    history = [start]
    for t in steps:
        if doc.edit_chain("left_arm", "t", {"target": t}):  # a repeat of the last value pushes nothing
            history.append(doc.settings("left_arm"))
    assert doc.undo_stack.count() == len(history) - 1
    for expected in reversed(history[:-1]):
        doc.undo_stack.undo()
        assert doc.settings("left_arm") == expected
    for expected in history[1:]:
        doc.undo_stack.redo()
        assert doc.settings("left_arm") == expected


def test_stale_solutions_for_an_old_rig_are_ignored(doc):
    rig = doc.rig
    old_gen = doc.generation
    doc.replace_rig(rigedit.Rig.default(), None)
    assert not doc.apply_solution(old_gen, rig.pose, {}, {})
    assert doc.apply_solution(doc.generation, doc.rig.pose, {}, {})
