"""The Lint dock's Fix knows every repair the core makes (core/lint/fix.py's REPAIRS, one
table): a joint turned away for a few frames and back is listed as repairable, Fix Selected
repairs it with real clicks; and the dock's hint names every format a take comes in."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from rigedit.app.lint_panel import DETAIL_COL
from rigedit.core.clip import Clip
from rigedit.core.transforms import quat_from_axis_angle, quat_mul
from rigedit.io import formats
from rigedit.io.bvh import read_bvh

from ..core.lint_faults import CMU
from .helpers import wait_solved
from .test_lint_panel import imported_rig

TORSO = ("LowerBack", "Spine", "Spine1", "Neck", "Head")  # joints of no limb: their jumps are discontinuities


@pytest.fixture(scope="module")
def walk():
    return read_bvh(CMU)


def turned_away(walk, rng) -> tuple[Clip, str, int]:
    """The walk with one torso joint turned 90 degrees for three frames somewhere in it."""
    joint = str(rng.choice(TORSO))
    start = int(rng.integers(40, walk.clip.n_frames - 40))
    rot = walk.clip.rotations.copy()
    j = walk.skeleton.index(joint)
    axis = rng.normal(size=3)
    turn = quat_from_axis_angle(axis / np.linalg.norm(axis), np.radians(90.0))
    rot[start:start + 3, j] = quat_mul(turn, rot[start:start + 3, j])
    return Clip(rot, walk.clip.translations.copy(), walk.clip.frame_time), joint, start


def _turned(window, joint):
    return [i for i, f in enumerate(window.lint.findings) if f.cause == "turned_span" and f.joint == joint]


def test_a_turned_span_is_repairable_and_fix_selected_repairs_it(qtbot, make_window, walk):
    clip, joint, start = turned_away(walk, np.random.default_rng())
    window = make_window(imported_rig(walk.skeleton, clip))
    panel = window.lint_dock.widget()
    window.lint_dock.show()
    window.lint_dock.raise_()
    (i,) = _turned(window, joint)
    f = window.lint.findings[i]
    assert f.frame_start <= start + 2 and f.frame_end >= start
    assert window.lint.repairable(f)
    item = panel.rows()[i]
    assert "not repaired" not in item.toolTip(DETAIL_COL)
    panel.tree.scrollToItem(item)
    rect = panel.tree.visualItemRect(item)
    QTest.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center())
    qtbot.waitUntil(lambda: panel.fix_selected_button.isEnabled())
    QTest.mouseClick(panel.fix_selected_button, Qt.MouseButton.LeftButton)
    wait_solved(qtbot, window)
    assert not _turned(window, joint)


def test_the_hint_without_a_clip_names_every_take_format(window):
    assert window.document.rig.clip is None  # the bundled humanoid
    assert f"Import a {formats.names(formats.CLIPS)} take" in window.lint.message
    assert "USD" in window.lint.message
