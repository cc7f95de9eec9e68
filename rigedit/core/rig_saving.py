"""A rig's solved pose taken out as data and put back (Rig.solved_state, Rig.restore_state):
what a saved preset keeps so that opening it shows the same pose and solves on from it as
the rig that saved it would (the data and its checks are rig_pose.py's)."""
from __future__ import annotations

from .chain_settings import ChainReport
from .rig_anim import animated
from .rig_eval import solve_frame, solved_for_now
from .full_body_saved import exported as body_exported, put_back
from .rig_pose import SolvedPose, exported, pending


def solved_state(rig) -> SolvedPose:
    """Every chain's last solution, and the full-body solve's warm start, as data."""
    state = rig.solve_state
    states = state.states
    body = body_exported(rig, animated(rig)) if state.body.has_start() else None
    if not states:
        return SolvedPose({}, body)
    now = solved_for_now(rig)
    return SolvedPose({name: exported(chain_state, now[name]) for name, chain_state in states.items()}, body)


def restore_state(rig, solved: SolvedPose, solve: bool) -> dict[str, ChainReport] | None:
    """The warm starts replaced by the saved solutions; shown as they were unless `solve`
    is False (then the reports are None). A solution that does not fit its chain is
    dropped (rig_pose.pending): that chain is solved afresh."""
    state = rig.solve_state
    state.states = pending(rig, solved, solved_for_now(rig))
    put_back(rig, solved.full_body, animated(rig))
    state.forget_frame()
    state.outputs = {}
    unsaved = frozenset(name for name in rig.chain_names if name not in solved.chains)
    if not solve:
        return None
    return solve_frame(rig, show=unsaved)
