"""Dragging a handle: the gizmo controller between the mouse ray and the document.

On press the handle's value is remembered and a plane through the handle, facing the camera,
is fixed; each move puts the handle where the mouse ray meets that plane (keeping the offset
between the handle's centre and the point first grabbed, so it does not jump under the
cursor); release pushes one undo command for the whole drag; cancel (Esc) puts it back. A goal that
follows the clip is moved as an offset keyed at the current frame (core/clip_goals.py), and
its command puts the offset keys back. With full body on, the drag moves the whole body
through the solver thread like any goal, and Esc and undo also put back the solution the drag
started from (a full-body solve depends on where the body was).
The body handle slides on the ground plane instead, and its gait walks (body_drag.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..document import Document
from .body_drag import BodyDrag, GaitTicker, begin_body, move_body
from .camera import ray_plane
from .gizmos import Handle


@dataclass
class HandleDrag:
    handle: Handle
    start: tuple[float, float, float]
    plane_point: np.ndarray
    plane_normal: np.ndarray
    offset: np.ndarray
    moved: bool = False
    # A goal that follows the clip: its offset keys at the press (the drag keys an offset
    # at the current frame; undo puts these back).
    start_keys: tuple | None = None
    # Full body on: the solved state at the press (Rig.solved_state). The body's solve
    # depends on where it was, so Esc and undo put this back, not just the goal.
    solved: object = None


def handle_value(doc: Document, handle: Handle):
    s = doc.settings(handle.chain)
    return s.target if handle.kind == "target" else s.pole


class DragController:
    def __init__(self, document: Document) -> None:
        self.doc = document
        self.active: HandleDrag | BodyDrag | None = None
        self.gait = GaitTicker(document, lambda: isinstance(self.active, BodyDrag))
        self._forward = np.array([0.0, 0.0, -1.0])

    def begin(self, handle: Handle, origin: np.ndarray, direction: np.ndarray, forward: np.ndarray) -> bool:
        if handle.kind == "body":
            self.active = begin_body(self.doc, handle, origin, direction, forward)
            if self.active is None:
                return False
            self._forward = forward.copy()
            self.gait.start()
            return True
        chain = self.doc.rig.chain(handle.chain)
        if handle.kind == "pole" and chain.following:
            return False  # a pole following the clip sits on the animated bend: nothing to drag
        value = handle_value(self.doc, handle)
        if value is None:
            return False
        center = np.array(value, dtype=np.float64)
        grab = ray_plane(origin, direction, center, forward)
        if grab is None:
            return False
        keys = chain.offset_keys if chain.following and handle.kind == "target" else None
        solved = self.doc.rig.solved_state() if self.doc.rig.full_body else None
        self.active = HandleDrag(handle, tuple(value), center, forward.copy(), center - grab, start_keys=keys, solved=solved)
        self.doc.select(handle.chain)
        return True

    def move(self, origin: np.ndarray, direction: np.ndarray) -> np.ndarray | None:
        d = self.active
        if d is None:
            return None
        if isinstance(d, BodyDrag):
            return move_body(self.doc, d, origin, direction, self._forward)
        hit = ray_plane(origin, direction, d.plane_point, d.plane_normal)
        if hit is None:  # the mouse left the half-space in front of the camera: hold still
            return None
        value = hit + d.offset
        d.moved = True
        self.doc.set_chain_live(d.handle.chain, **{d.handle.kind: value})
        return value

    def finish(self) -> bool:
        """Release: one undo command if the handle moved; True if one was pushed."""
        d, self.active = self.active, None
        if d is None:
            return False
        if isinstance(d, BodyDrag):
            # The ticker walks on until the feet settle.
            return self.doc.edit_body("Move body", d.start)
        what = "target" if d.handle.kind == "target" else "pole"
        if d.start_keys is not None:  # one command: the offset keyed at this frame
            keys = self.doc.rig.chain(d.handle.chain).offset_keys
            return self.doc.edit_chain(
                d.handle.chain, f"Move {d.handle.chain} {what}", {"offset_keys": keys}, before={"offset_keys": d.start_keys},
                solved_before=d.solved,
            )
        end = handle_value(self.doc, d.handle)
        return self.doc.edit_chain(
            d.handle.chain, f"Move {d.handle.chain} {what}", {d.handle.kind: end}, before={d.handle.kind: d.start},
            solved_before=d.solved,
        )

    def cancel(self) -> None:
        d, self.active = self.active, None
        if isinstance(d, BodyDrag):
            self.gait.stop()
            self.doc.restore_body_live(d.start)
        elif d is not None and d.start_keys is not None:
            self.doc.set_chain_live(d.handle.chain, offset_keys=d.start_keys)
        elif d is not None:
            self.doc.set_chain_live(d.handle.chain, **{d.handle.kind: d.start})
        if isinstance(d, HandleDrag) and d.solved is not None:
            self.doc.restore_solution(d.solved)  # the body where it was, not solved afresh
