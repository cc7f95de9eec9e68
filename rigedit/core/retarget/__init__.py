"""Retarget a clip from one skeleton onto another (issues 17 and 27).

    result = retarget_clip(source_skeleton, clip, target_skeleton)           # the defaults
    result = retarget_clip(src, clip, tgt, root="in_place", arm_space=False)  # options.py
    result.clip          # the motion on the target skeleton, its bone lengths kept
    result.max_slide     # metres: the furthest a foot strays over the ground in a contact

How, step by step (one module each):
1. roles.py: both skeletons' hips, spine, head and limbs from the chain proposer, and facing;
2. mapping.py: source joints onto target joints by role, and each pair's anatomical frame
   (feet and toes laid flat, read on a planted frame when the source has no rest pose);
3. transfer.py: world rotations across through those frames (a T-pose source onto an A-pose
   target, +X bones onto +Y bones), the hips' path scaled by the leg-length ratio, kept, or
   taken out (root motion in place);
4. feet.py: the source's foot contacts (lint's detection), the foot goals locked on them and
   raised where the toes would go under the ground;
5. limbs.py: the goals carried across and the limbs solved by the two-bone kernel, knees
   and elbows bending on the source's side; space.py keeps the hands off a wider body.
Retargeting a clip onto its own skeleton gives the clip back (to round-off; feet kept above
the ground and hands off the body only change a clip that had them otherwise).

The package's names are here; `RetargetResult` and `retarget_clip` (pipeline.py, which
brings numpy, scipy and the compiled two-bone kernel) are imported on first use, so that
the options and the error (options.py, errors.py: plain dataclasses) are read without them:
`rigedit retarget --help` and `rigedit batch --help` make their flags from options.py.
"""
from __future__ import annotations

import importlib

from .errors import RetargetError
from .options import ROOT_MODES, RetargetOptions

__all__ = ["ROOT_MODES", "RetargetError", "RetargetOptions", "RetargetResult", "retarget_clip"]

_LATER = {"RetargetResult", "retarget_clip"}  # pipeline.py's


def __getattr__(name: str):
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".pipeline", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
