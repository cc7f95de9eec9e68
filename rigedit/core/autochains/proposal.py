"""A proposed chain, and where a limb's pole goes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .figure import Figure


@dataclass(frozen=True)
class ChainProposal:
    """A chain to add to a rig: Rig.add_chain(name, joints, solver=, target=, pole=)."""

    name: str
    solver: str  # a reaching solver's name (rigedit.core.ik.registry)
    joints: tuple[str, ...]  # root to tip
    target: np.ndarray  # (3,) the tip's position in the reference pose
    pole: np.ndarray | None  # (3,) or None
    reason: str  # how it was found, for the import dialog

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "solver": self.solver,
            "joints": list(self.joints),
            "target": [float(v) for v in self.target],
            "pole": None if self.pole is None else [float(v) for v in self.pole],
        }


def make(fig: Figure, name: str, solver: str, chain, pole, reason: str) -> ChainProposal:
    chain = list(chain)
    return ChainProposal(name, solver, tuple(fig.names[j] for j in chain), fig.pos[chain[-1]].copy(), pole, reason)


def pole_for(fig: Figure, chain, direction: np.ndarray | None) -> np.ndarray | None:
    """One limb length from the middle joint along `direction` (in front of a knee, behind an
    elbow); without a direction, along the limb's own bend; None for a straight limb."""
    chain = list(chain)
    root, tip = chain[0], chain[-1]
    mid = chain[1] if len(chain) == 3 else chain[len(chain) // 2]
    length = float(np.linalg.norm(fig.pos[mid] - fig.pos[root]) + np.linalg.norm(fig.pos[tip] - fig.pos[mid]))
    if direction is None:
        bend = fig.pos[mid] - 0.5 * (fig.pos[root] + fig.pos[tip])
        n = float(np.linalg.norm(bend))
        if n <= fig.tiny:
            return None
        direction = bend / n
    return fig.pos[mid] + direction * length
