"""Shared by the batch tests: a folder of small clips with a broken one, reading outputs back,
and job functions for the local pool that crash a worker (module level, so workers can import them)."""
from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import numpy as np

from rigedit.batch.jobs import execute_in_worker
from rigedit.io.bvh import read_bvh

DATA = Path("/work/shared/data")
# Small files of three kinds (two BVH layouts and a skinned glTF), one in a subfolder.
GOOD = {
    "pybvh_bvh_test1.bvh": "pybvh_bvh_test1.bvh",
    "takes/walk_right.bvh": "dataset-1_walk-right_normal_001.bvh",
    "RiggedSimple.glb": "RiggedSimple.glb",
}
BROKEN = "broken.bvh"
BROKEN_TEXT = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation\n"


def clip_folder(root: Path, broken: bool = True) -> Path:
    folder = root / "clips"
    for rel, name in GOOD.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / name, folder / rel)
    if broken:
        (folder / BROKEN).write_text(BROKEN_TEXT)
    return folder


def summary(outdir: Path, kind: str) -> dict[str, dict]:
    data = json.loads((outdir / f"batch-{kind}.json").read_text())
    return {row["file"]: row for row in data["files"]}


def assert_same_bvh(a: Path, b: Path, atol: float = 1e-9) -> None:
    """Two BVH files hold the same motion: joints, frame time, and every local rotation
    (either sign of the quaternion) and translation to `atol`."""
    ia, ib = read_bvh(a), read_bvh(b)
    assert ia.skeleton.names == ib.skeleton.names
    assert abs(ia.clip.frame_time - ib.clip.frame_time) <= 1e-9
    assert ia.clip.rotations.shape == ib.clip.rotations.shape
    dots = np.abs(np.sum(ia.clip.rotations * ib.clip.rotations, axis=-1))
    assert np.all(dots >= 1.0 - atol), f"{a} and {b}: rotations differ"
    np.testing.assert_allclose(ia.clip.translations, ib.clip.translations, atol=atol)


def findings_of(report: Path) -> list[tuple]:
    """A lint report's findings without their measured details (text with computed numbers)."""
    data = json.loads(report.read_text())
    return [(f["kind"], f["chain"], f["joint"], f["frame_start"], f["frame_end"], f["severity"]) for f in data["findings"]]


def crash_on_marked(job):
    """The batch's job function, except that a file whose name has 'crash' in it kills its
    worker process outright, as a segfault in native code would."""
    if "crash" in Path(job.source).name:
        os.kill(os.getpid(), signal.SIGKILL)
    return execute_in_worker(job)


def exit_on_marked(job):
    """As crash_on_marked, but the worker leaves through os._exit, as a native library's abort
    or a job calling exit in C would: no exception, no result."""
    if "crash" in Path(job.source).name:
        os._exit(0)
    return execute_in_worker(job)


def crash_once_on_marked(job):
    """As crash_on_marked the first time a marked file is run (a marker file beside its
    output remembers it), then the job as usual: a worker killed from outside once."""
    marker = Path(job.outputs[-1] + ".killed")
    if "crash" in Path(job.source).name and not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return execute_in_worker(job)
