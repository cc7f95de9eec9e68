"""The solvers a rig chain can use, found by name: one entry per solver saying what the rest of
the code needs to know about it (chain and preset validation, Rig.solve, the bake, the
property dock, the import dialog), so no module compares solver names of its own.

Names are what presets and `Chain.solver` spell ("two_bone", "fabrik", "look_at"); the order
here is the order the editor lists them in.
"""
from __future__ import annotations

from dataclasses import dataclass

# Which joints of a chain may carry a joint limit.
ALL_BUT_TIP = "all but the tip"
MIDDLE = "the middle joint"
NO_LIMITS = "none"


@dataclass(frozen=True)
class Solver:
    name: str  # as presets and Chain.solver spell it
    label: str  # what the editor shows
    closed_form: bool  # one exact step: no passes, and solving the same again changes nothing
    joints: int | None  # exactly this many joints, or None: any chain of 2 or more
    pole: bool  # a pole picks the bend direction
    iterations: bool  # runs passes, up to max_iterations (its report has per-pass errors)
    tolerance: bool  # tolerance decides "reached"
    limits: str  # ALL_BUT_TIP, MIDDLE or NO_LIMITS
    aims: bool  # turns the chain so its tip's forward points at the target (look-at) instead of
    # moving the tip onto it: no reach clamp, soft IK, ground feet or plants, and the tip turns
    no_limits_why: str = ""  # with NO_LIMITS: what limits it instead

    def fits(self, n_joints: int) -> bool:
        return self.joints is None or n_joints == self.joints

    def fit_problem(self, n_joints: int) -> str | None:
        if self.fits(n_joints):
            return None
        return f"solver {self.name!r} needs exactly {self.joints} joints, got {n_joints}"

    def limit_problem(self, k: int) -> str | None:
        """Why chain joint k (0 = root; the tip is refused for every solver by the rig) cannot
        carry a limit under this solver, or None."""
        if self.limits == NO_LIMITS:
            why = f" ({self.no_limits_why})" if self.no_limits_why else ""
            return f"a {self.name} chain takes no joint limits{why}"
        if self.limits == MIDDLE and k != 1:
            return f"a {self.name} chain takes a limit only on its middle joint"
        return None


SOLVERS: tuple[Solver, ...] = (
    Solver("two_bone", "Two-bone (exact)", closed_form=True, joints=3, pole=True, iterations=False, tolerance=True,
           limits=MIDDLE, aims=False),
    Solver("fabrik", "FABRIK (iterative)", closed_form=False, joints=None, pole=True, iterations=True, tolerance=True,
           limits=ALL_BUT_TIP, aims=False),
    Solver("look_at", "Look at (aim)", closed_form=True, joints=None, pole=False, iterations=False, tolerance=True,
           limits=NO_LIMITS, aims=True, no_limits_why="its cone is look_at.max_angle_deg"),
)  # fmt: skip

NAMES: tuple[str, ...] = tuple(s.name for s in SOLVERS)
_BY_NAME = {s.name: s for s in SOLVERS}


def find(name) -> Solver | None:
    """The solver called `name`, or None."""
    return _BY_NAME.get(name) if isinstance(name, str) else None


def get(name) -> Solver:
    """The solver called `name`; ValueError naming the known ones otherwise."""
    solver = find(name)
    if solver is None:
        raise ValueError(f"unknown solver {name!r} (expected {expected()})")
    return solver


def expected() -> str:
    """The known names, for a message: 'two_bone', 'fabrik' or 'look_at'."""
    known = [repr(n) for n in NAMES]
    return f"{', '.join(known[:-1])} or {known[-1]}"


def reaching_for(n_joints: int) -> Solver:
    """The solver a new reaching chain of n joints gets: the closed form where it fits (exact,
    and no passes to pay), else the general iterative one."""
    reaching = [s for s in SOLVERS if not s.aims and s.fits(n_joints)]
    return next((s for s in reaching if s.closed_form), next(s for s in reaching if s.joints is None))


def general() -> Solver:
    """The reaching solver that takes any chain (spines, tails, unknown branches)."""
    return next(s for s in SOLVERS if not s.aims and s.joints is None)


def aiming() -> tuple[Solver, ...]:
    return tuple(s for s in SOLVERS if s.aims)
