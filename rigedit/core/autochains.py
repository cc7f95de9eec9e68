"""Propose IK chains for an imported skeleton from its joint names and shape.

Names are split into lower-case words ("mixamorig:LeftUpLeg" -> left up leg, "lShldr" -> l
shldr, "Hand_L" -> hand l, "leg_joint_R_1" -> leg joint r 1), which covers the common schemes:
CMU / MotionBuilder (LeftUpLeg, LeftLeg, LeftFoot; LeftArm, LeftForeArm, LeftHand), Daz /
Poser (lThigh, lShin, lFoot; lShldr, lForeArm, lHand), Mixamo (the same behind a
`mixamorig:` prefix), Bandai Namco (UpperLeg_L, Foot_L, Hand_L), Unreal (thigh_l, hand_l) and
the glTF samples (CesiumMan's leg_joint_R_1..3 and Skeleton_arm_joint_R..__3_).

- Limbs: find the hand or foot by name (or, failing that, the third joint down a side's
  "arm"/"leg" group) and walk up two bones. Twist/roll joints and zero-length bones are not
  counted as bones; a limb with such joints in it becomes a FABRIK chain, a clean one two-bone.
- Poles sit one limb length in front of the knee and behind the elbow, along the skeleton's
  facing direction (left-to-right across the limb roots, crossed with up).
- Spine: FABRIK from the joint above the hips (where the legs branch) to the neck (or the
  chest, where the arms branch, when the neck bone has no length).
- Four legs: when the "arms" reach down to the feet's level, they are front legs.
- Tails get a FABRIK chain; a skeleton with nothing recognisable gets one FABRIK chain per
  unbranched branch, so every import has something to drag.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .ik import registry
from .skeleton import Pose, Skeleton

SIDE_WORDS = {"left": "left", "l": "left", "right": "right", "r": "right"}
# Words that say nothing about what a joint is.
NOISE = {"joint", "jnt", "bone", "skeleton", "bip", "def", "mixamorig", "bind", "jt", "b", "c", "sk", "ik", "fk"}
HAND_WORDS = {"hand", "wrist"}
FOOT_WORDS = {"foot", "ankle", "paw", "hoof"}
FRONT_WORDS = {"front", "fore"}
HIND_WORDS = {"hind", "back", "rear"}
TWIST_WORDS = {"twist", "roll"}
# A joint is a quadruped's front foot when the "hand" is within this fraction of the
# figure's size from the feet's height; a person's hands hang at least a third of their
# height above the floor, a dog's front paws stand on it.
QUADRUPED_HAND_HEIGHT = 0.15
# Bones shorter than this fraction of the skeleton's size are treated as zero-length joints.
ZERO_BONE = 1e-6


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


def name_words(name: str) -> list[str]:
    """Lower-case words of a joint name: namespaces dropped, camelCase and separators split."""
    name = name.rsplit(":", 1)[-1]
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return [p.lower() for p in parts]


@dataclass
class _Joint:
    side: str | None
    core: frozenset[str]  # the words that say what the joint is


def _describe(name: str) -> _Joint:
    words = name_words(name)
    side = next((SIDE_WORDS[w] for w in words if w in SIDE_WORDS), None)
    core = frozenset(w for w in words if w not in SIDE_WORDS and w not in NOISE and not w.isdigit())
    return _Joint(side, core)


def propose_chains(skeleton: Skeleton, pose: Pose | None = None) -> list[ChainProposal]:
    """Chains for `skeleton`, with targets and poles placed for `pose` (default: the rest pose).

    In solving order: the spine before the limbs that hang from it.
    """
    return _Finder(skeleton, pose or skeleton.rest_pose()).run()


class _Finder:
    def __init__(self, skeleton: Skeleton, pose: Pose) -> None:
        self.sk = skeleton
        self.pos = skeleton.fk_matrices(pose)[0]
        self.desc = [_describe(n) for n in skeleton.names]
        self.parents = [int(p) for p in skeleton.parents]
        self.size = float(np.ptp(self.pos, axis=0).max()) if len(self.pos) > 1 else 1.0
        lengths = np.linalg.norm(self.pos - self.pos[np.maximum(skeleton.parents, 0)], axis=1)
        self.bone_len = np.where(np.array(self.parents) >= 0, lengths, 0.0)

    # --- limbs ---------------------------------------------------------------------------

    def run(self) -> list[ChainProposal]:
        limbs = {}  # (kind, side) -> joint indices root..tip
        for kind, words in (("arm", HAND_WORDS), ("leg", FOOT_WORDS)):
            for side in ("left", "right"):
                chain = self._limb(kind, words, side)
                if chain is not None:
                    limbs[(kind, side)] = chain
        up, forward = self._frame(limbs)
        quadruped = self._is_quadruped(limbs, up)
        # The spine first: a rig solves chains in order, and the limbs hang off the spine.
        out: list[ChainProposal] = []
        spine = self._spine(limbs)
        if spine is not None:
            out.append(self._proposal("spine", registry.general().name, spine, None, "from above the hips to the neck or chest"))
        for (kind, side), chain in limbs.items():
            if quadruped:
                name = f"{'front' if kind == 'arm' else 'hind'}_{side}_leg"
            else:
                name = f"{side}_{kind}"
            out.append(self._limb_proposal(name, kind, chain, forward))
        out.extend(self._tails())
        if not out:
            out.extend(self._branches())
        return out

    def _limb(self, kind: str, effector_words: set[str], side: str) -> list[int] | None:
        effectors = [
            j for j, d in enumerate(self.desc)
            if d.side == side and (d.core - FRONT_WORDS - HIND_WORDS) in ({w} for w in effector_words)
            and not (kind == "arm" and d.core & HIND_WORDS)
        ]
        if kind == "leg":  # a quadruped's front feet are its "arms"
            front = [j for j in effectors if self.desc[j].core & FRONT_WORDS]
            effectors = [j for j in effectors if j not in front]
        effectors = [j for j in effectors if self._depth(j) >= 2]
        if not effectors:
            if kind == "arm":
                front = [
                    j for j, d in enumerate(self.desc)
                    if d.side == side and d.core & FRONT_WORDS and (d.core - FRONT_WORDS) & FOOT_WORDS
                ]
                if front:
                    return self._walk_up(min(front, key=self._depth))
            return self._group_limb(kind, side)
        return self._walk_up(min(effectors, key=self._depth))

    def _group_limb(self, kind: str, side: str) -> list[int] | None:
        """Joints of one side named after the limb ("leg_joint_R_1", "_2", "_3"): the third from the top."""
        group = [j for j, d in enumerate(self.desc) if d.side == side and kind in d.core]
        if not group:
            return None
        top = min(group, key=self._depth)
        chain = [top]
        while len(chain) < 3:
            kids = [c for c in self.sk.children(chain[-1]) if c in group]
            if not kids:
                return None
            chain.append(kids[0])
        return chain

    def _walk_up(self, effector: int) -> list[int] | None:
        chain, bones, j = [effector], 0, effector
        while bones < 2:
            p = self.parents[j]
            if p < 0:
                return None
            chain.insert(0, p)
            if self.bone_len[j] > ZERO_BONE * self.size and not (self.desc[p].core & TWIST_WORDS):
                bones += 1
            j = p
        return chain

    def _depth(self, j: int) -> int:
        d = 0
        while self.parents[j] >= 0:
            j, d = self.parents[j], d + 1
        return d

    def _limb_proposal(self, name: str, kind: str, chain: list[int], forward: np.ndarray | None) -> ChainProposal:
        root, tip = chain[0], chain[-1]
        mid = chain[len(chain) // 2] if len(chain) != 3 else chain[1]
        length = float(np.linalg.norm(self.pos[mid] - self.pos[root]) + np.linalg.norm(self.pos[tip] - self.pos[mid]))
        if forward is not None:
            # Knees bend forward, elbows backward (a quadruped's front "elbow" too).
            direction = forward if kind == "leg" else -forward
        else:
            bend = self.pos[mid] - 0.5 * (self.pos[root] + self.pos[tip])
            n = np.linalg.norm(bend)
            direction = bend / n if n > ZERO_BONE * self.size else None
        pole = None if direction is None else self.pos[mid] + direction * length
        solver = registry.reaching_for(len(chain)).name
        names = "/".join(self.sk.names[j] for j in chain)
        return self._proposal(name, solver, chain, pole, f"{kind} {names}")

    def _proposal(self, name, solver, chain, pole, reason) -> ChainProposal:
        return ChainProposal(name, solver, tuple(self.sk.names[j] for j in chain), self.pos[chain[-1]].copy(), pole, reason)

    # --- body frame ----------------------------------------------------------------------

    def _frame(self, limbs) -> tuple[np.ndarray, np.ndarray | None]:
        """Up (from the feet to the hips, else +Y) and forward (left x up), in the reference pose."""
        feet = [c[-1] for (k, _), c in limbs.items() if k == "leg"]
        roots = [c[0] for (k, _), c in limbs.items() if k == "leg"]
        up = np.array([0.0, 1.0, 0.0])
        if feet and roots:
            hips = self._lca(roots) if len(roots) > 1 else self.parents[roots[0]]
            v = self.pos[max(hips, 0)] - self.pos[feet].mean(axis=0)
            if np.linalg.norm(v) > ZERO_BONE * self.size:
                up = v / np.linalg.norm(v)
        left = [c[0] for (_, s), c in limbs.items() if s == "left"]
        right = [c[0] for (_, s), c in limbs.items() if s == "right"]
        if not left or not right:
            return up, None
        across = self.pos[left].mean(axis=0) - self.pos[right].mean(axis=0)
        forward = np.cross(across, up)
        n = np.linalg.norm(forward)
        if n <= ZERO_BONE * self.size:
            return up, None
        return up, forward / n

    def _is_quadruped(self, limbs, up: np.ndarray) -> bool:
        hands = [c[-1] for (k, _), c in limbs.items() if k == "arm"]
        feet = [c[-1] for (k, _), c in limbs.items() if k == "leg"]
        if len(hands) < 2 or len(feet) < 2:
            return False
        hand_h = self.pos[hands] @ up
        foot_h = self.pos[feet] @ up
        return bool(hand_h.max() - foot_h.max() < QUADRUPED_HAND_HEIGHT * self.size)

    # --- spine, tails, fallback ----------------------------------------------------------

    def _ancestors(self, j: int) -> list[int]:
        out = [j]
        while self.parents[j] >= 0:
            j = self.parents[j]
            out.append(j)
        return out

    def _lca(self, joints: list[int]) -> int:
        common = set(self._ancestors(joints[0]))
        for j in joints[1:]:
            common &= set(self._ancestors(j))
        return max(common, key=self._depth) if common else -1

    def _spine(self, limbs) -> list[int] | None:
        legs = [c[0] for (k, _), c in limbs.items() if k == "leg"]
        arms = [c[0] for (k, _), c in limbs.items() if k == "arm"]
        if len(legs) < 2 or len(arms) < 2:
            return None
        hips, chest = self._lca(legs), self._lca(arms)
        if hips < 0 or chest < 0 or hips not in self._ancestors(chest) or hips == chest:
            return None
        path = list(reversed(self._ancestors(chest)))
        path = path[path.index(hips) + 1:]  # from the joint above the hips up to the chest
        neck = self._neck(chest, arms)
        if neck is not None and self.bone_len[neck] > ZERO_BONE * self.size:
            path.append(neck)
        if len(path) < 2:
            return None
        return path

    def _neck(self, chest: int, arm_roots: list[int]) -> int | None:
        arm_paths = {a for r in arm_roots for a in self._ancestors(r)}
        kids = [c for c in self.sk.children(chest) if c not in arm_paths]
        named = [c for c in kids if self._subtree_has(c, {"neck", "head"})]
        return (named or kids or [None])[0]

    def _subtree_has(self, j: int, words: set[str]) -> bool:
        stack = [j]
        while stack:
            k = stack.pop()
            if self.desc[k].core & words:
                return True
            stack.extend(self.sk.children(k))
        return False

    def _tails(self) -> list[ChainProposal]:
        tail = [j for j, d in enumerate(self.desc) if "tail" in d.core]
        if not tail:
            return []
        top = min(tail, key=self._depth)
        chain = [top]
        while True:
            kids = [c for c in self.sk.children(chain[-1]) if c in tail] or self.sk.children(chain[-1])
            if len(kids) != 1:
                break
            chain.append(kids[0])
        if len(chain) < 2 or self.parents[top] < 0:
            return []
        return [self._proposal("tail", registry.general().name, chain, None, "joints named tail")]

    def _branches(self) -> list[ChainProposal]:
        """One FABRIK chain per leaf: the unbranched run of joints that ends there.

        The run starts below the branching joint, not at it: turning a branching joint would
        swing its other branches too.
        """
        out = []
        leaves = [j for j in range(len(self.sk)) if not self.sk.children(j)]
        for leaf in leaves:
            chain = [leaf]
            j = leaf
            while self.parents[j] >= 0 and len(self.sk.children(self.parents[j])) == 1:
                j = self.parents[j]
                chain.insert(0, j)
            length = sum(self.bone_len[k] for k in chain[1:])
            if len(chain) >= 2 and length > ZERO_BONE * self.size:
                name = "chain" if len(leaves) == 1 else f"chain_{self.sk.names[leaf]}"
                out.append(self._proposal(name, registry.general().name, chain, None, "an unbranched branch (no names recognised)"))
        return out
