"""Propose IK chains for an imported skeleton from its hierarchy and its shape.

The hips are the root-most joint where a mirrored pair of long branches leaves (left and
right legs have the same segments), the chest the next such joint on the way to the head
(pairs.py, body.py); where a limb's own bones are along its branch comes from their lengths
(limbs.py), the spine and head from the path up (torso.py), which way the figure faces and
so its sides and poles from the pose (facing.py); names only break ties (names.py). So a
CMU, Daz, Mixamo, Bandai or SFU humanoid, a glTF sample (CesiumMan, RobotExpressive) or a
quadruped (the Fox) get, on any frame of their clips:

- legs from the hips down to the foot (a dog's hind leg down to the paw), arms from the
  shoulder to the hand; two-bone with a pole in front of the knee or behind the elbow, or
  FABRIK when the limb has more joints (twist joints, a three-bone hind leg);
- a FABRIK spine from above the hips to the chest and the neck's first bone, a FABRIK
  neck/head chain above it, and FABRIK tails off the hips;
- a hand alone (hand.py: a wrist with four to six fingers pointing one way and nothing
  else below the root) gets one FABRIK chain per finger (thumb, index ... or finger_<k>), no legs or spine;
- no finger or toe chains on a body: a figure with no legs or arms gets one FABRIK chain per
  unbranched branch instead, so every import has something to drag.

`find_hips` gives the joint the legs branch from: the body handle sits there.
"""
from __future__ import annotations

from ..skeleton import Pose, Skeleton
from .figure import Figure
from .hand import find_hand
from .names import name_words
from .proposal import ChainProposal
from .propose import find_hips_index, forward_of, propose

__all__ = ["ChainProposal", "facing_of", "find_hips", "hand_alone", "name_words", "propose_chains"]


def propose_chains(skeleton: Skeleton, pose: Pose | None = None) -> list[ChainProposal]:
    """Chains for `skeleton`, with targets and poles placed for `pose` (default: the rest pose).

    In solving order: the spine and head before the limbs that hang from them.
    """
    return propose(skeleton, pose or skeleton.rest_pose())


def find_hips(skeleton: Skeleton, pose: Pose | None = None) -> str | None:
    """The joint the legs branch from (the pelvis), or None for a figure without legs."""
    j = find_hips_index(skeleton, pose or skeleton.rest_pose())
    return None if j is None else skeleton.names[j]


def facing_of(skeleton: Skeleton, pose: Pose | None = None):
    """The horizontal unit vector the figure faces in `pose` (default: the rest pose), as the
    proposer decides it for poles and sides (facing.py), or None when nothing says."""
    return forward_of(skeleton, pose or skeleton.rest_pose())


def hand_alone(skeleton: Skeleton, pose: Pose | None = None) -> bool:
    """The skeleton is a hand alone, not a body (hand.py): a wrist with four to six fingers
    pointing one way and nothing else but the joints above the wrist; so a reader can size
    the figure as a hand (about 0.19 m from wrist to fingertip), not as a person."""
    return find_hand(Figure(skeleton, pose or skeleton.rest_pose())) is not None
