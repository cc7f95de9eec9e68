"""Blender's importers on rigedit's exports: every shared file and skeleton-family layout (as
the export tests take them, tests/io/export_checks.py) exported to .bvh and .glb, imported by
Blender (the `bpy` wheel, in a Python of its own: scripts/blender_read.py), every joint's world
position compared with rigedit's at random frames. Prints one row per file and format: the
worst distance as a fraction of the figure's size (the tests hold three.js, pygltflib and
usd-core to 1e-5).

    PYTHONPATH=. python scripts/blender_readers.py --bpy-python /path/to/venv-with-bpy/bin/python [--keep DIR]

The `bpy` wheel (hundreds of MB, Python 3.11 for Blender 4.1 to 5.0) is not a test dependency:
`python3.11 -m venv V && V/bin/pip install bpy` makes one.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pygltflib

from tests.io.export_checks import LAYOUTS, SEED, SHARED, Exports, bvh_name_map

HERE = Path(__file__).parent
FRAMES = 5


def frames_of(n: int, rng) -> list[int]:
    if FRAMES == 0:
        return list(range(n))
    picked = rng.choice(n - 1, size=min(FRAMES - 1, n - 1), replace=False) if n > 1 else []
    return sorted(int(f) for f in picked) + [n - 1]


def to_file_axes(blender: np.ndarray) -> np.ndarray:
    """Blender's world (Z up) back to the files' Y up: both importers turn +Y up into +Z up
    and +Z forward into -Y."""
    return np.stack([blender[..., 0], blender[..., 2], -blender[..., 1]], axis=-1)


def jobs_for(exports: Exports, name: str, rng) -> list[tuple[dict, np.ndarray, float]]:
    """(job, rigedit's positions (frames, names, 3) in the file's frame and units, size) for
    the .bvh and .glb exports of `name`."""
    result = exports.result(name)
    frames = frames_of(result.clip.n_frames, rng)
    bvh = exports.file(name, ".bvh")
    written = bvh_name_map(bvh)
    want, size = result.in_bvh_units([written[w] for w in written])
    out = [({"kind": "bvh", "file": str(bvh), "frames": frames, "names": list(written)}, want[frames], size)]
    glb = exports.file(name, ".glb")
    nodes = pygltflib.GLTF2().load(str(glb)).nodes
    times = [f * result.clip.frame_time for f in frames]
    job = {"kind": "gltf", "file": str(glb), "animation": result.animation_name, "frames": frames, "times": times,
           "names": [nodes[n].name or f"Node_{n}" for n in result.nodes]}  # the importer's name for an unnamed node
    out.append((job, result.in_gltf_frame()[frames], result.size))
    return out


def main() -> int:
    global FRAMES
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bpy-python", required=True, help="a Python with the bpy wheel installed")
    p.add_argument("--keep", metavar="DIR", help="write the exports here (default: a temporary folder)")
    p.add_argument("--frames", type=int, default=FRAMES, help=f"random frames per file, the last among them (0: every frame; default {FRAMES})")
    p.add_argument("--only", nargs="*", help="these files only (names as in the table)")
    args = p.parse_args()
    FRAMES = args.frames
    folder = Path(args.keep or tempfile.mkdtemp(prefix="rigedit-blender-"))
    folder.mkdir(parents=True, exist_ok=True)
    exports, rng = Exports(folder), np.random.default_rng(SEED)
    names = [n for n in SHARED + LAYOUTS if not args.only or n in args.only]
    cases = [(name, *case) for name in names for case in jobs_for(exports, name, rng)]
    (folder / "jobs.json").write_text(json.dumps([job for _, job, _, _ in cases]))
    done = subprocess.run([args.bpy_python, str(HERE / "blender_read.py"), str(folder / "jobs.json"), str(folder / "seen.json")],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr[-3000:], file=sys.stderr)
        return 1
    seen = json.loads((folder / "seen.json").read_text())
    at = "every frame" if FRAMES == 0 else f"{FRAMES} random frames"
    print(f"Blender's importers (bpy) on rigedit's exports, seed {SEED}: worst joint distance / figure size at {at}")
    print(f"{'file':45} {'format':6} {'joints':>6} {'missing':>7} {'worst':>9}")
    worst_all = 0.0
    for (name, job, want, size), got in zip(cases, seen):
        fmt = Path(job["file"]).suffix
        if "error" in got:
            print(f"{name:45} {fmt:6} {'':>6} {'':>7} error: {got['error'].strip().splitlines()[-1]}")
            continue
        found = [k for k, p in enumerate(got["positions"][0]) if p is not None]
        pos = to_file_axes(np.array([[row[k] for k in found] for row in got["positions"]], dtype=np.float64))
        err = float(np.abs(pos - want[:, found]).max() / size) if found else float("nan")
        worst_all = max(worst_all, err)
        print(f"{name:45} {fmt:6} {len(job['names']):>6} {len(job['names']) - len(found):>7} {err:>9.2e}")
    print(f"worst over all: {worst_all:.2e} of the figure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
