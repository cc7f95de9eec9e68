"""The timeline's undo command: one chain's track before and after an edit.

Tracks are immutable values (rigedit.core.timeline), so undo and redo just put one back.
Undo also puts back the chain's own weight, target and pole as they were before the edit:
removing a chain's last key must not leave the weight wherever that key had driven it.
`changed(chain, live)` lets the dock apply those, redraw and re-drive the rig.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from PySide6.QtGui import QUndoCommand

from rigedit.core.timeline import Timeline, Track

Changed = Callable[[str, Mapping[str, Any] | None], None]


class TrackEditCommand(QUndoCommand):
    def __init__(self, timeline: Timeline, chain: str, before: Track, after: Track, text: str,
                 live_before: Mapping[str, Any], changed: Changed) -> None:
        super().__init__(text)
        self.timeline = timeline
        self.chain = chain
        self.before = before
        self.after = after
        self.live_before = dict(live_before)
        self._changed = changed

    def redo(self) -> None:
        self.timeline.set_track(self.chain, self.after)
        self._changed(self.chain, None)

    def undo(self) -> None:
        self.timeline.set_track(self.chain, self.before)
        self._changed(self.chain, self.live_before)

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt's name)
        """A later edit of the same track: this one now ends where that one does (an
        auto-keyed slider drag, commands.EditChainCommand)."""
        if not isinstance(other, TrackEditCommand) or other.chain != self.chain or other.timeline is not self.timeline:
            return False
        self.after = other.after
        return True
