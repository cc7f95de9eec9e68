"""A lint finding, and the spans of frames findings are made of."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

KINDS = ("pole_flip", "knee_pop", "foot_slide", "limit", "discontinuity")
# info: worth knowing, nothing to repair (a reference pose on frame 0); warning: visible on a
# close look; error: visible at a glance.
SEVERITIES = ("info", "warning", "error")


@dataclass(frozen=True)
class Finding:
    kind: str  # one of KINDS
    chain: str | None  # the chain it is on (None for a joint outside every chain, or the whole figure)
    joint: str | None  # the joint that shows it (the knee, the foot, the joint past its limit)
    frame_start: int  # first frame of the span, inclusive
    frame_end: int  # last frame of the span, inclusive
    severity: str  # one of SEVERITIES
    detail: str  # what was measured, in words and numbers
    # Which check of its kind found it ("euler_wrap", "reference_frame", ...): for the fixer,
    # not part of the JSON report.
    cause: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"finding kind must be one of {KINDS}, got {self.kind!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"finding severity must be one of {SEVERITIES}, got {self.severity!r}")
        if not 0 <= self.frame_start <= self.frame_end:
            raise ValueError(f"finding span must be 0 <= start <= end, got {self.frame_start}..{self.frame_end}")

    def to_dict(self) -> dict:
        d = asdict(self)
        del d["cause"]
        d["frame_start"], d["frame_end"] = int(d["frame_start"]), int(d["frame_end"])
        return d


def runs(mask) -> list[tuple[int, int]]:
    """(first, last) inclusive index of each run of True in a 1-D mask, in order."""
    m = np.asarray(mask, dtype=bool).astype(np.int8)
    if m.size == 0:
        return []
    edges = np.diff(np.concatenate([[0], m, [0]]))
    starts = np.nonzero(edges == 1)[0]
    ends = np.nonzero(edges == -1)[0] - 1
    return [(int(a), int(b)) for a, b in zip(starts, ends)]


def merge_close(spans: list[tuple[int, int]], gap: int) -> list[tuple[int, int]]:
    """Spans sorted and joined where fewer than `gap` frames separate them (one event, not many)."""
    out: list[list[int]] = []
    for a, b in sorted(spans):
        if out and a - out[-1][1] <= gap:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]
