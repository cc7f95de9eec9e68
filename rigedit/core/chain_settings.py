"""A chain's settings as one checked value (ChainSettings), the error raised for a limit the
chain's skeleton cannot take (LimitFitError), and the per-chain solve report (ChainReport).

ChainSettings.checked runs the validators of chain_checks.py: Chain.apply and the preset
reader both take settings through it, so the chain (which names the chain and field) and the
preset reader (which names the file and JSON path) phrase the same problem the same way.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Iterable

import numpy as np

from .chain_checks import (
    _field,
    _mapping,
    check_limits,
    check_joints,
    check_max_iterations,
    check_solver,
    check_solver_fits,
    check_tolerance,
    check_vec3,
    check_weight,
    fmt,
)
from .chain_uses import DEFAULT_REACH_CLAMP, DEFAULT_SOFTNESS, LookAtSettings, check_look_at, check_reach_clamp, check_softness
from .clip_goals import check_offset_keys
from .field_error import FieldError
from .ik.limits import Limit


class LimitFitError(ValueError):
    """A limit the chain cannot take on that joint (its tip, the root of a two-bone chain, a
    hinge axis along the bone); `joint` names the joint, `problem` says why."""

    def __init__(self, joint: str, problem: str, prefix: str = "") -> None:
        super().__init__(f"{prefix}limit on {joint!r}: {problem}")
        self.joint, self.problem = joint, problem


@dataclass(frozen=True)
class ChainSettings:
    """Everything editable about a chain, as one immutable value (for undo and the solver thread)."""

    solver: str
    target: tuple[float, float, float]
    pole: tuple[float, float, float] | None
    tolerance: float
    max_iterations: int
    weight: float
    limits: tuple[tuple[str, Limit], ...]  # sorted by joint name, so equal settings compare equal
    reach_clamp: float = DEFAULT_REACH_CLAMP  # fraction of full length a target may ask for; 1 = off
    softness: float = DEFAULT_SOFTNESS  # metres of reach eased by soft IK; 0 = off
    look_at: LookAtSettings = LookAtSettings()  # used by the look_at solver only
    ground_feet: bool = False  # the target follows the rig's ground under the animated tip
    # Issue 14 (clip_goals.py): the goal is the animated tip plus `offset_keys` (a vector
    # curve's keys, metres) and the pole is placed from the animated bend; `target` and
    # `pole` then report that goal and pole at the rig's time and are not taken by apply.
    follow_clip: bool = False
    offset_keys: tuple = ()
    # Issue 16 (rig_full_body.py): how much this chain's goal may move the body with
    # rig.full_body on, 0..1; None takes the default of the chain's role (legs 0).
    pull: float | None = None

    def checked(self, joints: Iterable[str]) -> "ChainSettings":
        """These settings checked for a chain of `joints` (names, root to tip) as the
        chain's setters check them, cleaned; FieldError names the field below the chain and
        the bare problem (what the preset reader turns into a JSON path)."""
        joints = _field("joints", check_joints, joints)
        solver = _field("solver", check_solver, self.solver)
        _field("joints", check_solver_fits, solver, len(joints))
        checked = ChainSettings(
            solver=solver,
            target=_field("target", check_vec3, self.target),
            pole=None if self.pole is None else _field("pole", check_vec3, self.pole),
            tolerance=_field("tolerance", check_tolerance, self.tolerance),
            max_iterations=_field("max_iterations", check_max_iterations, self.max_iterations),
            weight=_field("weight", check_weight, self.weight),
            limits=tuple(sorted(check_limits(_mapping(self.limits), joints).items())),
            reach_clamp=_field("reach_clamp", check_reach_clamp, self.reach_clamp),
            softness=_field("softness", check_softness, self.softness),
            look_at=_field("look_at", check_look_at, self.look_at, len(joints)),
            ground_feet=bool(self.ground_feet),
            follow_clip=bool(self.follow_clip),
            offset_keys=_field("offset_keys", check_offset_keys, self.offset_keys),
            pull=None if self.pull is None else _field("pull", check_weight, self.pull),
        )
        if not isinstance(self.ground_feet, (bool, np.bool_)):
            raise FieldError(("ground_feet",), f"must be true or false, got {fmt(self.ground_feet)}")
        if not isinstance(self.follow_clip, (bool, np.bool_)):
            raise FieldError(("follow_clip",), f"must be true or false, got {fmt(self.follow_clip)}")
        return checked


@dataclass(frozen=True)
class ChainReport:
    """What one solve did for one chain. `error` is the IK solution's tip distance to the
    target (before blending: at a weight below 1 the blended pose misses by more, and
    the editor's status line measures that pose's tip, app/status.py); `reached` is error <= the chain's tolerance, and only `reached`
    says a chain is within tolerance; `iterations` is the FABRIK passes run, and 0 does not
    mean within tolerance (0 for the closed-form two-bone solver, for a chain not solved again
    because nothing changed, or that stalled short of its target, and for an unlimited
    FABRIK chain out of reach); `errors` is the tip error after each of those passes."""

    name: str
    error: float
    iterations: int
    reached: bool
    errors: tuple[float, ...] = ()


_REPORT_FIELDS = ("name", "error", "iterations", "reached", "errors")


def _fast_report(name: str, error: float, iterations: int, reached: bool, errors: tuple = ()) -> ChainReport:
    """ChainReport(name, error, iterations, reached, errors), made without the frozen
    dataclass's __init__ (one object.__setattr__ per field: a few microseconds a frame
    over a rig's chains). The same object: equal, hashed and printed alike."""
    r = _new(ChainReport)
    _set(r, "__dict__", {"name": name, "error": error, "iterations": iterations, "reached": reached, "errors": errors})
    return r


_new, _set = object.__new__, object.__setattr__
# Only while ChainReport has exactly these fields (one more, and the plain constructor it is).
report = _fast_report if tuple(f.name for f in fields(ChainReport)) == _REPORT_FIELDS else ChainReport
