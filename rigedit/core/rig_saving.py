"""A rig's solved pose taken out as data and put back (Rig.solved_state, Rig.restore_state):
what a saved preset keeps so that opening it shows the same pose and solves on from it as
the rig that saved it would (the data and its checks are rig_pose.py's)."""
from __future__ import annotations

from .chain_settings import ChainReport
from .ik.frame_codes import SHOW_NONE, SHOW_SAVED
from .rig_anim import animated
from .rig_eval import solve_frame, solved_for_now
from .full_body_saved import exported as body_exported, put_back as body_put_back
from .rig_pose import SolvedPose, exported, put_back


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
    dropped (rig_pose.put_back): that chain is solved afresh. A chain the saving rig had
    not solved is left as animated until the next solve, as that rig's would be."""
    state = rig.solve_state
    anim = animated(rig)
    state.states = put_back(rig, solved, solved_for_now(rig), anim)
    body_put_back(rig, solved.full_body, anim)
    state.forget_frame()
    if not solve:
        return None
    show = {name: SHOW_SAVED for name in state.states}
    show.update((name, SHOW_NONE) for name in rig.chain_names if name not in solved.chains)
    return solve_frame(rig, show=show)
