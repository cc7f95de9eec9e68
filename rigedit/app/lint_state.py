"""The editor's clip lint: the findings on the document's clip, which one is selected, and the
repair, shared by the Lint panel (lint_panel.py) and the timeline's marks.

The lint is the core's (`core.lint.of_rig.lint_rig`: the rig's clip with the rig's own chains
and joint limits, as `rigedit lint CLIP --rig PRESET`). It runs on the GUI thread: the CMU walk
(524 frames, 38 joints) takes about 15 ms, a pause no one sees. It runs when asked and whenever
the clip is replaced (import, open, new) or edited (a repair, its undo); editing limits or
chains does not re-run it by itself (Lint does).

A repair is the core's `fix_clip` of the chosen findings, applied to the document as one undo
command (Document.edit_clip), after which the clip is linted again.
"""
from __future__ import annotations

import dataclasses
import time

from PySide6.QtCore import QObject, Signal

from rigedit.core.lint import Finding
from rigedit.core.lint.fix import fix_clip, repairable, same_finding
from rigedit.io import formats
from rigedit.core.lint.of_rig import lint_rig, rig_chains
from rigedit.core.quality import measure_clip

# Severity colours (RGB), shared by the panel and the timeline: red errors, amber warnings, blue info.
SEVERITY_RGB = {"error": (222, 60, 52), "warning": (236, 160, 24), "info": (70, 140, 220)}
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def _key(f: Finding) -> tuple:
    """A finding without its measured detail (its numbers' last digits may move)."""
    return f.kind, f.chain, f.joint, f.cause, f.frame_start, f.frame_end


def where(f: Finding) -> str:
    return " / ".join(x for x in (f.chain, f.joint) if x) or "whole figure"


def frames_text(f: Finding) -> str:
    return str(f.frame_start) if f.frame_start == f.frame_end else f"{f.frame_start}–{f.frame_end}"


def describe(f: Finding) -> str:
    """One line for a tooltip or a status message."""
    frames = "frame" if f.frame_start == f.frame_end else "frames"
    return f"{f.severity}: {f.kind} on {where(f)}, {frames} {frames_text(f)}: {f.detail}"


class LintState(QObject):
    changed = Signal()  # new findings (or none, or no clip)
    selection_changed = Signal(int)  # the selected finding's index (-1: none)
    jump_requested = Signal(float)  # the timeline should go to this time (seconds)

    def __init__(self, document, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.report = None  # the core's LintReport, None before a lint or without a clip
        self.quality: dict | None = None  # the clip's measures (core/quality/result.py's keys), with the report
        self.findings: list[Finding] = []
        self.selected = -1
        self.message = ""  # why there are no findings to show, or what the last run found
        self.seconds = 0.0  # how long the last lint took
        document.rig_replaced.connect(self.run)
        document.animation_changed.connect(self.run)
        document.clip_edited.connect(self.run)

    @property
    def clip(self):
        return self.doc.rig.clip

    def run(self) -> None:
        """Lint the rig's clip now."""
        self.report, self.findings, self.selected, self.quality = None, [], -1, None
        if self.clip is None:
            self.message = ("This rig has no clip to check. Lint looks for pole flips, knee pops, foot slides, "
                            f"joints past their limits and jumps in an animation: File > Import a {formats.names(formats.CLIPS)} take, "
                            "or open a rig saved with one.")
        else:
            start = time.perf_counter()
            try:
                # The report's measures (rigedit report) lint the clip on the way: one pass.
                chains, limits = rig_chains(self.doc.rig)
                q = measure_clip(self.doc.rig.skeleton, self.clip, chains, limits=limits)
                self.report, self.quality = q.lint, q.summary()
            except ValueError as e:  # a clip with non-finite values: say so, keep the editor
                self.message = f"Cannot lint this clip: {e}"
            else:
                self.findings = list(self.report.findings)
                self.seconds = time.perf_counter() - start
                n = self.clip.n_frames
                self.message = (f"No findings in {n} frames." if not self.findings else
                                f"{len(self.findings)} finding{'s' if len(self.findings) != 1 else ''} in {n} frames")
        self.changed.emit()
        self.selection_changed.emit(-1)

    def repairable(self, f: Finding) -> bool:
        """Whether Fix repairs `f` (core/lint/fix.py's REPAIRS, the one table)."""
        return self.report is not None and repairable(f, self.report)

    def frame_time(self, frame: int) -> float:
        return frame * self.clip.frame_time

    def select(self, index: int, *, jump: bool = True) -> None:
        """Select finding `index` (-1: none); `jump` moves the time to its first frame and
        selects its chain, as a click on its row or its mark does."""
        if not -1 <= index < len(self.findings):
            raise IndexError(f"no finding {index}")
        if index != self.selected:
            self.selected = index
            self.selection_changed.emit(index)
        if index < 0 or not jump:
            return
        f = self.findings[index]
        if f.chain in self.doc.rig.chain_names:
            self.doc.select(f.chain)
        self.jump_requested.emit(self.frame_time(f.frame_start))

    def fix(self, indices=None):
        """Repair findings `indices` (None: all) that the core repairs, in one undo step.
        Returns the core's FixResult, or None when none of them is repairable."""
        wanted = [self.findings[i] for i in (range(len(self.findings)) if indices is None else indices)]
        wanted = {_key(f) for f in wanted if self.repairable(f)}
        if not wanted or self.clip is None:
            return None
        # Linted afresh: a body drag moves the clip's root path in place since the last run.
        report = lint_rig(self.doc.rig)
        chosen = [f for f in report.findings if _key(f) in wanted]
        if not chosen:
            return None
        result = fix_clip(dataclasses.replace(report, findings=chosen))
        # New is what the clip did not have before, among all its findings, not the chosen only.
        result.introduced = [g for g in result.after.findings if not any(same_finding(f, g) for f in report.findings)]
        if not result.changed.any():
            return result
        what = chosen[0].kind if len(chosen) == 1 else f"{len(chosen)} findings"
        self.doc.edit_clip(f"Fix {what}", result.clip)  # re-lints through clip_edited
        return result
