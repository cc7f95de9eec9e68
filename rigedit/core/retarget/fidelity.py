"""How closely a retarget keeps the source's limb directions: per bone (a limb's upper and
lower bone, each side, and the torso line), the cosine between the source bone's world
direction and the target's, turned by the facing between them, averaged over the frames.
1 is the same direction on every frame; the arm-space correction (space.py) and the hips
lowered for a longer leg (limbs.py) are what take it below 1 on a good retarget.
"""
from __future__ import annotations

import numpy as np

from ..clip import Clip
from ..skeleton import Pose, Skeleton
from ..transforms import quat_rotate

Bone = tuple[str, tuple[str, str], tuple[str, str]]  # name, source joints (a, b), target joints (a, b)


def bones_of(t, s) -> list[Bone]:
    """The bones compared, from the two figures' roles (roles.Roles)."""
    sn, tn = s.skeleton.names, t.skeleton.names
    out: list[Bone] = []
    for role in t.limbs:
        if role not in s.limbs:
            continue
        tj, sj = t.limbs[role], s.limbs[role]
        tm, sm = tj[len(tj) // 2], sj[len(sj) // 2]
        out.append((f"{role} upper", (sn[sj[0]], sn[sm]), (tn[tj[0]], tn[tm])))
        out.append((f"{role} lower", (sn[sm], sn[sj[-1]]), (tn[tm], tn[tj[-1]])))
    if s.spine and t.spine:
        out.append(("torso", (sn[s.hips], sn[s.spine[-1]]), (tn[t.hips], tn[t.spine[-1]])))
    return out


def direction_cosines(source: Skeleton, clip: Clip, target: Skeleton, result: Clip, bones: list[Bone],
                      turn: np.ndarray) -> dict[str, float]:
    """bone name -> mean cosine over the frames; turn: (4,) the source-to-target facing."""
    if clip.n_frames != result.n_frames:
        raise ValueError(f"the source has {clip.n_frames} frames, the retarget {result.n_frames}")
    sp, _ = source.fk(Pose(clip.rotations, clip.translations))
    tp, _ = target.fk(Pose(result.rotations, result.translations))
    out = {}
    for name, (sa, sb), (ta, tb) in bones:
        u = quat_rotate(turn, sp[:, source.index(sb)] - sp[:, source.index(sa)])
        v = tp[:, target.index(tb)] - tp[:, target.index(ta)]
        n = np.linalg.norm(u, axis=-1) * np.linalg.norm(v, axis=-1)
        ok = n > 1e-12
        out[name] = float(np.mean(np.einsum("fi,fi->f", u[ok], v[ok]) / n[ok])) if ok.any() else 1.0
    return out
