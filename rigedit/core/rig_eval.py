"""One frame of a rig solved (Rig.solve delegates here): the animated pose, the goals the
frame places, and the solve: every chain together under full body (rig_full_body.py),
else every chain in dependency order in one compiled call (rig_frame.py; docs/ARCHITECTURE.md,
core: one frame evaluation), which warm-starts each chain from its own last solution,
blends it by its weight before the next chain looks at the pose and turns grounded feet to
their soles. What is kept between frames is the rig's RigState (rig_state.py). The goals
are the frame's (rig_goals.py), never written into the chains.
"""
from __future__ import annotations

from .chain_settings import ChainReport, report
from .rig_anim import animated
from .rig_chain import solve_settings
from .rig_frame import compiled_frame
from .rig_full_body import solve_frame as full_body_frame
from .rig_goals import goal_and_pole, placed_goals


def solve_frame(rig, show: dict | None = None) -> dict[str, ChainReport]:
    """Rig.solve: every chain in order, each blended by its weight before the next one
    looks at the pose; the result becomes the rig's pose. Returns chain name -> ChainReport.

    A chain whose inputs (its settings and the pose above it) are those of its last solve
    is not solved again, unless it was still short of the target (it gets another
    warm-started go); a frame whose inputs all match the last settled one returns at once.

    `show` (Rig.restore_state): chain name -> frame_codes.SHOW_*: a saved solution put back
    is shown as it was, not solved, and stays the state it was for the next solve to go on
    from (rig_pose.py); a chain the saving rig had not solved is left as animated."""
    anim = animated(rig)
    # This frame's goals (rig_goals.py): grounded feet and follow-clip chains aim where the
    # frame places them; the chains themselves are not written.
    placed = placed_goals(rig, anim)
    if rig.full_body:  # issue 16: every chain together (rig_full_body.py)
        return full_body_frame(rig, anim, show is not None)
    return compiled_frame(rig, anim, placed, report, show)


def solved_for_now(rig) -> dict[str, tuple]:
    """Each chain's (offsets, settings, limits) as a solve now would read them: what a
    saved solution is compared with to say whether it is current (rig_pose.py)."""
    anim = animated(rig)
    trans, placed, plans = anim.trans, placed_goals(rig, anim), rig.plans
    return {
        name: ([trans[j] for j in plans[name].idx], solve_settings(ch, *goal_and_pole(ch, placed)), ch.limit_key)
        for name, ch in rig.chains_by_name.items()
    }
