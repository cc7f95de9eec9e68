"""Shared by the joint tests: clicks on bones, keys, the FK the tests expect."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from .helpers import LEFT, screen, wait_solved

ARM = "left_arm"
ELBOW, HAND = "LeftForeArm", "LeftHand"
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier

def bone_middle(window, joint: str, child: str) -> QPointF:
    rig = window.rig
    return screen(window, (rig.world_position(joint) + rig.world_position(child)) / 2)


def click(vp, p: QPointF, button=LEFT, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mouseMove(vp, p.toPoint())
    QTest.mouseClick(vp, button, modifiers, p.toPoint())


def type_keys(vp, *keys) -> None:
    for k in keys:
        QTest.keyClick(vp, k)


def rotation_matrix(axis, degrees: float) -> np.ndarray:
    """Rodrigues' formula: the turn the test expects, made without the editor's quaternions."""
    k = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    a = np.radians(degrees)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(a) * kx + (1 - np.cos(a)) * kx @ kx


def fk_arm(window):
    rig = window.rig
    return rig.world_position(ELBOW).copy(), rig.world_position(HAND).copy()


def ring_point(vp, k: int, angle_deg: float) -> QPointF:
    """Widget point of ring k (global axis k) at angle_deg round it, from the next axis on."""
    line = dict(vp.rings.rings())[("global", k)]
    centre = line.mean(axis=0)
    r = np.linalg.norm(line[0] - centre)
    u, w = np.eye(3)[(k + 1) % 3], np.eye(3)[(k + 2) % 3]
    a = np.radians(angle_deg)
    return vp.world_to_screen(centre + r * (np.cos(a) * u + np.sin(a) * w))


@pytest.fixture
def fk_window(qtbot, window):
    """The humanoid with its left arm's IK off (weight 0): the arm shows its FK rotations."""
    window.document.edit_chain(ARM, "IK off", {"weight": 0.0})
    wait_solved(qtbot, window)
    window.viewport.requestActivate()
    return window
