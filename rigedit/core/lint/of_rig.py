"""A rig's own chains and joint limits as lint takes them: what `rigedit lint --rig PRESET`
lints with, and what the editor's Lint panel lints the rig's clip with."""
from __future__ import annotations

from .run import lint_clip


def rig_chains(rig) -> tuple[list[tuple[str, tuple[str, ...], str]], dict]:
    """(name, joints, solver) of each of `rig`'s chains, and the chains' joint limits (per
    chain, per joint name) for those that have any."""
    chains, limits = [], {}
    for name in rig.chain_names:
        ch = rig.chain(name)
        chains.append((name, tuple(ch.joints), ch.solver))
        if ch.limits:
            limits[name] = dict(ch.limits)
    return chains, limits


def lint_rig(rig):
    """lint_clip of `rig.clip` with the rig's chains and limits; ValueError without a clip."""
    if rig.clip is None:
        raise ValueError("the rig has no clip to lint")
    chains, limits = rig_chains(rig)
    return lint_clip(rig.skeleton, rig.clip, chains, limits=limits)
