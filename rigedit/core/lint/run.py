"""lint_clip: every check of the package run over one clip (the package's entry point)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..autochains import propose_chains
from ..clip import Clip
from ..skeleton import Skeleton
from .contacts import foot_contacts
from .findings import KINDS, Finding
from .jumps import discontinuities, reference_frame, turned
from .limits import limit_findings
from .motion import Motion, limbs_from_chains
from .pole_flip import pole_flips
from .pops import knee_pops
from .slides import foot_slides


@dataclass
class LintReport:
    findings: list[Finding]
    motion: Motion
    contacts: dict[str, list[tuple[int, int]]]  # per leg chain
    chains: list[tuple]  # (name, joints[, solver]) as linted, to lint a repair the same way
    limits: dict | None = None

    def to_dict(self) -> dict:
        return {"findings": [f.to_dict() for f in self.findings]}


def proposed_chains(skeleton: Skeleton, clip: Clip) -> list[tuple[str, tuple[str, ...], str]]:
    """(name, joints, solver) of the chains `rigedit import` would propose, from frame 0."""

    return [(c.name, tuple(c.joints), c.solver) for c in propose_chains(skeleton, clip.frame(0))]


def lint_clip(
    skeleton: Skeleton,
    clip: Clip,
    chains: Sequence[tuple] | None = None,
    *,
    limits: Mapping[str, Mapping[str, object]] | None = None,
    euler: Mapping[str, np.ndarray] | None = None,
) -> LintReport:
    """Every finding on `clip`. chains: (name, joint names root to tip[, solver name]),
    default proposed from frame 0; limits: per chain, per joint name, a core.ik.limits Limit; euler: a BVH file's
    rotation channels as written (io export.bvh_angles), for Euler wraps."""
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"the clip has {clip.rotations.shape[1]} joints, the skeleton {len(skeleton)}")
    if not (np.isfinite(clip.rotations).all() and np.isfinite(clip.translations).all()):
        raise ValueError("the clip has non-finite rotations or translations")
    chains = proposed_chains(skeleton, clip) if chains is None else [(c[0], tuple(c[1]), *c[2:]) for c in chains]
    limbs, joints = limbs_from_chains(skeleton, chains)
    first = 1 if reference_frame(clip.rotations) else 0
    motion = Motion(skeleton, clip, limbs, joints, first=first, euler=dict(euler) if euler else None)
    contacts = {l.chain: foot_contacts(motion, l.end) for l in limbs if l.leg}
    events = turned(motion)
    flips, taken = pole_flips(motion, events)
    rest = [e for e in events if e not in taken]
    findings = discontinuities(motion, rest) + flips + knee_pops(motion) + foot_slides(motion, contacts)
    if limits:
        findings += limit_findings(motion, limits)
    findings.sort(key=lambda f: (f.frame_start, f.frame_end, KINDS.index(f.kind), f.chain or "", f.joint or ""))
    return LintReport(findings, motion, contacts, list(chains), dict(limits) if limits else None)
