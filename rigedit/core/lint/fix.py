"""Re-solve a lint's flagged spans with continuity, leaving every other frame as it was.

- Pole flips and joints turned away for a few frames and back (fix_turn.py): every frame of
  the span, first and last included, gets the turn its neighbours agree on, the limb turned
  about its root -> end line so the end stays where it was.
- Knee pops: the end's place relative to the root (in the parent frame) and the bend
  direction are blended across the span from the frames on either side, and the limb is
  solved onto that with two-bone IK through soft IK (core/ik/soft.py: the last SOFTNESS leg
  lengths of reach eased), so it cannot snap straight again.
- Foot slides: the foot is locked (horizontally; its height stays the clip's, so heel and toe
  still roll) where it was when the slide began, through the contact's last flat frame
  (slides.flat_frames), and let go over EASE_S after it with a smoothstep, as the heel comes
  off; the leg is solved onto it with soft IK and the foot keeps the clip's world rotation.
- Euler wraps are the file's curves, not the clip's rotations: the BVH writer unwraps them
  (lint_cli writes the output with the source's angles unwrapped as reference).

Reference frames, lone rotation and root jumps and limits are reported, not repaired (a
jump's right answer is a question for the animator). Frames outside the repairs' spans (a
slide's runs on to its contact's last flat frame, plus the ease) are not touched: `changed`
says which.

A repair never leaves a finding that was not there: the result is linted again, and a repair
whose frames a new finding touches is undone (`refused`; its finding stays in `remaining`),
up to REFUSALS rounds. So what fix_clip returns is never worse than what it was given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Collection

import numpy as np

from ..clip import Clip
from ..ik import two_bone_ik
from ..ik.soft import effective_target
from ..skeleton import Pose, write_chain_positions
from ..transforms import quat_conj, quat_mul, quat_normalize, quat_rotate
from .findings import Finding, runs
from .fix_turn import untwist, unturn
from .run import lint_clip
from .pole_flip import bend_angle, bend_direction, usual_side, world_bend
from .slides import flat_frames

REFUSALS = 3
EASE_S = 0.15
SOFTNESS = 0.02  # leg lengths of reach that soft IK eases
REACH_CLAMP = 0.999
# A limb bent less than this has no bend plane of its own (CMU's knees are exactly straight
# through mid-stance): the plane carried from the last frame that had one is used instead.
DEFINED_BEND_DEG = 2.0


@dataclass
class FixResult:
    """The repaired clip, and what a second lint of it says: `repaired` are the findings it
    no longer has, `remaining` those it still has (not repairable, or not repaired),
    `introduced` anything new (none, when the repair did its job)."""

    clip: Clip
    repaired: list[Finding]
    remaining: list[Finding]
    introduced: list[Finding]
    changed: np.ndarray  # (frames,) bool: the frames the repair wrote
    after: object  # the second lint's LintReport
    refused: list[Finding] = field(default_factory=list)  # repairs undone: they made a new finding

    def changed_description(self) -> str:
        spans = runs(self.changed)
        return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans) or "none"


class _Work:
    def __init__(self, report) -> None:
        m = report.motion
        self.m, self.sk = m, m.skeleton
        self.rot = m.clip.rotations.copy()
        self.trans = m.clip.translations
        self.changed = np.zeros(m.n_frames, dtype=bool)
        self.limbs = {l.chain: l for l in m.limbs}
        self.usual = {}
        for l in m.limbs:
            side = usual_side(m, l, bend_angle(m, l), bend_direction(m, l))
            self.usual[l.chain] = np.array([0.0, 0.0, 1.0]) if side is None else side

    def fk(self, f: int):
        return self.sk.fk(Pose(self.rot[f], self.trans[f]))

    def parent_q(self, q, limb):
        p = int(self.sk.parents[limb.root])
        return np.array([0.0, 0.0, 0.0, 1.0]) if p < 0 else q[p]

    def local_bend(self, f: int, limb, carried=None) -> tuple[np.ndarray, np.ndarray]:
        """The bend direction and the end's offset from the root, in the root's parent frame;
        a straight limb's bend is `carried` (default its usual side)."""
        pos, q = self.fk(f)
        back = quat_conj(self.parent_q(q, limb))
        bend = quat_rotate(back, world_bend(pos, limb)) if _bent(pos, limb) else (self.usual[limb.chain] if carried is None else carried)
        return bend, quat_rotate(back, pos[limb.end] - pos[limb.root])

    def write(self, f: int, rotations: np.ndarray) -> None:
        self.rot[f] = rotations
        self.changed[f] = True


def fix_clip(report) -> FixResult:
    """The clip with `report`'s pole flips, turned spans, knee pops and foot slides repaired,
    but for repairs that would make a new finding (those are undone and `refused`)."""
    m = report.motion
    todo = [f for f in report.findings if repairable(f, report)]
    refused: list[Finding] = []
    for _ in range(REFUSALS + 1):
        w, touched = _repair(report, todo)
        clip = Clip(w.rot, m.clip.translations.copy(), m.clip.frame_time, m.clip.source)
        # The output is written with its Euler curves unwrapped, so the second lint has no wraps.
        after = lint_clip(m.skeleton, clip, report.chains, limits=report.limits)
        introduced = [g for g in after.findings if not any(same_finding(f, g) for f in report.findings)]
        bad = [f for f, t in zip(todo, touched) if any(_touches(t, g) for g in introduced)]
        if not introduced or not bad:
            break
        refused += bad
        todo = [f for f in todo if f not in bad]
    remaining = [f for f in report.findings if any(same_finding(f, g) for g in after.findings)]
    repaired = [f for f in report.findings if not any(same_finding(f, g) for g in after.findings)]
    return FixResult(clip, repaired, remaining, introduced, w.changed, after, refused)


@dataclass(frozen=True)
class Repair:
    """A finding fix_clip repairs: its kind (and causes, when only some are), whether it needs
    a limb chain or a joint, what it is called (plural, for messages), and the repair,
    run(work, finding, limb or None, report)."""

    kind: str
    causes: tuple[str, ...] | None  # None: whatever its cause
    needs: str  # "limb": the finding's chain is one of the lint's limbs; "joint": it names a joint
    label: str
    run: Callable


# Every repair, in the order they run (flips and turns first, then pops, then slides); the one
# table fix_clip and the editor's Fix buttons read (repairable). Findings of other kinds
# (reference frames, lone jumps, limits) are reported, not repaired.
REPAIRS = (
    Repair("discontinuity", ("turned_span",), "joint", "joints turned away and back",
           lambda w, f, limb, r: unturn(w, w.sk.index(f.joint), f.frame_start, f.frame_end)),
    Repair("pole_flip", ("turned_mid",), "limb", "pole flips", lambda w, f, limb, r: unturn(w, limb.mid, f.frame_start, f.frame_end)),
    Repair("pole_flip", None, "limb", "pole flips", lambda w, f, limb, r: untwist(w, limb, f.frame_start, f.frame_end)),
    Repair("knee_pop", None, "limb", "knee pops", lambda w, f, limb, r: _fix_pop(w, limb, f.frame_start, f.frame_end)),
    Repair("foot_slide", None, "limb", "foot slides", lambda w, f, limb, r: _fix_slide(w, limb, f.frame_start, _contact_end(r, f))),
)


def repaired_text() -> str:
    """'joints turned away and back, pole flips, knee pops and foot slides': what Fix repairs."""
    labels = list(dict.fromkeys(r.label for r in REPAIRS))
    return f"{', '.join(labels[:-1])} and {labels[-1]}" if len(labels) > 1 else labels[0]


def repair_of(f: Finding, limbs: Collection[str]) -> Repair | None:
    """The entry of REPAIRS that repairs `f`, or None; `limbs`: the lint's limb chains' names."""
    for r in REPAIRS:
        if r.kind == f.kind and (r.causes is None or f.cause in r.causes):
            return r if (f.chain in limbs if r.needs == "limb" else f.joint is not None) else None
    return None


def repairable(f: Finding, report) -> bool:
    """Whether fix_clip repairs `f`, a finding of `report` (a LintReport)."""
    return repair_of(f, {l.chain for l in report.motion.limbs}) is not None


def _repair(report, todo: list[Finding]) -> tuple[_Work, list[np.ndarray]]:
    """The repairs of `todo` in REPAIRS' order (by kind, then frame), and the frames each wrote."""
    w = _Work(report)
    order: dict[str, int] = {}
    for k, r in enumerate(REPAIRS):
        order.setdefault(r.kind, k)
    touched = [np.zeros(w.m.n_frames, dtype=bool) for _ in todo]
    for i in sorted(range(len(todo)), key=lambda i: (order.get(todo[i].kind, len(REPAIRS)), todo[i].frame_start)):
        f, before = todo[i], w.changed.copy()
        w.changed[:] = False
        repair_of(f, w.limbs).run(w, f, w.limbs.get(f.chain), report)
        touched[i] = w.changed.copy()
        w.changed |= before
    return w, touched


def _touches(frames: np.ndarray, g: Finding, near: int = 2) -> bool:
    lo, hi = max(g.frame_start - near, 0), min(g.frame_end + near + 1, len(frames))
    return bool(frames[lo:hi].any())


def same_finding(f: Finding, g: Finding) -> bool:
    """The same problem in two lints: kind, place and cause, overlapping frames."""
    return (f.kind, f.chain, f.joint, f.cause) == (g.kind, g.chain, g.joint, g.cause) and f.frame_start <= g.frame_end and g.frame_start <= f.frame_end


def _bent(pos, limb) -> bool:
    u, v = pos[limb.mid] - pos[limb.root], pos[limb.end] - pos[limb.mid]
    c = (u @ v) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-300)
    return bool(c < np.cos(np.radians(DEFINED_BEND_DEG)))


def _contact_end(report, f: Finding) -> int:
    """The last flat frame of the finding's contact (at least the finding's last frame)."""
    limb = next(l for l in report.motion.limbs if l.chain == f.chain)
    for a, b in report.contacts.get(f.chain, []):
        if a <= f.frame_start <= b:
            return max(a + int(np.nonzero(flat_frames(report.motion, limb, a, b))[0][-1]), f.frame_end)
    return f.frame_end


def _anchors(w: _Work, a: int, b: int) -> list[int]:
    return [g for g in (a - 1, b + 1) if w.m.first <= g < w.m.n_frames]


def _blend(w: _Work, limb, a: int, b: int, f: int, which: int) -> np.ndarray:
    """A limb's parent-frame bend (which=0) or end offset (which=1) at f, blended across a..b."""
    anchors = _anchors(w, a, b)
    if not anchors:
        return w.local_bend(f, limb)[which]
    values = [w.local_bend(g, limb)[which] for g in anchors]
    if len(values) == 1:
        return values[0]
    u = (f - anchors[0]) / (anchors[1] - anchors[0])
    return (1.0 - u) * values[0] + u * values[1]


def _solve(w: _Work, limb, f: int, target: np.ndarray, bend_world: np.ndarray, keep_end_world: bool) -> None:
    pos, q = w.fk(f)
    root, mid, end = pos[limb.root], pos[limb.mid], pos[limb.end]
    length = float(np.linalg.norm(mid - root) + np.linalg.norm(end - mid))
    goal = effective_target(root, target, length, REACH_CLAMP, SOFTNESS * w.m.leg_length)
    pole = 0.5 * (root + goal) + bend_world * length
    r = two_bone_ik(root, mid, end, goal, pole)
    pose = write_chain_positions(w.sk, Pose(w.rot[f], w.trans[f]), [limb.root, limb.mid, limb.end], np.stack([root, r.mid, r.end]))
    rot = pose.rotations.copy()
    if keep_end_world:
        _, q_new = w.sk.fk(Pose(rot, w.trans[f]))
        rot[limb.end] = quat_normalize(quat_mul(quat_conj(q_new[limb.mid]), q[limb.end]))
    w.write(f, rot)


def _fix_pop(w: _Work, limb, a: int, b: int) -> None:
    for f in range(a, b + 1):
        pos, q = w.fk(f)
        parent = w.parent_q(q, limb)
        target = pos[limb.root] + quat_rotate(parent, _blend(w, limb, a, b, f, 1))
        bend = quat_rotate(parent, _blend(w, limb, a, b, f, 0))
        _solve(w, limb, f, target, bend, keep_end_world=False)


def _fix_slide(w: _Work, limb, a: int, contact_end: int) -> None:
    n = w.m.n_frames
    ease = max(1, int(round(EASE_S * w.m.fps)))
    last = min(contact_end + ease, n - 1)
    feet = np.stack([w.fk(f)[0][limb.end] for f in range(a, last + 1)])
    lock = feet[0].copy()
    held = lock - feet[contact_end - a]
    carried = w.local_bend(a - 1, limb)[0] if a - 1 >= w.m.first else None
    for f in range(a, last + 1):
        foot = feet[f - a]
        if f <= contact_end:
            offset = lock - foot
        else:
            u = (f - contact_end) / (ease + 1)
            offset = held * (1.0 - u * u * (3.0 - 2.0 * u))
        offset[1] = 0.0
        pos, q = w.fk(f)
        carried = w.local_bend(f, limb, carried)[0]
        _solve(w, limb, f, foot + offset, quat_rotate(w.parent_q(q, limb), carried), keep_end_world=True)
