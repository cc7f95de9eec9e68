"""The timeline dock: blend-weight curves per chain, keys to edit, a playhead to scrub, play.

The dock list (docks.py) calls `create_timeline_widget(window)` and puts the result in the `timeline`
dock. The panel edits `window.rig.timeline` (saved with the preset) through undo commands
on `window.undo_stack`, one per key edit, and drives the rig at the playhead: each keyed
chain's weight, target and pole go in as live settings (no undo step: scrubbing is not an
edit) and the document's time moves the clip under the IK; the solver thread follows.

Lint findings (window.lint, lint_state.py) are marked over their frames; a click on a mark
selects the finding, and selecting one (here or in the Lint dock) moves the playhead to it.

Pose keys (issue 25): a row of diamonds above the plot, one per pose key time, and the Key
pose button (timeline/pose_keys.py); I keys the pose too (pose_tools.py).

Key edits (add, delete, drag, easing, Key target, Key plants) are timeline/key_edits.py, a mixin.

Auto-key: with it on, every edit of a chain's weight, target or pole (a dock field, the slider,
a handle drag in the viewport) keys that value at the playhead (updating a key already there),
in the edit's own undo step (Document.keyer). Key target keys the goal by hand; a double-click
on the plot adds a weight key.
"""
from __future__ import annotations

from typing import Any, Mapping

from PySide6.QtCore import QTimer, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rigedit.core.curve import position_curve
from rigedit.core.timeline import EASE_DEFAULT_S, EASE_MAX_S, EASE_MIN_S, KINDS, Timeline, Track

from .lint_state import describe
from .timeline.commands import TrackEditCommand
from .timeline.key_edits import TimelineKeyEdits
from .timeline.lint_marks import Mark
from .timeline.playback import Playback
from .timeline.plot import TimelinePlot
from .timeline.pose_keys import KEY_POSE_TIP, PoseKeys

# Every way to make a key: in the key buttons' tooltips and in Help > Keyboard Shortcuts.
HOW_TO_KEY = [
    ("I, or the Key pose button", "key the selected joints (every joint with none selected) with every chain's "
                                  "goal and weight at the playhead; the keys are the diamonds above the curves"),
    ("Double-click the plot", "add a weight key there (drag it to move it, right-click it for its easing, "
                              "Delete removes the selected key)"),
    ("Key target button", "key the selected chain's target where it is now, at the playhead"),
    ("Auto-key ticked", "any edit of a weight, target or pole (a dock field, the slider, a handle drag) "
                        "keys it at the playhead"),
    ("Ease in / Ease out here", "key the weight rising 0 → 1 to the playhead / falling 1 → 0 from it"),
]


def _key_tip(own: str) -> str:
    """A key button's tooltip: what it does, then the other ways to key."""
    return own + "\n\nWays to key:\n" + "\n".join(f"• {how}: {does}" for how, does in HOW_TO_KEY)


def create_timeline_widget(window) -> "TimelinePanel":
    return TimelinePanel(window)


class TimelinePanel(TimelineKeyEdits, QWidget):
    def __init__(self, window, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelinePanel")
        self.window_ = window
        self.doc = window.document
        self.undo_stack = window.undo_stack
        self.timeline: Timeline = self.doc.rig.timeline
        self.time = float(self.doc.rig.time)
        self.selected_key: int | None = None
        self.menu: QMenu | None = None  # the open key menu, if any
        self._drag: tuple[str, Track, dict] | None = None  # chain, track and live settings at drag start
        self._redraw_pending = False
        self._drawn_weights: dict[str, float] = {}
        self._drawn_offsets: tuple = ()  # the selected chain's offset key times shown
        self._drawn_tracks: dict = {}  # the timeline's tracks as last drawn

        self._build_controls()
        self._build_key_controls()
        self._lay_out()

        self.playback = Playback(lambda: self.timeline, lambda: self.time, self.scrub_to, self)
        self.playback.running_changed.connect(self._show_running)
        self._add_actions()
        self._connect()
        self.doc.keyer = self._auto_key
        self.doc.auto_keying = self.auto_key.isChecked
        self._show_running(False)
        if self.timeline == Timeline():  # as _rebind: a rig opened from the command line is fitted too
            self._fit_to_clip()
        self.redraw()
        self._drive(self.time)
        self.pose_keys.refresh()

    # --- building ------------------------------------------------------------------------

    def _build_controls(self) -> None:
        """The plot, play button, time readout and the ease buttons with their duration."""
        self.plot = TimelinePlot()
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.plot.setToolTip(_key_tip("The selected chain's blend weight over time (the others faint)"))
        self.play_button = QToolButton()
        self.play_button.setObjectName("playButton")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Play / pause, looping over the range (Space).\n"
                                    "Click or drag over the plot or time axis to scrub; middle-drag or Shift+drag pans, the wheel zooms.\n"
                                    "With the plot focused, ← → step frames, Home / End go to the first / last\n"
                                    "frame and Delete removes the selected key.")
        self.readout = QLabel()
        self.readout.setObjectName("timeReadout")
        self.readout.setMinimumWidth(120)  # two short lines: the row must fit a 760 px window
        self.ease_in_button = QPushButton("Ease in here")
        self.ease_in_button.setObjectName("easeIn")
        self.ease_in_button.setToolTip(_key_tip("Weight rises 0 → 1 with ease in-out, reaching 1 at the playhead (a foot plants)"))
        self.ease_out_button = QPushButton("Ease out here")
        self.ease_out_button.setObjectName("easeOut")
        self.ease_out_button.setToolTip(_key_tip("Weight falls 1 → 0 with ease in-out, starting at the playhead (a foot lifts)"))
        self.duration = QDoubleSpinBox()
        self.duration.setObjectName("easeDuration")
        self.duration.setRange(EASE_MIN_S, EASE_MAX_S)
        self.duration.setSingleStep(0.05)
        self.duration.setDecimals(2)
        self.duration.setValue(EASE_DEFAULT_S)
        self.duration.setSuffix(" s")
        self.duration.setToolTip("How long an ease in or out takes")

    def _build_key_controls(self) -> None:
        """Key target, the pose keys row, Key plants (with its selected-leg menu) and Auto-key."""
        self.key_target_button = QPushButton("Key target")
        self.key_target_button.setObjectName("keyTarget")
        self.key_target_button.setToolTip(_key_tip("Key the selected chain's target where it is now, at the playhead"))
        self.pose_keys = PoseKeys(self)  # the pose keys row over the plot and Key pose
        self.pose_keys.key_button.setToolTip(_key_tip(KEY_POSE_TIP))
        self.plants_button = QToolButton()
        self.plants_button.setObjectName("keyPlants")
        self.plants_button.setText("Key plants")
        self.plants_button.setToolTip(
            "Key every ground-feet leg's weight from the clip: 1 while its foot is planted, easing\n"
            "in before each plant and out after each release over the ease duration (the arrow:\n"
            "the selected leg only)"
        )
        self.plants_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        plants_menu = QMenu(self.plants_button)
        self.plants_selected_action = plants_menu.addAction("Key plants on the selected leg only")
        self.plants_button.setMenu(plants_menu)
        self.auto_key = QCheckBox("Auto-key")
        self.auto_key.setObjectName("autoKey")
        self.auto_key.setToolTip(_key_tip("Ticked, any edit of a chain's weight, target or pole (a dock field, the "
                                          "slider,\na handle drag in the viewport) keys it at the playhead"))

    def _lay_out(self) -> None:
        """The control row over the pose keys strip over the plot."""
        row = QHBoxLayout()
        row.setContentsMargins(4, 2, 4, 0)
        row.addWidget(self.play_button)
        row.addWidget(self.readout)
        row.addStretch(1)
        row.addWidget(self.ease_in_button)
        row.addWidget(self.ease_out_button)
        row.addWidget(QLabel("over"))
        row.addWidget(self.duration)
        row.addWidget(self.plants_button)
        row.addSpacing(12)
        row.addWidget(self.key_target_button)
        row.addWidget(self.auto_key)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(row)
        lay.addWidget(self.pose_keys.strip)
        lay.addWidget(self.plot, 1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    # --- wiring --------------------------------------------------------------------------

    def _add_actions(self) -> None:
        # Space plays and pauses wherever the focus is in the window (the viewport, mostly);
        # with the plot focused, its own key handling (_key_command) covers every key.
        self.play_action = QAction("Play/Pause", self)
        self.play_action.setShortcut(QKeySequence(Qt.Key.Key_Space))
        self.play_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.play_action.triggered.connect(lambda _c=False: self.playback.toggle())
        self.addAction(self.play_action)
        # Left / Right with the viewport focused step a frame, as in Blender's 3D view (the
        # plot's own keys do the same when it has the focus).
        view = self.window_.viewport.container
        self.step_actions = []
        for text, key, frames in (("Previous Frame", Qt.Key.Key_Left, -1), ("Next Frame", Qt.Key.Key_Right, 1)):
            act = QAction(text, self)
            act.setShortcut(QKeySequence(key))
            act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            act.triggered.connect(lambda _c=False, n=frames: self.step(n))
            view.addAction(act)
            self.step_actions.append(act)

    def _key_command(self, key: int) -> None:
        if key == Qt.Key.Key_Space.value:
            self.playback.toggle()
        elif key == Qt.Key.Key_Right.value:
            self.step(1)
        elif key == Qt.Key.Key_Left.value:
            self.step(-1)
        elif key == Qt.Key.Key_Home.value:
            self.go_to_frame(self.timeline.first_frame)
        elif key == Qt.Key.Key_End.value:
            self.go_to_frame(self.timeline.last_frame)
        elif key in (Qt.Key.Key_Delete.value, Qt.Key.Key_Backspace.value):
            self.delete_selected_key()

    def _connect(self) -> None:
        doc, plot = self.doc, self.plot
        doc.rig_replaced.connect(self._rebind)
        doc.selection_changed.connect(self._selection_changed)
        doc.chain_changed.connect(self._chain_changed)
        doc.time_changed.connect(self._time_changed)
        doc.animation_changed.connect(self._fit_to_clip)
        doc.layer_changed.connect(self._layer_changed)
        plot.playhead_moved.connect(self.scrub_to)
        plot.key_command.connect(self._key_command)
        plot.key_clicked.connect(self._select_key)
        plot.key_drag_started.connect(self._key_drag_started)
        plot.key_dragged.connect(self._key_dragged)
        plot.key_menu_requested.connect(self._open_key_menu)
        plot.add_requested.connect(self.add_key)
        plot.background_clicked.connect(lambda: self._select_key(None))
        self.play_button.clicked.connect(lambda _c=False: self.playback.toggle())
        self.ease_in_button.clicked.connect(lambda: self.ease(True))
        self.ease_out_button.clicked.connect(lambda: self.ease(False))
        self.key_target_button.clicked.connect(self.key_target)
        self.plants_button.clicked.connect(lambda _c=False: self.key_plants())
        self.plants_selected_action.triggered.connect(lambda _c=False: self.key_plants([self.doc.selected]))
        lint = self.window_.lint
        lint.changed.connect(self._show_findings)
        lint.selection_changed.connect(self._show_findings)
        lint.jump_requested.connect(self.go_to_time)
        plot.finding_clicked.connect(lambda index: lint.select(index))

    def _auto_key(self, chain: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> TrackEditCommand | None:
        """The document's keyer: with Auto-key on, an edit's weight, target or pole (a dock
        field, a handle drag) keyed at the playhead, updating a key already there."""
        rig = self.doc.rig
        if not self.auto_key.isChecked() or chain not in rig.chain_names:
            return None
        # A goal following the clip keys offsets with its own edit (core/clip_goals.py).
        kinds = ("weight",) if rig.chain(chain).following else KINDS
        t, before = self.timeline.snap(self.time), self.timeline.track(chain)
        after = before
        for kind in kinds:
            value = new.get(kind)
            if value is not None:
                value = float(value) if kind == "weight" else tuple(value)
                after = after.with_curve(kind, after.curve(kind).with_key(t, value))
        if after == before:
            return None
        live = {**self._live(chain), **{k: v for k, v in old.items() if k in kinds}}
        return TrackEditCommand(self.timeline, chain, before, after, f"Key {chain}", live, self._track_changed)

    # --- time ----------------------------------------------------------------------------

    def scrub_to(self, time: float) -> None:
        """Move the playhead to the frame nearest `time` (within the range) and drive the rig there."""
        tl = self.timeline
        frame = min(max(tl.frame_at(time), tl.first_frame), tl.last_frame)
        t = tl.time_of_frame(frame)
        self.plot.set_playhead(t)
        self._drive(t)

    def step(self, frames: int) -> None:
        self.playback.stop()
        self.scrub_to(self.timeline.time_of_frame(self.timeline.frame_at(self.time) + frames))

    def go_to_frame(self, frame: int) -> None:
        self.go_to_time(self.timeline.time_of_frame(frame))

    def go_to_time(self, time: float) -> None:
        self.playback.stop()
        self.scrub_to(time)

    def _drive(self, time: float) -> None:
        self.time = float(time)
        names = set(self.doc.rig.chain_names)
        for chain, values in self.timeline.values_at(self.time).items():
            if chain in names and self.doc.rig.chain(chain).following:
                # The clip and the offset keys place its goal; target and pole curves do not.
                values = {k: v for k, v in values.items() if k not in ("target", "pole")}
            if chain in names and values:
                self.doc.set_chain_live(chain, **values)
        self.doc.set_time(self.time)
        self._show_time()

    def _time_changed(self, time: float) -> None:
        if time != self.time:  # someone else moved the time: follow it
            self.plot.set_playhead(time)
            self._drive(time)

    def _show_time(self) -> None:
        tl = self.timeline
        self.plot.set_playhead(self.time)
        self.readout.setText(
            f"{self.time:7.3f} s   frame {tl.frame_at(self.time)}\n"
            f"({tl.first_frame}–{tl.last_frame} @ {rate_text(tl.frame_rate)} fps)"
        )

    def _show_running(self, running: bool) -> None:
        self.play_button.setChecked(running)
        self.play_button.setText("❚❚ Pause" if running else "▶ Play")

    def _fit_to_clip(self) -> None:
        """A clip under the IK sets the range and frame rate to its own. No clip (an undone
        retarget) leaves the range as it is (the undo put the old one back) and shows it:
        the range, the playhead within it, Key plants off."""
        clip = self.doc.rig.clip
        if clip is not None and clip.duration > 0:
            self.timeline.frame_rate = clip.frame_rate
            self.timeline.set_range(0.0, clip.duration)
        self.redraw()
        self.scrub_to(self.time)

    def _show_findings(self, *_) -> None:
        """The lint's findings as marks over their frames (the clip's frames, half a frame
        either side of their first and last)."""
        lint, clip = self.window_.lint, self.doc.rig.clip
        dt = clip.frame_time if clip is not None else 0.0
        marks = [Mark((f.frame_start - 0.5) * dt, (f.frame_end + 0.5) * dt, f.severity, describe(f)) for f in lint.findings]
        self.plot.show_findings(marks, lint.selected)

    # --- the document --------------------------------------------------------------------

    def _rebind(self) -> None:
        self.playback.stop()
        self._drag = None
        self.timeline = self.doc.rig.timeline
        self.time = float(self.doc.rig.time)
        self.selected_key = None
        if self.timeline == Timeline():  # an imported clip comes with an untouched timeline
            self._fit_to_clip()
        self.redraw()
        self._drive(self.time)

    def _selection_changed(self, _chain: str) -> None:
        self.selected_key = None
        self.redraw()

    def _layer_changed(self) -> None:
        # Key pose keys the chains' goals and weights too, and its undo takes them away. A
        # joint rotation changes the layer at mouse rate and no track: nothing to redraw then.
        if self.timeline.tracks != self._drawn_tracks:
            self.redraw()
            self._drive(self.time)

    def _chain_changed(self, chain: str) -> None:
        # Only an unkeyed chain's flat line shows its own weight, so a gizmo drag (targets
        # and poles changing at mouse rate) must not redraw the plot: it cost more per mouse
        # move than the viewport itself. Redraw when that weight really changed; coalesce.
        rig = self.doc.rig
        if chain not in rig.chain_names or self._redraw_pending:
            return
        if chain == self.doc.selected and _key_times(rig.chain(chain)) != self._drawn_offsets:
            self._redraw_pending = True  # its offset keys came or went: mark them
            QTimer.singleShot(0, self.redraw)
            return
        if len(self.timeline.curve(chain)):
            return
        if self._drawn_weights.get(chain) == rig.chain(chain).weight:
            return
        self._redraw_pending = True
        QTimer.singleShot(0, self.redraw)

    def redraw(self) -> None:
        self._redraw_pending = False
        tl, rig, chain = self.timeline, self.doc.rig, self.doc.selected
        self._drawn_tracks = tl.tracks
        order = rig.chain_names
        self.plot.set_range(tl.start, tl.end)
        self._drawn_weights = {n: rig.chain(n).weight for n in order}
        self.plot.show_curves({n: (tl.curve(n), self._drawn_weights[n]) for n in order}, order, chain)
        track = tl.track(chain) if chain else Track()
        if self.selected_key is not None and self.selected_key >= len(track.weight):
            self.selected_key = None
        marks = track.target
        self._drawn_offsets = _key_times(rig.chain(chain)) if chain else ()
        if self._drawn_offsets:  # a goal following the clip: its offset keys show in the target lane
            offsets = [k for k in rig.chain(chain).offset_keys if marks.index_at(k.time) is None]
            marks = position_curve(list(marks.keys) + offsets)
        self.plot.show_keys(track.weight, marks, track.pole, order.index(chain) if chain in order else 0,
                            self.selected_key)
        for w in (self.ease_in_button, self.ease_out_button, self.key_target_button):
            w.setEnabled(bool(chain))
        self.plants_button.setEnabled(rig.clip is not None)  # plants are found in the clip
        self.plants_selected_action.setEnabled(bool(chain))
        self._show_time()

def _key_times(ch) -> tuple:
    return tuple(k.time for k in ch.offset_keys)


def rate_text(fps: float) -> str:
    """A frame rate as people write it: two decimals at most, so a BVH's Frame Time of
    0.033333 reads 30 fps, not 30.0003 (29.97 and 23.98 keep theirs)."""
    return f"{fps:.2f}".rstrip("0").rstrip(".")
