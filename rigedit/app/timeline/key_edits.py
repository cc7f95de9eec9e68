"""The timeline's key edits, each one undo command on the window's stack: add, delete and
drag a weight key, its easing (the key's right-click menu), Ease in / Ease out, Key target and
the planted feet's keys (Key plants).

A mixin of TimelinePanel (timeline_dock.py), whose rig, plot and document it uses.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from PySide6.QtWidgets import QMenu

from rigedit.core.plant import PlantSettings, plant_tracks
from rigedit.core.timeline import KINDS, Timeline, Track

from .commands import TrackEditCommand

INTERPOLATION_LABELS = [("ease", "Ease in-out"), ("linear", "Linear"), ("constant", "Constant (hold)")]


class TimelineKeyEdits:

    def _live(self, chain: str) -> dict[str, Any]:
        s = self.doc.settings(chain)
        # A goal following the clip is where the clip and its offset keys put it: nothing to restore.
        skip = ("target", "pole") if self.doc.rig.chain(chain).following else ()
        return {kind: getattr(s, kind) for kind in KINDS if kind not in skip}

    def _push(self, chain: str, before: Track, after: Track, text: str, live: Mapping[str, Any] | None = None) -> bool:
        if after == before:
            return False
        live = self._live(chain) if live is None else live
        self.undo_stack.push(TrackEditCommand(self.timeline, chain, before, after, text, live, self._track_changed))
        return True

    def _edit(self, text: str, change: Callable[[Track], Track], select: Callable[[Track], int | None] | None = None) -> bool:
        chain = self.doc.selected
        if not chain:
            return False
        before = self.timeline.track(chain)
        try:
            after = change(before)
        except ValueError as e:
            self.window_.statusBar().showMessage(f"Timeline: {e}", 8000)
            return False
        if select is not None:
            self.selected_key = select(after)
        pushed = self._push(chain, before, after, f"{text} ({chain})")
        self.redraw()
        return pushed

    def _track_changed(self, chain: str, live: Mapping[str, Any] | None) -> None:
        if live and chain in self.doc.rig.chain_names:
            self.doc.set_chain_live(chain, **live)
        self.redraw()
        self._drive(self.time)

    def add_key(self, time: float, value: float) -> bool:
        t = self.timeline.snap(time)
        v = min(max(float(value), 0.0), 1.0)
        return self._edit("Add weight key", lambda tr: tr.with_curve("weight", tr.weight.with_key(t, v)),
                          lambda tr: tr.weight.index_at(t))

    def delete_selected_key(self) -> bool:
        i = self.selected_key
        if i is None:
            return False
        self.selected_key = None
        return self._edit("Delete weight key", lambda tr: tr.with_curve("weight", tr.weight.without_key(i)))

    def set_interpolation(self, index: int, interpolation: str) -> bool:
        return self._edit("Set interpolation", lambda tr: tr.with_curve("weight", tr.weight.with_interpolation(index, interpolation)))

    def ease(self, ease_in: bool) -> bool:
        chain, d, t = self.doc.selected, self.duration.value(), self.timeline.snap(self.time)

        def change(track: Track) -> Track:
            probe = Timeline(self.timeline.frame_rate, self.timeline.start, self.timeline.end, {chain: track})
            (probe.ease_in if ease_in else probe.ease_out)(chain, t, d)
            return probe.track(chain)

        return self._edit("Ease in" if ease_in else "Ease out", change)

    def key_target(self) -> bool:
        chain = self.doc.selected
        if not chain:
            return False
        ch = self.doc.rig.chain(chain)
        if ch.following:  # its key is an offset from the animated tip (core/clip_goals.py)
            pushed = self.doc.edit_chain(chain, f"Key target ({chain})", {"offset_keys": ch.keys_for_goal(ch.target)})
            self.redraw()
            return pushed
        t, value = self.timeline.snap(self.time), tuple(self.doc.settings(chain).target)
        return self._edit("Key target", lambda tr: tr.with_curve("target", tr.target.with_key(t, value)))

    def key_plants(self, legs: list[str] | None = None) -> bool:
        """Key plant and release ramps (rigedit.core.plant) on `legs` (None: every ground-feet
        leg) with the ease duration, replacing their weight keys: one undo step for them all."""
        try:
            tracks = plant_tracks(self.doc.rig, legs, PlantSettings(ease_s=self.duration.value()))
        except (ValueError, KeyError) as e:
            self.window_.statusBar().showMessage(f"Key plants: {e.args[0] if e.args else e}", 8000)
            return False
        changed = {leg: track for leg, track in tracks.items() if track != self.timeline.track(leg)}
        if not changed:
            self.window_.statusBar().showMessage("Key plants: the legs already carry these keys", 5000)
            return False
        self.undo_stack.beginMacro(f"Key plants ({', '.join(changed)})")
        try:
            for leg, track in changed.items():
                self._push(leg, self.timeline.track(leg), track, f"Key plants ({leg})")
        finally:
            self.undo_stack.endMacro()
        self.redraw()
        return True

    # --- the mouse on keys ---------------------------------------------------------------

    def _select_key(self, index: int | None) -> None:
        if index != self.selected_key:
            self.selected_key = index
            self.redraw()

    def _key_drag_started(self, index: int) -> None:
        chain = self.doc.selected
        if chain:
            self.playback.stop()
            self._drag = (chain, self.timeline.track(chain), self._live(chain))
            self.selected_key = index

    def _key_dragged(self, index: int, time: float, value: float, finished: bool) -> None:
        if self._drag is None:
            return
        chain, before, live = self._drag
        curve, self.selected_key = before.weight.moved_key(index, self.timeline.snap(time), min(max(value, 0.0), 1.0))
        after = before.with_curve("weight", curve)
        self.timeline.set_track(chain, after)  # live while the mouse is down; one command on release
        if finished:
            self._drag = None
            self.timeline.set_track(chain, before)
            if not self._push(chain, before, after, f"Move weight key ({chain})", live):
                self.redraw()
        else:
            self.redraw()
            self._drive(self.time)

    def _open_key_menu(self, index: int, screen_pos) -> None:
        self.menu = self.key_menu(index)
        self.menu.popup(screen_pos)

    def key_menu(self, index: int) -> QMenu:
        chain = self.doc.selected
        key = self.timeline.curve(chain).key(index)
        menu = QMenu(self)
        menu.setObjectName("keyMenu")
        menu.addSection(f"Key at {key.time:.3f} s → next key")
        for name, label in INTERPOLATION_LABELS:
            act = menu.addAction(label)
            act.setCheckable(True)
            act.setChecked(key.interpolation == name)
            act.setData(name)
            act.triggered.connect(lambda _c=False, n=name: self.set_interpolation(index, n))
        menu.addSeparator()
        delete = menu.addAction("Delete key")
        delete.triggered.connect(lambda _c=False: (self._select_key(index), self.delete_selected_key()))
        return menu
