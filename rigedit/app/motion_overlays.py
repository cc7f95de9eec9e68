"""View > Onion Skin and View > Motion Trails: which frames they need, when to solve them
again, and handing the solved frames to their views (viewport/onion_skin.py and
viewport/motion_trail.py).

Solved frames (every joint's world position, from the motion thread) are cached under a key
of everything they depend on except the time: the rig, its animated pose's inputs
(`Rig.input_version`: clip, body, pose layer), the timeline's keys, the chains' settings
that no key drives, full body. Moving the time (scrubbing, playing) only solves the frames
not cached yet; an edit changes the key and solves them again. Never during a handle drag:
the ghosts and trails drawn before it stay until the drag is let go. One job at a time, at
most BATCH frames, so a job under way when a drag starts ends within a frame or two.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from rigedit.core.motion_frames import frame_at, frame_span

from .motion_worker import MotionJob, MotionResult, MotionThread
from .viewport import palette
from .viewport.motion_trail import MotionTrailView, Trail
from .viewport.onion_skin import Ghost, OnionSkinView

BATCH = 40  # frames per job
KEEP = 4096  # cached frames kept under one key before the ones not needed now are dropped


@dataclass(frozen=True)
class OnionSettings:
    before: int = 2  # ghosts before the current frame
    after: int = 2  # and after it
    step: int = 5  # frames between ghosts
    trail_seconds: float = 2.0  # a motion trail spans this long either side of the current time

    def checked(self) -> "OnionSettings":
        for name in ("before", "after"):
            if not 0 <= getattr(self, name) <= 20:
                raise ValueError(f"onion skin: {name} must be 0 to 20 ghosts, got {getattr(self, name)}")
        if not 1 <= self.step <= 1000:
            raise ValueError(f"onion skin: step must be 1 to 1000 frames, got {self.step}")
        if not 0.0 < self.trail_seconds <= 60.0:
            raise ValueError(f"motion trail: span must be above 0 and at most 60 s, got {self.trail_seconds}")
        return self


def trail_joints(document) -> list[tuple[int, tuple]]:
    """The joints the motion trails follow, with their colours: the selected joints
    (`document.selected_joints`, joint names), else every chain's tip in its chain's colour."""
    rig = document.rig
    selected = document.selected_joints
    if selected:
        return [(rig.skeleton.index(name), palette.TRAIL) for name in selected]
    return [(rig.skeleton.index(rig.chain(n).joints[-1]), palette.chain_colour(k))
            for k, n in enumerate(rig.chain_names)]


class MotionOverlays(QObject):
    drawn = Signal()  # the ghosts or trails shown changed
    failed = Signal(str)

    def __init__(self, document, viewport, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.viewport = viewport
        self.onion = OnionSkinView(viewport)
        self.trail = MotionTrailView(viewport)
        self.settings = OnionSettings()
        self.onion_on = False
        self.trails_on = False
        self.dialog = None  # View > Onion Skin Settings (onion_dialog.py), made on first use
        self.thread = MotionThread(self)
        self.thread.done.connect(self._done)
        self.thread.failed.connect(self._failed)
        self._key = None
        self._cache: dict[int, np.ndarray] = {}
        self._busy = False
        self._dragging = False
        self._timer = QTimer(self)  # many signals in one event-loop turn: one update
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._update)
        document.goals_changed.connect(self.poke)
        document.rig_replaced.connect(self._rig_replaced)
        document.selection_changed.connect(self._selection_changed)
        viewport.dragging.connect(self._drag)
        # Trails follow the selected joints; a joint rotation under way (R, the gizmo's
        # rings) holds the ghosts as a handle drag does.
        document.joints_selected.connect(self._selection_changed)
        viewport.rotating.connect(self._rotating)

    # --- switches -----------------------------------------------------------------------

    def set_onion(self, on: bool) -> None:
        self.onion_on = bool(on)
        if not self.onion_on:
            self.onion.clear()
            self.viewport.update()
        self.poke()

    def set_trails(self, on: bool) -> None:
        self.trails_on = bool(on)
        if not self.trails_on:
            self.trail.clear()
            self.viewport.update()
        self.poke()

    def set_settings(self, settings: OnionSettings) -> None:
        self.settings = settings.checked()
        self.poke()

    def stop(self) -> None:
        """The window closes: no more updates, and the thread joined."""
        self._timer.stop()
        for signal, slot in ((self.doc.goals_changed, self.poke), (self.doc.rig_replaced, self._rig_replaced),
                             (self.doc.selection_changed, self._selection_changed)):
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass
        self.thread.stop()

    def idle(self) -> bool:
        """Nothing left to solve or draw for now (tests and scripts wait on it)."""
        return (not self._busy and not self._timer.isActive() and _same(self._key, self._inputs_key())
                and all(f in self._cache for f in self._needed()))

    # --- which frames ---------------------------------------------------------------------

    def current_frame(self) -> int:
        return frame_at(self.doc.rig, self.doc.rig.time)

    def ghost_frames(self) -> list[tuple[int, int]]:
        """(offset, frame) of each ghost: -1, -2, ... before the current frame, 1, 2, ... after,
        every `step` frames; those past the clip's (or timeline's) ends are left out."""
        first, last, _ = frame_span(self.doc.rig)
        now, s = self.current_frame(), self.settings
        out = [(-k, now - k * s.step) for k in range(s.before, 0, -1)]
        out += [(k, now + k * s.step) for k in range(1, s.after + 1)]
        return [(k, f) for k, f in out if first <= f <= last]

    def trail_frames(self) -> list[int]:
        first, last, dt = frame_span(self.doc.rig)
        now, reach = self.current_frame(), int(round(self.settings.trail_seconds / dt))
        return list(range(max(first, now - reach), min(last, now + reach) + 1))

    def _needed(self) -> list[int]:
        """Frames to solve, the ghosts' first (they show sooner)."""
        frames = [f for _, f in self.ghost_frames()] if self.onion_on else []
        if self.trails_on:
            frames += self.trail_frames()
        return list(dict.fromkeys(frames))

    # --- when ------------------------------------------------------------------------------

    def poke(self) -> None:
        """Something changed: look again (after this event-loop turn), unless a drag is on."""
        if (self.onion_on or self.trails_on) and not self._dragging:
            self._timer.start()

    def _drag(self, on: bool) -> None:
        self._dragging = bool(on)
        if not on:
            self.poke()

    def _rig_replaced(self) -> None:
        """Another rig: the last one's ghosts and trails go now, not when the new ones come."""
        self.onion.clear()
        self.trail.clear()
        self.viewport.update()
        self.poke()

    def _rotating(self, status: str) -> None:
        if bool(status) != self._dragging:
            self._drag(bool(status))

    def _selection_changed(self, *_) -> None:
        if self.trails_on:
            self._draw()

    def _update(self) -> None:
        if self._dragging:
            return
        key = self._inputs_key()
        if not _same(key, self._key):
            self._key, self._cache = key, {}
        self._draw()
        self._request()

    def _inputs_key(self) -> tuple:
        rig = self.doc.rig
        return (self.doc.generation, id(rig), rig.input_version, rig.full_body, rig.timeline.copy(),
                _unkeyed_settings(rig))

    def _request(self) -> None:
        if self._busy or self._dragging:
            return
        missing = [f for f in self._needed() if f not in self._cache][:BATCH]
        if missing:
            self._busy = True
            self.thread.post(MotionJob(self._key, self.doc.rig.copy(), tuple(missing)))

    def _done(self, result: MotionResult) -> None:
        self._busy = False
        if result.key is self._key:
            self._cache.update(zip(result.frames, result.positions))
            if len(self._cache) > KEEP:
                needed = set(self._needed())
                self._cache = {f: p for f, p in self._cache.items() if f in needed}
            if not self._dragging:
                self._draw()
        self.poke()  # more frames to solve, or the inputs moved on while this one ran

    def _failed(self, message: str) -> None:
        self._busy = False
        self.failed.emit(f"Onion skin / motion trails: {message}")

    # --- drawing ---------------------------------------------------------------------------

    def _draw(self) -> None:
        """Show what the cache holds for now; a part whose frames are not all solved yet
        keeps what it showed (no flicker while they come)."""
        changed = False
        ghosts = self.ghost_frames() if self.onion_on else []
        if self.onion_on and all(f in self._cache for _, f in ghosts):
            self.onion.show([Ghost(k, f, self._cache[f]) for k, f in ghosts], self.doc.rig.skeleton.parents)
            changed = True
        frames = self.trail_frames() if self.trails_on else []
        if self.trails_on and all(f in self._cache for f in frames):
            stack = np.array([self._cache[f] for f in frames])
            fa = np.array(frames, dtype=np.int64)
            trails = [Trail(j, colour, fa, stack[:, j]) for j, colour in trail_joints(self.doc)]
            _, _, dt = frame_span(self.doc.rig)
            self.trail.show(trails, self.current_frame(), 1.0 / dt)
            changed = True
        if changed:
            self.viewport.update()
            self.drawn.emit()


def _unkeyed_settings(rig) -> tuple:
    """Every chain's settings with the fields keys drive masked out: those change with the
    time, and the frames solved do not depend on them (the keys are in the key already)."""
    tl = rig.timeline
    out = []
    for name in rig.chain_names:
        ch = rig.chain(name)
        track = tl.track(name)
        masked = {kind: None for kind in ("weight", "target", "pole") if len(track.curve(kind))}
        if ch.following:
            masked.update(target=None, pole=None)
        out.append((name, dataclasses.replace(ch.settings(), **masked)))
    return tuple(out)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except ValueError:  # a field holding an array compares element-wise: call it changed
        return False
