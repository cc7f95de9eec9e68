"""IK/FK matching (issue 16): the two halves of a pop-free IK/FK switch.

The blend weight is the switch (1: IK, 0: FK, the animated pose). Matching makes the side
being switched to show what the other side shows now, so moving the weight moves nothing:

- IK to FK (`match_ik_to_fk`): each chain's goal goes on its animated (FK) tip and its pole
  on the animated limb's bend (clip_goals.bend_pole, the follow-clip poles' rule), and its
  warm start (full body: the body's too) becomes the animated pose, so the next solve at
  weight 1 lands where FK is. A follow-clip goal gets an offset keyed at this time instead.
  A limb straighter than its reach clamp cannot be matched exactly: the clamp bends it.
  Under full body a chain's weight also takes its goal in or out of the body's solve (at
  weight 0 its hand no longer pulls the hips), so switching one chain moves the body as its
  pull comes or goes; the whole body's switch moves nothing. One chain's IK-to-FK keeps the
  body's warm start (the other chains hang from it too).
- FK to IK (`match_fk_to_ik`): the rotations shown (the solved pose, blended as it is
  drawn) are written into the animated pose at the current frame: the clip's nearest frame
  when there is a clip (a key there), the skeleton's rest pose when there is none. Whole
  body: every joint and the root's translation (less any ground shift, which the animated
  pose gets again); one chain: the joints it turns. Follow-clip goals keep their world
  place (their offsets are keyed again), as the animated tips under them have moved.

Grounded feet and gait legs keep their goals: the ground and the gait place those.
`AnimatedFrame` is the edit as data, for undo.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .clip import Clip
from .clip_goals import _placed_elsewhere, _pole_joints, bend_pole
from .rig_anim import animated
from .rig_posing import unlayered


@dataclass(frozen=True)
class AnimatedFrame:
    """The animated pose's editable frame: the clip's frame `frame` (None: the skeleton's
    rest pose, for a rig without a clip), its local rotations (J, 4) and translations (J, 3)."""

    frame: int | None
    rotations: np.ndarray
    translations: np.ndarray


def _chains(rig, chain: str | None) -> list:
    names = rig.chain_names if chain is None else [rig.chain(chain).name]
    return [rig.chain(n) for n in names if rig.chain(n).kind.reaches]


def ik_to_fk_goals(rig, chain: str | None = None) -> dict[str, dict]:
    """Chain name -> the settings that put its goal (and pole, when it has one) where the
    animated limb is now. Chains whose goals the ground or a gait places are left out."""
    world = rig.clip_goals.world(animated(rig))
    out = {}
    for ch in _chains(rig, chain):
        if _placed_elsewhere(rig, ch):
            continue
        idx = rig.plans[ch.name].idx
        changes = {"target": tuple(float(v) for v in world[idx[-1]])}
        if ch.pole is not None and not ch.following:  # a following pole is placed on the bend already
            r, m, t = _pole_joints(idx)
            pole, _ = bend_pole(world[r].tolist(), world[m].tolist(), world[t].tolist())
            if pole is not None:  # a straight limb has no bend to show: its pole stays
                changes["pole"] = tuple(float(v) for v in pole)
        out[ch.name] = changes
    return out


def forget_warm_starts(rig, chains, *, body: bool) -> None:
    """The next solve of these chains starts from the animated pose; `body`: the full-body
    solve's start too (shared by every chain, so only a whole-body match drops it)."""
    for name in chains:
        rig.solve_state.drop(name)
    if body:
        rig.solve_state.body.forget_start()
    rig.solve_state.forget_frame()


def match_ik_to_fk(rig, chain: str | None = None) -> list[str]:
    """Put the goals (one chain's, or every chain's) where the animated pose has the limbs;
    returns the chains changed. See the module docstring."""
    goals = ik_to_fk_goals(rig, chain)
    for name, changes in goals.items():
        ch = rig.chain(name)
        ch.target = changes["target"]
        if "pole" in changes:
            ch.pole = changes["pole"]
    forget_warm_starts(rig, goals, body=chain is None)
    return list(goals)


def read_animated_frame(rig) -> AnimatedFrame:
    """The frame FK-to-IK writes (a copy)."""
    if rig.clip is None:
        sk = rig.skeleton
        return AnimatedFrame(None, sk.rest_rotations.copy(), sk.offsets.copy())
    clip = rig.clip
    f = _frame_at(clip, rig.time)
    return AnimatedFrame(f, clip.rotations[f].copy(), clip.translations[f].copy())


def write_animated_frame(rig, edit: AnimatedFrame) -> None:
    """Put a frame read_animated_frame gave (edited or not) back into the animated pose."""
    if edit.frame is None:
        sk = rig.skeleton
        sk.rest_rotations[:] = edit.rotations
        sk.offsets[:] = edit.translations
        rig.animation_edited()  # the animated pose is read afresh (as a clip assignment does)
    else:
        clip = rig.clip
        rot, trans = clip.rotations.copy(), clip.translations.copy()
        rot[edit.frame], trans[edit.frame] = edit.rotations, edit.translations
        own = rig.clip_in_preset
        rig.clip = Clip(rot, trans, clip.frame_time, clip.source)
        rig.clip_in_preset = own


def _frame_at(clip, time: float) -> int:
    return int(np.clip(round(time / clip.frame_time), 0, clip.n_frames - 1))


def fk_to_ik_frame(rig, chain: str | None = None) -> AnimatedFrame:
    """The animated frame with the shown rotations written in (see the module docstring)."""
    frame = read_animated_frame(rig)
    shown = rig.pose
    # The pose layer goes on top of what is written here: take it off the shown pose first.
    shown_rot, shown_trans = unlayered(rig.pose_layer, shown.rotations, shown.translations, rig.time, rig.skeleton, rig.root_indices())
    rot, trans = frame.rotations.copy(), frame.translations.copy()
    if chain is None:
        rot[:] = shown_rot
        anim = animated(rig).translations  # with the ground's shift of the root
        base = rig.animated_pose().translations
        for j, p in enumerate(rig.parents):
            if p < 0:
                trans[j] = shown_trans[j] - (anim[j] - base[j])
    else:
        idx = rig.plans[rig.chain(chain).name].idx[:-1]
        rot[idx] = shown_rot[idx]
    return AnimatedFrame(frame.frame, rot, trans)


def match_fk_to_ik(rig, chain: str | None = None) -> None:
    """Write the shown pose (one chain's joints, or the whole body) into the animated pose
    at the current frame, keeping follow-clip goals where they are."""
    if chain is not None:
        rig.chain(chain)  # KeyError names an unknown chain before anything changes
    kept = {ch.name: ch.target for ch in rig.chains if ch.following}
    write_animated_frame(rig, fk_to_ik_frame(rig, chain))
    for name, goal in kept.items():
        ch = rig.chain(name)
        if not np.array_equal(ch.target, goal):
            ch.target = goal


def switch_ik_fk(rig, chain: str | None = None) -> float:
    """The IK/FK switch of one chain (None: every chain): from IK (weight 0.5 or more) to FK
    (match FK to IK, then weight 0), else from FK to IK (match IK to FK, then weight 1), so
    the pose shown does not move. Returns the weight set."""
    chains = _chains(rig, chain)
    to_fk = max((ch.weight for ch in chains), default=0.0) >= 0.5
    if to_fk:
        match_fk_to_ik(rig, chain)
    else:
        match_ik_to_fk(rig, chain)
    weight = 0.0 if to_fk else 1.0
    for ch in chains:
        ch.weight = weight
    return weight
