"""Clip lint: find what breaks mocap (pole flips, knee pops, foot slides, joints past their
limits, discontinuities) in a clip, per chain or joint with its frame span and severity, and
re-solve the flagged spans (fix.py).

    report = lint_clip(skeleton, clip)                   # chains proposed from frame 0
    report = lint_clip(skeleton, clip, chains=[(name, joint_names), ...], limits={...})
    report.findings                                      # list[Finding], by frame

The thresholds and why they are what they are are in each check's module: contacts.py,
pole_flip.py, pops.py, slides.py, limits.py, jumps.py. All are relative to the figure (its leg
length) and per second (not per frame), so they hold for any size and frame rate.
"""
from __future__ import annotations

from .findings import KINDS, SEVERITIES, Finding
from .run import LintReport, lint_clip, proposed_chains

__all__ = ["Finding", "KINDS", "LintReport", "SEVERITIES", "lint_clip", "proposed_chains"]
