"""Compile rigedit's numba kernels now, so the editor's first solve loads machine code from
numba's cache instead of compiling for about a minute: `make` runs this after installing, and
again whenever a core source changes. Kernels whose cache is current load in about a second;
the others compile (rigedit.core.jitable.fresh_cache decides which are stale). With two
cores or more, the kernels compile in three processes side by side
(`--serial`: all in this one).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def exercise() -> None:
    """Run each kernel with the argument types real use gives it (numba compiles one
    version per set of types; entry points with explicit signatures, the two-bone kernel's
    and fabrik's row and single-chain ones, compile on import): the single-chain, batch and
    limited FABRIK calls, rig solves of every bundled preset, dragged, and the two-bone,
    look-at and FK kernels."""
    exercise_fabrik()
    exercise_limited()
    exercise_rigs()
    exercise_others()


def exercise_fabrik() -> None:
    """fabrik's and fabrik_batch's unlimited entry points (fabrik_kernel)."""
    from rigedit.core.ik.fabrik import fabrik
    from rigedit.core.ik.fabrik_batch import fabrik_batch

    pts = _straight_chain()
    fabrik(pts, np.array([1.0, 1.0, 0.5]))
    fabrik(pts, (1.0, 1.0, 0.5), lengths=[1.0, 1.0, 1.0], pole=(0.0, 0.0, 1.0))
    fabrik_batch(np.stack([pts, pts]), np.array([[1.0, 1.0, 0.5], [0.5, 1.0, 1.0]]))


def exercise_limited() -> None:
    """fabrik with limits (fabrik_limited): the largest compile."""
    from rigedit.core.ik.fabrik import fabrik
    from rigedit.core.ik.limits import ConeLimit, HingeLimit

    fabrik(_straight_chain(), (1.0, 1.0, 0.5), limits={1: HingeLimit((1.0, 0.0, 0.0), 0.0, 150.0), 2: ConeLimit(30.0)})


def _straight_chain() -> np.ndarray:
    return np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])


def exercise_rigs() -> None:
    """Rig solves of every bundled preset, dragged: the rig's own entry points into every kernel."""
    import rigedit
    from rigedit.core.bake import bake
    from rigedit.core.rig import BUNDLED_PRESETS

    for path in sorted(BUNDLED_PRESETS.glob("*.json")):
        rig = rigedit.Rig.load(path)
        for step in range(3):
            for name in rig.chain_names:
                ch = rig.chain(name)
                ch.target = np.asarray(ch.target) + 0.01 * (step + 1)
            rig.solve()
        if path.stem == "humanoid":
            bake(rig)  # the same frame over frames (frame_kernel.solve_frames)


def exercise_others() -> None:
    """The two-bone, look-at and FK kernels (no FABRIK)."""
    import rigedit
    from rigedit.core.ik.look_at import clamp_to_cone, head_roll, solve_look_at
    from rigedit.core.ik.two_bone import two_bone_ik
    from rigedit.core.ik.two_bone_batch import two_bone_ik_batch
    from rigedit.core.rig_posing import unlayered
    from rigedit.core.skeleton import Pose

    rows = np.random.default_rng(0).normal(size=(8, 3))
    two_bone_ik_batch(rows, rows + 1.0, rows + 2.0, rows + 0.5, rows - 1.0)
    two_bone_ik_batch(rows, rows + 1.0, rows + 2.0, rows + 0.5)
    two_bone_ik(rows[0], rows[0] + 1.0, rows[0] + 2.0, rows[0] + 0.5, rows[0] - 1.0)
    # The look-at kernel: the rig's one-frame call runs in exercise_rigs (the look_at
    # preset); a whole clip at once (solve_look_at), and the cone and roll helpers.
    rig = rigedit.Rig.default()
    clip = np.broadcast_to(rig.skeleton.rest_pose().rotations, (4, len(rig.skeleton), 4))
    pose = Pose(clip, np.broadcast_to(rig.skeleton.rest_pose().translations, (4, len(rig.skeleton), 3)))
    solve_look_at(rig.skeleton, pose, ["Neck", "Head"], [0.4, 0.6], rows[:4] + (0.0, 1.6, 2.0), max_twist_deg=5.0)
    head_roll(rows, rows + 1.0, rows - 1.0)
    clamp_to_cone(rows, rows + 1.0, 0.5)
    # Full-body IK (issue 16): a rig frame (rig_full_body.py), reaching past the arm.
    rig = rigedit.Rig.default()
    rig.full_body = True
    rig.chain("left_arm").target = rig.world_position("LeftArm") + np.array([0.0, -0.35, 0.6])
    rig.solve()
    # The skinning kernel (issue 15): one triangle on the humanoid's first two joints.
    from rigedit.core.mesh import Mesh
    from rigedit.core.skinning import skin_mesh

    tri = Mesh(rows[:3], [[0, 1, 2]], [[0, 1]] * 3, [[0.5, 0.5]] * 3, [0, 1], np.tile(np.eye(3, 4), (2, 1, 1)),
               np.ones((3, 4)), np.zeros((3, 2)), [-1] * 3)
    skin_mesh(tri, *rig.skeleton.fk_matrices(rig.skeleton.rest_pose()))
    # The pose layer's kernels (issue 25): a keyed rotation and root offset, shown and taken off.
    rig = rigedit.Rig.default()
    rig.set_rotation("Head", (0.0, 0.0, 0.3826834323650898, 0.9238795325112867))
    rig.set_root_offset((0.0, 0.1, 0.0))
    rig.key_pose(chains=False)
    shown = rig.animated_pose()
    unlayered(rig.pose_layer, shown.rotations, shown.translations, rig.time, rig.skeleton, rig.root_indices())


# Compiled side by side, in processes of their own: limited FABRIK (fabrik_limited, ~35 s
# of CPU on its own), unlimited FABRIK (fabrik_kernel, ~24 s) and the other kernels (~25 s).
# They touch separate modules, so separate cache files, and none imports another's FABRIK
# entry module (a typed entry point compiles when its module is imported). Three parts on
# two cores end about together; two (35 s beside 49 s) did not. The rig solves then run
# here, loading them and compiling the rig's own few entry points.
PARTS = {"limited": exercise_limited, "fabrik": exercise_fabrik, "others": exercise_others}


def compile_parts() -> bool:
    """Run PARTS in parallel processes; whether all of them succeeded (when one did not, the
    caller's own exercise() compiles what is missing and shows the error, if any)."""
    procs = [subprocess.Popen([sys.executable, __file__, "--part", name]) for name in PARTS]
    return all(p.wait() == 0 for p in procs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=sorted(PARTS), help=argparse.SUPPRESS)
    ap.add_argument("--serial", action="store_true", help="compile in this one process (default: three processes, with 2+ cores)")
    args = ap.parse_args()
    if args.part:
        PARTS[args.part]()
        return
    t0 = time.perf_counter()
    parallel = not args.serial and (os.cpu_count() or 1) >= 2
    if parallel:
        compile_parts()
    exercise()
    how = " (in three processes side by side)" if parallel else ""
    print(f"rigedit's solver kernels compiled or loaded from numba's cache in {time.perf_counter() - t0:.0f} s{how}")


if __name__ == "__main__":
    main()
