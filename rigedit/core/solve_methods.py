"""How each kind of solver works in a rig: the behaviour a solver's registry entry carries
(core/ik/registry.py, `Solver.method`), so that Rig.solve (and the bake, which runs its
frame), full body, the saved pose and the editor ask the entry what to do instead of
asking which solver it is.

Three methods cover the solvers: a closed-form limb (two-bone), a reaching solver that runs
passes of a step through the shared iteration loop (FABRIK; CCD joins as another entry with
its own step's frame row), and an aim (look-at). Every rig frame is solved in one compiled
call (rig_frame.py), which runs each chain's `frame_row`. `Method` names every part a method must give and
raises NotImplementedError for any it lacks: a solver whose method misses a part fails
where that part is asked for, it never runs another solver's code in its place.
"""
from __future__ import annotations

import numpy as np

from .ik.fabrik import fabrik
from .ik.frame_codes import (
    F_AXIS, F_CLAMP, F_EPS, F_FWD, F_HI, F_KIND, F_LO, F_MAX_ANGLE, F_MAX_TWIST, F_SIZE, F_SOFT, F_TOL, F_UP, ROW_AIM,
    ROW_CCD, ROW_FABRIK, ROW_LIMB,
)
from .ik.two_bone_codes import NO_LIMIT
from .ik.two_bone import two_bone_ik
from .rig_uses import look_params

# The chain kinds the compiled full-body kernel knows (full_body_kernel.py's `kinds`).
FULL_BODY_LIMB = 0
FULL_BODY_LOOP = 1


class Method:
    """Every part of a solver's behaviour in the rig; a subclass gives each one."""

    name = "method"

    def _missing(self, part: str):
        raise NotImplementedError(f"the {self.name} method has no {part}: give it in its class (core/solve_methods.py)")

    @property
    def reaches(self) -> bool:
        """Puts the chain's tip on its target (ground feet, plants, follow clip, IK/FK match
        and full body take part; the rig keeps its solution as the next warm start).
        False: it aims the chain instead, solved afresh every frame."""
        return self._missing("reaches")

    def single(self, points, target, pole=None, *, tolerance: float = 1e-3, max_iterations: int = 10) -> np.ndarray:
        """The solver's single-chain API (two_bone_ik, fabrik, ...) on a chain's points:
        the solved points (n, 3)."""
        return self._missing("single")

    # Asked per chain per frame: subclasses give these as class attributes (a lookup, not a call).
    @property
    def limb(self) -> bool:
        """Whether it is a closed-form three-joint limb (the editor draws its pole; the
        clip linter measures its bend)."""
        return self._missing("limb")

    @property
    def warm_limited(self) -> bool:
        """Whether a limited solve leaves a warm start of its own (points, frames, limits)."""
        return self._missing("warm_limited")

    @property
    def frame_row(self) -> int:
        """The compiled row the rig's one-call frame runs for it (ik/frame_codes.py ROW_*)."""
        return self._missing("frame_row")

    def frame_floats(self, ch, setup) -> np.ndarray:
        """The chain's settings as the compiled frame takes them (frame_codes.py F_*)."""
        return self._missing("frame_floats")

    def frame_shares(self, ch) -> np.ndarray | None:
        """Per joint, its share of an aim's turn (frame_codes.py J_SHARE), or None: no
        per-joint settings to pack."""
        return None

    def full_body_kind(self) -> int:
        """The chain's kind in the compiled full-body solve (FULL_BODY_*)."""
        return self._missing("full_body_kind")

    def trunk(self) -> bool:
        """Whether a chain of it that others hang from is the body's trunk under full body."""
        return self._missing("trunk")

    def status(self, iterations: int, full_body: bool) -> str:
        """How the editor's status line reports a solve's work (`full_body`: the rig solved
        every chain together)."""
        return self._missing("status")


class ClosedLimb(Method):
    """A three-joint limb solved exactly in one step (two-bone, with pole and middle limit)."""

    name = "closed-form limb"
    reaches = True

    def single(self, points, target, pole=None, *, tolerance=1e-3, max_iterations=10):
        p = np.asarray(points, dtype=np.float64)
        r = two_bone_ik(p[0], p[1], p[2], target, pole, eps=min(1e-6, tolerance))
        return np.stack([p[0], r.mid, r.end])

    limb = True

    warm_limited = False

    frame_row = ROW_LIMB  # two_bone_kernel._limb

    def frame_floats(self, ch, setup):
        row = _settings_row(ch)
        row[F_EPS] = min(1e-6, ch.tolerance)  # two_bone_ik's eps for the chain's tolerance
        kind, axis, lo, hi = (NO_LIMIT, (0.0, 0.0, 0.0), 0.0, 0.0) if setup.mid_limit is None else setup.mid_limit
        row[F_KIND], row[F_AXIS:F_AXIS + 3], row[F_LO], row[F_HI] = kind, axis, lo, hi
        return row

    def full_body_kind(self):
        return FULL_BODY_LIMB

    def trunk(self):
        return False

    def status(self, iterations, full_body):
        # Under full body the whole body's passes moved this chain too (issue 16).
        return f"{iterations} body passes" if full_body else "closed form"


class ReachLoop(Method):
    """A reaching solver that runs passes of its step through the shared iteration loop,
    with limits on every joint but the tip. `api` is its single-chain function (fabrik's
    signature); `frame_row` the rig frame's row that runs its step (frame_codes.ROW_*)."""

    reaches = True

    def __init__(self, name: str, api, frame_row: int) -> None:
        self.name, self.api = name, api
        self._frame_row = frame_row

    @property
    def frame_row(self) -> int:
        return self._frame_row  # its step's rig row (fabrik_limited._rig_row: FABRIK's passes or CCD's sweep)

    def frame_floats(self, ch, setup):
        return _settings_row(ch)

    def single(self, points, target, pole=None, *, tolerance=1e-3, max_iterations=10):
        return self.api(points, target, tolerance=tolerance, max_iterations=max_iterations).points

    limb = False

    warm_limited = True

    def full_body_kind(self):
        return FULL_BODY_LOOP

    def trunk(self):
        return True

    def status(self, iterations, full_body):
        return f"{iterations} {'body passes' if full_body else 'iterations'}"


class Aim(Method):
    """Turns the chain so its tip's forward points at the target (look-at): no warm start,
    solved afresh over the pose built so far every frame."""

    name = "aim"
    reaches = False

    limb = False

    warm_limited = False

    frame_row = ROW_AIM  # look_at_kernel.aim_chain over the pose built so far

    def frame_floats(self, ch, setup):
        _, fwd, up, max_angle, max_twist = look_params(ch.look_at, len(ch.joints))
        row = np.zeros(F_SIZE)
        row[F_TOL], row[F_FWD:F_FWD + 3], row[F_UP:F_UP + 3] = ch.tolerance, fwd, up
        row[F_MAX_ANGLE], row[F_MAX_TWIST] = max_angle, max_twist
        return row

    def frame_shares(self, ch):
        return look_params(ch.look_at, len(ch.joints))[0]

    def full_body_kind(self):
        raise ValueError("an aiming chain takes no part in the full-body solve")

    def trunk(self):
        return False

    def status(self, iterations, full_body):
        return f"{iterations} iterations"  # closed form too, but it has always reported its (zero) passes


def _settings_row(ch) -> np.ndarray:
    row = np.zeros(F_SIZE)
    row[F_TOL], row[F_CLAMP], row[F_SOFT] = ch.tolerance, ch.reach_clamp, ch.softness
    return row


FABRIK = ReachLoop("FABRIK loop", fabrik, ROW_FABRIK)
CCD_ROW = ROW_CCD  # the frame row a CCD entry names (ik/registry.py)
