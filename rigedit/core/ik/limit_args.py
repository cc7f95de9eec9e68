"""fabrik()'s and ccd()'s `limits=` read into the arrays their compiled solve takes
(single_kernel.solve_chain), and the problems that solve reports named. Plain Python: the
kernel is imported where a solve first needs it (fabrik.single_kernel).

`limits` is None; {joint index: HingeLimit | ConeLimit}; a list with one limit-or-None per
point; a LimitPlan; or a ChainLimits (chain_frames.py), whose joints are either. What
depends only on the joints is validated and packed once (chain_frames.plan_limits, then
LimitPlan.rows) and kept: on the LimitPlan itself, and for a mapping or a list in a small
cache keyed by its identity and checked against its contents (the joint indices and the
limit objects themselves: limits are frozen, so the same objects mean the same plan). A
caller that fills a new dict each call pays the validation each call; one that keeps its
dict (or a LimitPlan) pays a comparison of two tuples. Per call, only ChainLimits' root
direction, root frame and frames are read into arrays; their numbers are checked in the
kernel.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .chain_frames import ChainLimits, LimitPlan, plan_limits
from .chain_input import refuse_points
from .single_codes import (
    BAD_FRAMES, BAD_POINTS, BAD_ROOT_DIR, BAD_ROOT_FRAME, BAD_TARGET, PARALLEL_HINGE, ZERO_FRAME, ZERO_ROOT_DIR,
    ZERO_ROOT_FRAME,
)

_NO_VEC = np.zeros(3)
_IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
_NO_FRAMES = np.zeros((0, 4))
# What solve_chain takes for "no limits": (plan, root_dir, has_root, root_frame, frames, has_frames).
FREE = (np.zeros((0, 6)), _NO_VEC, False, _IDENTITY, _NO_FRAMES, False)

_CACHE_SIZE = 64
_plans: dict = {}  # id(mapping or list) -> (n, (its keys or None, its limits), LimitPlan or None)


def limit_args(limits, n: int):
    """solve_chain's limit arguments (see FREE) for an n-point chain, or None when no limit
    is in play (none given, or only on the tip)."""
    if isinstance(limits, ChainLimits):
        plan = _plan(limits.joints, n, "ChainLimits.joints")
        return None if plan is None else _with_frames(plan, limits, n)
    plan = _plan(limits, n, "limits")
    if plan is None:
        return None
    if plan.on_root:
        _no_root_dir()
    return plan.rows(), _NO_VEC, False, _IDENTITY, _NO_FRAMES, False


def _no_root_dir():
    raise ValueError(
        "a limit on joint 0 (the chain root) is relative to the bone entering it: "
        "give its direction as ChainLimits(root_dir=...)"
    )


def _plan(joints, n: int, what: str) -> LimitPlan | None:
    # A dict first, by its type: an isinstance test against Mapping costs more than all the rest.
    if type(joints) is dict or isinstance(joints, Mapping):
        kept = (tuple(joints), tuple(joints.values()))  # cheaper to make and compare than its items
    elif joints is None:
        return None
    elif isinstance(joints, LimitPlan):
        return plan_limits(joints, n)
    elif what == "limits" and isinstance(joints, Sequence) and not isinstance(joints, str):
        kept = (None, tuple(joints))
    elif what == "limits":
        raise ValueError(
            "limits must be None, a ChainLimits, a mapping joint index -> limit or a list of "
            f"limits (None for none), got {type(joints).__name__}"
        )
    else:
        return plan_limits(joints, n)  # which says what is wrong with it
    key = id(joints)
    seen = _plans.get(key)
    if seen is not None and seen[0] == n:
        # The same joint indices and limit objects (identical ones compare at once): the same
        # plan. Something that is no limit may have taken a limit's place, whose == may raise
        # or not give a bool (a numpy array): then it is no match, and plan_limits names it.
        try:
            if seen[1] == kept:
                return seen[2]
        except Exception:
            pass
    by_joint = joints if kept[0] is not None else {i: lim for i, lim in enumerate(kept[1]) if lim is not None}
    plan = plan_limits(by_joint, n)
    if len(_plans) >= _CACHE_SIZE:
        _plans.clear()
    _plans[key] = (n, kept, plan)
    return plan


def _with_frames(plan: LimitPlan, cl: ChainLimits, n: int) -> tuple:
    root_dir, has_root = _NO_VEC, cl.root_dir is not None
    if has_root:
        root_dir = _floats(cl.root_dir, (3,), "ChainLimits.root_dir must be 3 finite numbers")
    elif plan.on_root:
        _no_root_dir()
    root_frame = _IDENTITY
    if cl.root_frame is not None:
        root_frame = _floats(cl.root_frame, (4,), "ChainLimits.root_frame must be 4 finite numbers")
    frames, has_frames = _NO_FRAMES, cl.frames is not None
    if has_frames:
        frames = _floats(cl.frames, (n - 1, 4), f"ChainLimits.frames must be {n - 1} finite quaternions (one per bone)")
    return plan.rows(), root_dir, has_root, root_frame, frames, has_frames


def _floats(v, shape: tuple, problem: str) -> np.ndarray:
    """v as a C-contiguous writable float64 array of this shape (the caller's own when it is
    one); its numbers are the kernel's to check."""
    if type(v) is np.ndarray and v.shape == shape and v.dtype == np.float64 and v.flags.c_contiguous and v.flags.writeable:
        return v
    try:
        a = np.array(v, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError(f"{problem}, got {v!r}") from None
    if a.shape != shape:
        raise ValueError(f"{problem}, got {a.tolist()!r}" if a.ndim == 1 else f"{problem}, got shape {a.shape}")
    return a


def refuse(status: int, index: int, pts: np.ndarray, tgt: np.ndarray, limits) -> None:
    """Raise the ValueError naming what solve_chain refused (its status and index) for these
    points, target and `limits=`."""
    if status in (BAD_POINTS, BAD_TARGET):
        refuse_points(pts, tgt)
    cl = limits if isinstance(limits, ChainLimits) else None
    if status == BAD_ROOT_DIR:
        raise ValueError(f"ChainLimits.root_dir must be 3 finite numbers, got {np.asarray(cl.root_dir).tolist()!r}")
    if status == ZERO_ROOT_DIR:
        raise ValueError("ChainLimits.root_dir must not be zero")
    if status == BAD_ROOT_FRAME:
        raise ValueError(f"ChainLimits.root_frame must be 4 finite numbers, got {np.asarray(cl.root_frame).tolist()!r}")
    if status == ZERO_ROOT_FRAME:
        raise ValueError("ChainLimits.root_frame must not be a zero quaternion")
    if status == BAD_FRAMES:
        raise ValueError(f"ChainLimits.frames must be {pts.shape[0] - 1} finite quaternions (one per bone); frame {index} is not")
    if status == ZERO_FRAME:
        raise ValueError(f"ChainLimits.frames[{index}] must not be a zero quaternion")
    if status == PARALLEL_HINGE:
        raise ValueError(f"hinge on joint {index}: its axis is parallel to the parent bone, leaving no plane to bend in")
    raise RuntimeError(f"the single-chain solve refused its arrays (status {status}): their shapes do not fit")
