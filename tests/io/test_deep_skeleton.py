"""A skeleton thousands of joints deep goes through `rigedit export` to BVH and glTF and reads
back: no reader, writer or walk recurses on depth (issue 26, extreme input)."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.io.bvh import read_bvh
from rigedit.io.figure import figure_size, world_positions
from rigedit.io.loaded import load


def deep_bvh(depth: int, frames: int = 2, seed: int = 0) -> str:
    """One chain `depth` joints deep (a root and depth - 1 joints below it), small turns."""
    rng = np.random.default_rng(seed)
    lines = ["HIERARCHY"]
    for i in range(depth):
        channels = "6 Xposition Yposition Zposition" if i == 0 else "3"
        lines += [f"{'ROOT' if i == 0 else 'JOINT'} j{i}", "{", "OFFSET 0 1.5 0", f"CHANNELS {channels} Zrotation Xrotation Yrotation"]
    lines += ["End Site", "{", "OFFSET 0 1.5 0", "}"] + ["}"] * depth
    lines += ["MOTION", f"Frames: {frames}", "Frame Time: 0.0333333"]
    for _ in range(frames):
        values = np.concatenate([rng.uniform(-5, 5, 3), rng.uniform(-0.5, 0.5, 3 * depth)])
        lines.append(" ".join(f"{v:.6f}" for v in values))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("depth", [1000, 5000])
def test_a_deep_skeleton_exports_to_bvh_and_gltf_and_reads_back(depth, tmp_path, capsys):
    src = tmp_path / "deep.bvh"
    src.write_text(deep_bvh(depth))
    first = read_bvh(src)
    assert len(first.skeleton) == depth + 1  # the End Site too
    want = world_positions(first.skeleton, first.clip)
    tol = 1e-6 * figure_size(first.skeleton, first.clip)
    for suffix in (".bvh", ".glb"):
        out = tmp_path / f"out{suffix}"
        assert main(["export", str(src), "-o", str(out), "-q"]) == 0, capsys.readouterr().err
        again = read_bvh(out, scale=first.scale) if suffix == ".bvh" else load(out)
        assert again.skeleton.names == first.skeleton.names
        np.testing.assert_allclose(world_positions(again.skeleton, again.clip), want, rtol=0, atol=tol)
    assert "Traceback" not in capsys.readouterr().err


def test_chains_are_proposed_on_a_deep_skeleton_with_branches():
    """Thousands of joints above a pelvis with only legs below it, the torso leaving from its
    parent (as Daz's hip / abdomen): the proposer's walk up from the hips is a loop too."""
    from rigedit.core.autochains import propose_chains
    from rigedit.core.skeleton import Skeleton

    depth = 3000
    joints = [(f"j{i}", None if i == 0 else f"j{i - 1}", (0.0, 0.001, 0.0)) for i in range(depth)]
    for side, x in (("l", 0.1), ("r", -0.1)):
        joints += [(f"{side}_thigh", f"j{depth - 1}", (x, 0.0, 0.0)), (f"{side}_shin", f"{side}_thigh", (0.0, -0.45, 0.0)),
                   (f"{side}_foot", f"{side}_shin", (0.0, -0.45, 0.0)), (f"{side}_toe", f"{side}_foot", (0.0, -0.05, 0.15))]
    joints += [("spine", f"j{depth - 2}", (0.0, 0.2, 0.0)), ("chest", "spine", (0.0, 0.3, 0.0)), ("head", "chest", (0.0, 0.3, 0.0))]
    skeleton = Skeleton.from_joints(joints)
    names = {c.name for c in propose_chains(skeleton)}
    assert {"left_leg", "right_leg"} <= names, names  # proposed, no RecursionError
