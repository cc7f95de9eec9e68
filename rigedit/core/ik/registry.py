"""The solvers a rig chain can use, found by name: one entry per solver carrying its
behaviour, so no module compares solver names or asks "is this two-bone?" of its own.

An entry says which chains and limits it takes (validation, the property dock, the import
dialog), and its `method` (core/solve_methods.py) how it works: which compiled row the rig
frame runs for it (its closed form, or its step through the shared iteration loop), how
the frame packs its settings, how full body packs it, and what the status line says. A
method lacks no part silently: one it does not give raises NotImplementedError where asked.

Adding a reaching solver with a step: its step in ik/ (a sweep the shared loop runs, as
fabrik_passes.ccd is CCD's) reached from the loop's rows under a new frame_codes.ROW_*, its
single-chain function (fabrik's signature), and one entry below, as CCD's:
`Solver("ccd", ..., method=ReachLoop("CCD loop", ccd, CCD_ROW))`.
A ReachLoop chain under full body runs the full-body loop's own step (a weighted CCD
sweep over its joints, ik/full_body_kernel.py), whichever loop solver it names.

Names are what presets and `Chain.solver` spell ("two_bone", "fabrik", "ccd", "look_at"); the
order here is the order the editor lists them in (FABRIK before CCD: general() and
reaching_for() give new chains the first that fits).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..solve_methods import CCD_ROW, FABRIK, Aim, ClosedLimb, Method, ReachLoop
from .ccd_solve import ccd

# Which joints of a chain may carry a joint limit.
ALL_BUT_TIP = "all but the tip"
MIDDLE = "the middle joint"
NO_LIMITS = "none"


@dataclass(frozen=True)
class Solver:
    name: str  # as presets and Chain.solver spell it
    label: str  # what the editor shows
    method: Method  # how it works in the rig, the bake, full body and the status line
    joints: int | None  # exactly this many joints, or None: any chain of 2 or more
    pole: bool  # a pole picks the bend direction (the editor draws and offers one)
    iterations: bool  # runs passes, up to max_iterations (its report has per-pass errors)
    tolerance: bool  # tolerance decides "reached"
    limits: str  # ALL_BUT_TIP, MIDDLE or NO_LIMITS
    no_limits_why: str = ""  # with NO_LIMITS: what limits it instead
    # Puts the tip on the target (False: aims it; no reach clamp, soft IK, ground feet,
    # plants, saved pose or full body, and the tip turns): its method's, read per chain per
    # frame, so kept as a field rather than asked each time.
    reaches: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reaches", bool(self.method.reaches))

    @property
    def middle_limit_only(self) -> bool:
        return self.limits == MIDDLE

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
    Solver("two_bone", "Two-bone (exact)", ClosedLimb(), joints=3, pole=True, iterations=False, tolerance=True,
           limits=MIDDLE),
    Solver("fabrik", "FABRIK (iterative)", FABRIK, joints=None, pole=True, iterations=True, tolerance=True,
           limits=ALL_BUT_TIP),
    Solver("ccd", "CCD (iterative)", ReachLoop("CCD loop", ccd, CCD_ROW), joints=None, pole=False,
           iterations=True, tolerance=True, limits=ALL_BUT_TIP),
    Solver("look_at", "Look at (aim)", Aim(), joints=None, pole=False, iterations=False, tolerance=True,
           limits=NO_LIMITS, no_limits_why="its cone is look_at.max_angle_deg"),
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
    reaching = [s for s in SOLVERS if s.reaches and s.fits(n_joints)]
    return next((s for s in reaching if not s.iterations), next(s for s in reaching if s.joints is None))


def general() -> Solver:
    """The reaching solver that takes any chain (spines, tails, unknown branches)."""
    return next(s for s in SOLVERS if s.reaches and s.joints is None)


def aiming() -> tuple[Solver, ...]:
    return tuple(s for s in SOLVERS if not s.reaches)


def reaching() -> tuple[Solver, ...]:
    """The solvers that put a chain's tip on its target, in the editor's order."""
    return tuple(s for s in SOLVERS if s.reaches)
