"""Dragging the body handle: the root slides on the ground plane (XZ, its height kept), or,
with Shift held, up and down on a vertical plane facing the camera. A gait rig's legs step
live as it goes: a ticker walks the gait on in real time while the body is dragged and until
every foot has settled after release, since the feet must keep stepping while the mouse is still.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication

from ..body import BodyState
from ..document import Document
from .camera import ray_plane
from .gizmos import Handle

UP = np.array([0.0, 1.0, 0.0])
# A ray closer than this to the plane it slides on would throw the body toward the horizon
# for a pixel of mouse travel: the body holds still until the mouse comes back.
MIN_GRAZE_RAD = math.radians(2.0)
TICK_MS = 16  # about one gait step a displayed frame
MAX_TICK_S = 0.1  # a stalled GUI walks the legs on by at most this much per tick (no replant)
# Seconds with no foot moving, after release, before the ticker stops: longer than the gait
# waits (Gait.stop_hold) before it calls the body stopped and sends the feet home.
QUIET_S = 0.3


@dataclass
class BodyDrag:
    handle: Handle
    start: BodyState  # for undo and Esc
    origin: np.ndarray  # the body's position when pressed
    vertical: bool  # Shift: up and down
    plane_point: np.ndarray  # the body's position when this plane was fixed (press, or Shift toggled)
    plane_normal: np.ndarray
    grab: np.ndarray  # where the ray met the plane then
    moved: bool = False


def shift_held() -> bool:
    return bool(QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier)


def drag_plane(body: np.ndarray, forward: np.ndarray, vertical: bool) -> np.ndarray:
    """The normal of the plane through the body that the drag slides on."""
    if not vertical:
        return UP.copy()
    flat = np.array([forward[0], 0.0, forward[2]])
    n = float(np.linalg.norm(flat))
    # Looking straight down there is no vertical plane facing the camera; any vertical one will do.
    return flat / n if n > 1e-9 else np.array([0.0, 0.0, 1.0])


def meet(origin: np.ndarray, direction: np.ndarray, point: np.ndarray, normal: np.ndarray) -> np.ndarray | None:
    if abs(float(direction @ normal)) < math.sin(MIN_GRAZE_RAD):
        return None
    return ray_plane(origin, direction, point, normal)


def begin_body(doc: Document, handle: Handle, origin: np.ndarray, direction: np.ndarray,
               forward: np.ndarray) -> BodyDrag | None:
    body = doc.body_position()
    if body is None:
        return None
    vertical = shift_held()
    normal = drag_plane(body, forward, vertical)
    grab = meet(origin, direction, body, normal)
    if grab is None:
        return None
    return BodyDrag(handle, doc.body_state(), body.copy(), vertical, body.copy(), normal, grab)


def move_body(doc: Document, d: BodyDrag, origin: np.ndarray, direction: np.ndarray, forward: np.ndarray) -> np.ndarray | None:
    """Slide the body under the mouse; returns where it is now, or None when it held still."""
    vertical = shift_held()
    if vertical != d.vertical:  # Shift pressed or let go: carry on from here on the other plane
        here = doc.body_position()
        normal = drag_plane(here, forward, vertical)
        grab = meet(origin, direction, here, normal)
        if grab is None:
            return None
        d.vertical, d.plane_point, d.plane_normal, d.grab = vertical, here, normal, grab
    hit = meet(origin, direction, d.plane_point, d.plane_normal)
    if hit is None:
        return None
    step = hit - d.grab
    if d.vertical:
        step = np.array([0.0, step[1], 0.0])
    else:
        step[1] = 0.0  # the plane is level; this only drops round-off, so the height stays exact
    value = d.plane_point + step
    d.moved = True
    doc.set_body_live(d.start, value - d.origin)
    return value


class GaitTicker:
    """Walks a gait rig's legs on in real time while its body is dragged and until they
    settle. While the timeline plays, the timeline walks them (Document.set_time) and the
    ticker stands aside, so the gait is not advanced twice."""

    def __init__(self, doc: Document, dragging: Callable[[], bool]) -> None:
        self.doc = doc
        self.dragging = dragging  # is the body being dragged now?
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)
        self._last = 0.0
        self._time = 0.0
        self._quiet = 0.0

    def start(self) -> None:
        if self.doc.rig.gait is None:
            return
        self._quiet = 0.0
        if not self.timer.isActive():
            self._last = time.perf_counter()
            self._time = self.doc.rig.time
            self.timer.start()

    @property
    def running(self) -> bool:
        return self.timer.isActive()

    def tick(self) -> None:
        now = time.perf_counter()
        dt = min(max(now - self._last, 1e-4), MAX_TICK_S)
        self._last = now
        rig = self.doc.rig
        window = self.doc.parent()
        if rig.gait is None or (window is not None and hasattr(window, "isVisible") and not window.isVisible()):
            self.timer.stop()  # nothing to walk, or the editor was closed (its solver is gone)
            return
        if rig.time != self._time:  # the timeline is driving the gait
            self._time = rig.time
            self._quiet = 0.0
            return
        moved = self.doc.step_gait(dt)
        self._quiet = 0.0 if moved or self.dragging() else self._quiet + dt
        if self._quiet >= QUIET_S:
            self.timer.stop()

    def stop(self) -> None:
        self.timer.stop()
