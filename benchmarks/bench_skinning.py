"""Skinning cost per frame: rigedit's compiled kernel (core.skinning) against the same linear
blend skinning with recomputed normals written in numpy, on every frame of each character's
first animation, in the same run.

    .venv/bin/python benchmarks/bench_skinning.py [FILE.glb ...]
    (default: the shared CesiumMan and RiggedSimple, and RobotExpressive and Fox when
    /tmp/samples has them)

Both forms get the same joint frames (forward kinematics is outside the timing); the table
gives the median time per frame, the speed-up, and the largest difference between them
relative to the character's size (they sum in different orders: ~1e-16).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT = [Path("/work/shared/data/CesiumMan.glb"), Path("/work/shared/data/RiggedSimple.glb"),
           Path("/tmp/samples/RobotExpressive.glb"), Path("/tmp/samples/Fox.glb")]
ROOT = Path(__file__).resolve().parents[1]


def numpy_lbs(mesh, joint_pos, joint_rot):
    """The same skinning as core.skinning, in numpy: positions and unit normals (n, 3)."""
    bj = mesh.bind_joints
    frame = np.tile(np.eye(4)[:3], (len(bj), 1, 1))  # a bind with no joint: C alone
    has = bj >= 0
    frame[has, :, :3] = joint_rot[bj[has]]
    frame[has, :, 3] = joint_pos[bj[has]]
    mats = frame[:, :, :3] @ mesh.binds
    mats[:, :, 3] += frame[:, :, 3]
    blend = np.einsum("vk,vkab->vab", mesh.weights, mats[mesh.influences])
    pos = np.einsum("vab,vb->va", blend[:, :, :3], mesh.rest) + blend[:, :, 3]
    f = mesh.faces
    fn = np.cross(pos[f[:, 1]] - pos[f[:, 0]], pos[f[:, 2]] - pos[f[:, 0]])
    acc = np.zeros((int(mesh.weld.max()) + 1, 3))
    np.add.at(acc, mesh.weld[f].ravel(), np.repeat(fn, 3, axis=0))
    nrm = acc[mesh.weld]
    length = np.linalg.norm(nrm, axis=1, keepdims=True)
    return pos, np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)


def bench(path: Path, repeats: int) -> dict:
    from rigedit.core.skeleton import Pose
    from rigedit.core.skinning import Skinner
    from rigedit.io.gltf import read_gltf
    from rigedit.io.gltf_mesh import read_gltf_mesh

    imp = read_gltf(path, up_axis="auto")
    mesh = read_gltf_mesh(path, imp).mesh
    clip = imp.clip
    pose = imp.skeleton.rest_pose() if clip is None else Pose(clip.rotations, clip.translations)
    jp, jr = imp.skeleton.fk_matrices(pose)
    jp, jr = np.ascontiguousarray(jp.reshape(-1, len(imp.skeleton), 3)), np.ascontiguousarray(jr.reshape(-1, len(imp.skeleton), 3, 3))
    skinner = Skinner(mesh, len(imp.skeleton))
    skinner.pose(jp[0], jr[0])  # compiled (or loaded from numba's cache) before timing
    numpy_lbs(mesh, jp[0], jr[0])
    kernel, plain, worst = [], [], 0.0
    size = float(np.ptp(mesh.rest, axis=0).max())
    for _ in range(repeats):
        for f in range(len(jp)):
            t0 = time.perf_counter()
            p, n = skinner.pose(jp[f], jr[f])
            t1 = time.perf_counter()
            q, m = numpy_lbs(mesh, jp[f], jr[f])
            t2 = time.perf_counter()
            kernel.append(t1 - t0)
            plain.append(t2 - t1)
            worst = max(worst, float(np.abs(p - q).max()) / size)
    return {"file": path.stem, "vertices": len(mesh), "faces": len(mesh.faces), "binds": len(mesh.binds),
            "influences": mesh.influences.shape[1], "frames": len(jp), "kernel": 1e6 * np.median(kernel),
            "numpy": 1e6 * np.median(plain), "diff": worst}


def main() -> int:
    files = [Path(a) for a in sys.argv[1:]] or [p for p in DEFAULT if p.exists()]
    rows = [bench(p, repeats=3) for p in files]
    load = "load average %.2f %.2f %.2f" % os.getloadavg()
    print(f"\nSkinning per frame (positions and normals), median over every clip frame x3 ({load})\n")
    head = f"{'file':16} {'vertices':>8} {'faces':>6} {'binds':>5} {'infl':>4} {'frames':>6} {'kernel us':>10} {'numpy us':>9} {'speed-up':>8} {'max diff':>9}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['file']:16} {r['vertices']:8d} {r['faces']:6d} {r['binds']:5d} {r['influences']:4d} {r['frames']:6d} "
              f"{r['kernel']:10.1f} {r['numpy']:9.1f} {r['numpy'] / r['kernel']:7.1f}x {r['diff']:9.1e}")
    print("\nkernel = core.skinning.Skinner.pose (one numba kernel, one thread); numpy = the same sums as array")
    print("operations (einsum, np.add.at); max diff = largest |kernel - numpy| over the character's size.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
