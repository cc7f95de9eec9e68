"""Motion quality: a clip measured on its own skeleton, in units of the figure's height, so
that takes of any skeleton compare (rigedit report).

    q = measure_clip(skeleton, clip)                      # chains proposed as lint proposes them
    q = measure_clip(skeleton, clip, chains, limits=...)  # a rig's chains and joint limits
    q = measure_clip(skeleton, clip, mesh=mesh)           # also the skinned mesh's limbs inside the body
    q.summary()   # flat numbers for JSON (keys in result.py)
    q.tracks()    # per-frame series for plots

One measure a module: skate.py (foot skate), contacts.py (grounded / locked feet, slide),
ground.py (feet below the ground), self_contact.py with capsules.py (limbs inside the body),
mesh_contact.py (limb vertices inside the body, from the skinned mesh when there is one),
jitter.py (jerk), limits.py (past the rig's limits); the lint findings come from core/lint.
What they all read (positions, height, feet, torso) is body.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..clip import Clip
from ..lint import LintReport, lint_clip
from ..mesh import Mesh
from ..skeleton import Skeleton
from .body import Body, body_of
from .contacts import FootContacts, foot_contacts
from .ground import Penetration, ground_penetration
from .jitter import Jitter, jitter
from .limits import Limits, joint_limits
from .mesh_contact import MeshPenetration, mesh_self_penetration
from .result import HIGHER_IS_BETTER, METRICS
from .self_contact import SelfPenetration, self_penetration
from .skate import Skate, foot_skate
from .summary import summarize, tracks_of

__all__ = ["ClipQuality", "HIGHER_IS_BETTER", "METRICS", "measure_clip"]

FAR_FROM_GROUND = 0.1  # of the height: feet that never come this near y = 0 stand on another floor


@dataclass
class ClipQuality:
    body: Body
    lint: LintReport
    jitter: Jitter
    skate: Skate | None = None
    contacts: dict[str, FootContacts] | None = None
    ground: Penetration | None = None
    self_pen: SelfPenetration | None = None
    limits: Limits | None = None
    mesh_pen: MeshPenetration | None = None

    def notes(self) -> list[str]:
        b, out = self.body, []
        if not b.two_legged:
            out.append("no left and right legs found: foot and body measures skipped")
        elif self.ground is not None:
            low = min(float(b.moving[:, j, 1].min()) for pts in b.feet.values() for j in pts)
            if low > FAR_FROM_GROUND * b.height:
                out.append(f"the feet never come within {100 * FAR_FROM_GROUND:.0f} % of the height of y = 0 "
                           f"(lowest {1000 * low:.0f} mm): the ground may not be where the file puts it")
        if b.first:
            out.append("frame 0 is a reference pose: left out of every measure")
        return out

    def summary(self) -> dict:
        return summarize(self)

    def tracks(self) -> dict:
        return tracks_of(self)


def measure_clip(
    skeleton: Skeleton,
    clip: Clip,
    chains: Sequence[tuple] | None = None,
    *,
    limits: Mapping[str, Mapping[str, object]] | None = None,
    euler: Mapping[str, np.ndarray] | None = None,
    mesh: Mesh | None = None,
) -> ClipQuality:
    """Every measure of `clip` (chains and limits as lint_clip takes them; limits measured only
    when given; the mesh's limbs inside the body only with a skinned `mesh` of this skeleton).
    ValueError for a clip that is not this skeleton's or is not finite."""
    body = body_of(skeleton, clip)
    report = lint_clip(skeleton, clip, chains, limits=limits, euler=euler)
    q = ClipQuality(body, report, jitter(body))
    if body.two_legged:
        q.skate = foot_skate(body)
        q.contacts = {side: foot_contacts(body, side) for side in body.feet}
        q.ground = ground_penetration(body)
        q.self_pen = self_penetration(body)
        if mesh is not None:
            q.mesh_pen = mesh_self_penetration(body, clip, mesh)
    if limits:
        q.limits = joint_limits(report.motion, limits)
    return q
