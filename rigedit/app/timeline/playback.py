"""Play/pause: steps through the timeline's frames in real time, looping over its range.

The frame shown is worked out from the wall clock, not counted per tick, so a slow solve or
a busy machine drops frames instead of slowing the animation down.
"""
from __future__ import annotations

import math
from typing import Callable

from PySide6.QtCore import QElapsedTimer, QObject, QTimer, Signal

from rigedit.core.timeline import Timeline


class Playback(QObject):
    running_changed = Signal(bool)

    def __init__(self, timeline: Callable[[], Timeline], now: Callable[[], float], show: Callable[[float], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timeline = timeline
        self._now = now
        self._show = show
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._clock = QElapsedTimer()
        self._from_frame = 0
        self._last_frame: int | None = None

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def toggle(self) -> None:
        self.stop() if self.running else self.start()

    def start(self) -> None:
        if self.running:
            return
        tl = self._timeline()
        frame = tl.frame_at(self._now())
        if not tl.first_frame <= frame < tl.last_frame:
            frame = tl.first_frame  # from the end (or outside the range), play from the start
        self._from_frame = frame
        self._last_frame = None
        self._clock.start()
        self._timer.start(max(1, int(1000.0 / tl.frame_rate)))
        self.running_changed.emit(True)

    def stop(self) -> None:
        if self.running:
            self._timer.stop()
            self.running_changed.emit(False)

    def _tick(self) -> None:
        tl = self._timeline()
        first, span = tl.first_frame, tl.last_frame - tl.first_frame + 1
        advanced = math.floor(self._clock.elapsed() / 1000.0 * tl.frame_rate)
        frame = first + (self._from_frame - first + advanced) % span
        if frame != self._last_frame:
            self._last_frame = frame
            self._show(tl.time_of_frame(frame))
