"""A BVH file holds one skeleton: the rule every command that writes BVH follows.

The grammar lets HIERARCHY hold several ROOTs, but readers disagree: three.js's BVHLoader
fails on such a file ("no keyframes in track"), many tools read the first ROOT only, Blender's
importer reads them all into one armature. A rig from a glTF with several skins that share no
joint has several roots. So a rig with several skeletons is refused for BVH with a message naming
them and the two ways out (a format that holds several, or one skeleton imported alone),
before any baking (io/formats.py's `fits`, asked by export, bake, retarget, batch and
lint --fix), and `write_bvh` itself checks again so nothing can write one.
"""
from __future__ import annotations

import os

from rigedit.core.skeleton import Skeleton

__all__ = ["one_skeleton", "roots"]

MAX_NAMED = 8  # a message names this many roots, then says how many more


def roots(skeleton: Skeleton) -> list[str]:
    """The root joints' names: one per skeleton the rig holds."""
    return [skeleton.names[i] for i, p in enumerate(skeleton.parents) if p < 0]


def one_skeleton(path: str | os.PathLike, skeleton: Skeleton) -> None:
    """ValueError naming `path` and the skeletons' roots when `skeleton` is several."""
    tops = roots(skeleton)
    if len(tops) <= 1:
        return
    named = ", ".join(repr(n) for n in tops[:MAX_NAMED])
    if len(tops) > MAX_NAMED:
        named += f" and {len(tops) - MAX_NAMED} more"
    raise ValueError(
        f"{os.fspath(path)}: a BVH file holds one skeleton and this rig has {len(tops)} (roots {named}); "
        "three.js and many other readers cannot open a BVH with several ROOT hierarchies. "
        "Write .glb, .gltf or .usd* instead (they hold several), "
        "or import one skeleton alone (rigedit import FILE --skin NAME -o ONE.json) and write that"
    )
