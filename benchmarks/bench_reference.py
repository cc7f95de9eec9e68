"""rigedit against C and JavaScript builds of the same solvers: `.venv/bin/python benchmarks/bench_reference.py [--compile]`.

Issue 13 asks for speed measured side by side in one run against a C and a JS build of the
same FABRIK and two-bone solves. The references are in benchmarks/reference/: ik_ref.c
(built here with `gcc -O2` into a temporary directory, called through ctypes, one thread)
and ik_ref.js (run with `node`); a plain-float Python two-bone is written below. Each
solves the same seeded inputs as rigedit, and before any speed is compared the benchmark
checks that the reference's answers are rigedit's to 1e-9 m (a reference that computes
something else is no reference): a row whose answers differ says so, and the script exits 1.

Printed: one markdown table, rigedit's time beside the reference's, their ratio, the
issue's target and met/missed. Nothing is timed before a warm-up (numba's compile, V8's
JIT). Single solves, in rigedit and in every reference alike, are timed in groups of GROUP
calls, each group's median over the repeats summed over the groups (time_grouped): a group
lasts microseconds, so the pauses the shared machine puts into any longer loop stay out.
Such a timing is one round; rigedit and its references take ROUNDS rounds in turn, and each
side's best round is its figure (every round's ratio is printed below the table); the
humanoid frame against C's single solves likewise. Batches are timed as whole calls,
rigedit's and C's repeats taking turns, each side's best repeat (the median's ratio is
printed below the table). Best, not median: the machine's slow spells (see ROUNDS) only
ever add time, and they slow Python-heavy code more than C or V8's.
rigedit's batches run on all cores, the C batch on one. The machine has 2 cores shared with
other work: run it 2-3 times. Without gcc or node the rows that need them say so and are
skipped.

The cases:
- FABRIK: chains of N_JOINTS points (N_JOINTS - 1 bones of random length), straight, from a
  random root in a random direction, each with a random reachable target (direction
  uniform, distance uniform in [0, reach]), solved cold from straight: tolerance 1 mm, at
  most 10 passes. rigedit's `fabrik` is called with arc_start=False where it has that
  option (its default bends a straight start into an arc first: not plain FABRIK, so not
  the references' algorithm); a row below gives the default call's time for information.
- two-bone with a pole: random limbs, targets and poles (bench_ik's distribution).
- humanoid: the bundled humanoid, every chain's target moving each frame on its own 5 cm
  loop (bench_rig's "drag all"), against 20 C FABRIK solves as above (issue 24's goal).
- `ccd` and `fabrik` with limits (a 35-degree cone on every joint but the root) on the same
  chains, for information: no reference has them; the ratio is to JS's plain FABRIK.
- start-up: `rigedit --help` (the console script, on this checkout) as a subprocess.
- --compile: scripts/compile_kernels.py with numba's cache pointed at an empty directory.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import inspect
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import rigedit  # noqa: E402
from rigedit.core.ik import ConeLimit, ccd, fabrik, fabrik_batch, two_bone_ik, two_bone_ik_batch  # noqa: E402
from drag_loop import DragLoop  # noqa: E402 (beside this script)

REFERENCE = Path(__file__).resolve().parent / "reference"
PRESETS = ROOT / "resources" / "presets"
SEED = 13
N_JOINTS = 10
TOL_M = 1e-3
MAX_ITERATIONS = 10
AGREE_M = 1e-9  # references must give rigedit's answers to this
SINGLE_CHAINS = 200  # single-call rows: each repeat solves these one call at a time
SINGLE_LIMBS = 1000
GROUP = 10  # single solves are timed in groups of this many (time_grouped)
# Single-call rows: rigedit and its references take turns this many rounds, and each side's
# best round is its figure. This machine has slow spells of about a second in which
# Python-heavy code runs ~30% slower (the same solves in one process: per-group medians of
# 2.35 us, or 3.0-3.2 us in such a spell); one round of rigedit's (~15 ms) falling in one and
# the reference's not decided the ratio. Every round's ratio is printed too.
ROUNDS = 5
BATCH_CHAINS = 10_000
BATCH_LIMBS = 100_000
RIG_SOLVES_PER_C = 20.0  # issue 24: humanoid Rig.solve <= 20 C FABRIK N=10 cold solves


# ---- inputs (seeded; the same numbers go to rigedit and to every reference) ---------------


def unit_rows(rng, count):
    d = rng.normal(size=(count, 3))
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def straight_chains(rng, count, joints=N_JOINTS):
    """(count, joints, 3) straight chains and (count, 3) reachable targets."""
    root = rng.normal(size=(count, 3))
    axis = unit_rows(rng, count)
    bones = rng.uniform(0.05, 0.15, size=(count, joints - 1))
    along = np.concatenate((np.zeros((count, 1)), np.cumsum(bones, axis=1)), axis=1)
    points = root[:, None, :] + along[:, :, None] * axis[:, None, :]
    reach = bones.sum(axis=1)
    targets = root + unit_rows(rng, count) * (reach * rng.uniform(0.0, 1.0, count))[:, None]
    return points, targets


def limbs(rng, count):
    """root, mid, end, target, pole: each (count, 3), as bench_ik's _limb_inputs."""
    root = rng.normal(size=(count, 3))
    mid = root + rng.normal(size=(count, 3)) * 0.3
    end = mid + rng.normal(size=(count, 3)) * 0.3
    target = root + rng.normal(size=(count, 3)) * 0.4
    pole = root + rng.normal(size=(count, 3))
    return root, mid, end, target, pole


# ---- the plain-float Python two-bone (rigedit's closed form, no input checks) -------------


def py_two_bone(root, mid, end, target, pole):
    """Points are float 3-tuples; returns (mid, end, reached). See reference/ik_ref.c."""
    rx, ry, rz = root
    mx, my, mz = mid
    wx, wy, wz = mx - rx, my - ry, mz - rz
    bx, by, bz = end[0] - mx, end[1] - my, end[2] - mz
    tx, ty, tz = target[0] - rx, target[1] - ry, target[2] - rz
    a = math.sqrt(wx * wx + wy * wy + wz * wz)
    b = math.sqrt(bx * bx + by * by + bz * bz)
    d = math.sqrt(tx * tx + ty * ty + tz * tz)
    hi = a + b
    lo = a - b if a >= b else b - a
    reached = lo <= d <= hi
    if d > 0.0:
        inv = 1.0 / d
        ux, uy, uz = tx * inv, ty * inv, tz * inv
    else:
        ux, uy, uz = 1.0, 0.0, 0.0
    v = None
    if pole is not None:
        px, py, pz = pole[0] - rx, pole[1] - ry, pole[2] - rz
        pu = px * ux + py * uy + pz * uz
        qx, qy, qz = px - pu * ux, py - pu * uy, pz - pu * uz
        qn = math.sqrt(qx * qx + qy * qy + qz * qz)
        if qn > 1e-9 * math.sqrt(px * px + py * py + pz * pz):
            inv = 1.0 / qn
            v = (qx * inv, qy * inv, qz * inv)
    if v is None:
        nx, ny, nz = wy * bz - wz * by, wz * bx - wx * bz, wx * by - wy * bx
        sx, sy, sz = uy * nz - uz * ny, uz * nx - ux * nz, ux * ny - uy * nx
        sn = math.sqrt(sx * sx + sy * sy + sz * sz)
        inv = 1.0 / sn if sn > 1e-9 * a * b else 0.0  # (no fallback: random limbs are bent)
        v = (sx * inv, sy * inv, sz * inv)
    vx, vy, vz = v
    if d >= hi:
        dc, mu, mv = hi, a, 0.0
    elif d <= lo:
        dc, mv = lo, 0.0
        mu = a if a >= b else -a
    else:
        dc = d
        h = 0.5 / dc
        mu = ((a - b) * hi + dc * dc) * h
        mv = math.sqrt((hi - dc) * (dc - lo) * (hi + dc) * (dc + lo)) * h
    return (
        (rx + mu * ux + mv * vx, ry + mu * uy + mv * vy, rz + mu * uz + mv * vz),
        (rx + dc * ux, ry + dc * uy, rz + dc * uz),
        reached,
    )


# ---- references: build and run ------------------------------------------------------------


def build_c(tmp: Path):
    """The C reference as a ctypes library, or a sentence saying why not."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return None, "gcc not found: C column skipped"
    lib = tmp / "ik_ref.so"
    # -ffp-contract=off: no fused multiply-adds, so the C rounds as Python's floats do.
    cmd = [gcc, "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(lib), str(REFERENCE / "ik_ref.c"), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"gcc failed: {proc.stderr.strip()[:200]}"
    c = ctypes.CDLL(str(lib))
    dp, ip, cp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_ubyte)
    c.ik_fabrik_batch.argtypes = [ctypes.c_int, ctypes.c_int, dp, dp, ctypes.c_double, ctypes.c_int, dp, ip, dp, ctypes.c_int, dp]
    c.ik_fabrik_batch.restype = None
    c.ik_two_bone_batch.argtypes = [ctypes.c_int, dp, dp, dp, dp, dp, dp, dp, cp, ctypes.c_int, dp]
    c.ik_two_bone_batch.restype = None
    c.ik_fabrik_grouped.argtypes = [ctypes.c_int, ctypes.c_int, dp, dp, ctypes.c_double, ctypes.c_int, dp, ip, dp, ctypes.c_int, ctypes.c_int, dp]
    c.ik_fabrik_grouped.restype = None
    version = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    return c, f"gcc {version} -O2"


def _ptr(a: np.ndarray, ctype=ctypes.c_double):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


class OwnTimes(list):
    """Seconds a reference measured itself (the C batch around its own loop)."""


class CRef:
    """The C batches on fixed inputs; each call solves every row once and returns the
    seconds the C loop took (timed inside C: no ctypes call in it). The outputs stay in
    the arrays for the answer check."""

    def __init__(self, lib, points, targets, limb_rows):
        self.lib = lib
        self.pts, self.tg = np.ascontiguousarray(points), np.ascontiguousarray(targets)
        self.out = np.empty_like(self.pts)
        self.its, self.err = np.empty(len(self.pts), dtype=np.intc), np.empty(len(self.pts))
        self.limbs = [np.ascontiguousarray(a) for a in limb_rows]
        n = len(self.limbs[0])
        self.mid, self.end, self.hit = np.empty((n, 3)), np.empty((n, 3)), np.empty(n, dtype=np.uint8)
        self.ns = np.empty(1)

    def fabrik(self) -> OwnTimes:
        rows, n = self.pts.shape[0], self.pts.shape[1]
        self.lib.ik_fabrik_batch(
            rows, n, _ptr(self.pts), _ptr(self.tg), TOL_M, MAX_ITERATIONS,
            _ptr(self.out), _ptr(self.its, ctypes.c_int), _ptr(self.err), 1, _ptr(self.ns),
        )  # fmt: skip
        return OwnTimes([self.ns[0] * 1e-9])

    def fabrik_grouped(self, reps: int) -> np.ndarray:
        """Single solves in groups (time_grouped): (reps, groups) seconds."""
        rows, n = self.pts.shape[0], self.pts.shape[1]
        groups = -(-rows // GROUP)
        ns = np.empty(reps * groups)
        self.lib.ik_fabrik_grouped(
            rows, n, _ptr(self.pts), _ptr(self.tg), TOL_M, MAX_ITERATIONS,
            _ptr(self.out), _ptr(self.its, ctypes.c_int), _ptr(self.err), GROUP, reps, _ptr(ns),
        )  # fmt: skip
        return ns.reshape(reps, groups) * 1e-9

    def two_bone(self) -> OwnTimes:
        n = len(self.limbs[0])
        self.lib.ik_two_bone_batch(
            n, *(_ptr(a) for a in self.limbs), _ptr(self.mid), _ptr(self.end), _ptr(self.hit, ctypes.c_ubyte), 1, _ptr(self.ns)
        )
        return OwnTimes([self.ns[0] * 1e-9])


class JSRef:
    """ik_ref.js on fixed inputs, one node process: V8 warms up, then every row is solved
    `reps` times, one single-chain call at a time, timed in groups (time_grouped). Returns
    the (reps, groups) seconds; the answers are kept for the check."""

    def __init__(self, node, tmp: Path, name: str, inputs: dict, reps: int):
        self.node, self.name = node, name
        self.src = tmp / f"{name}.json"
        self.src.write_text(json.dumps({name: dict(inputs, group=GROUP, reps=reps, warmup=20)}))
        self.answer = None

    def __call__(self) -> np.ndarray:
        proc = subprocess.run([self.node, str(REFERENCE / "ik_ref.js"), str(self.src)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"node failed: {proc.stderr.strip()[:300]}")
        self.answer = json.loads(proc.stdout)[self.name]
        return np.array(self.answer["ns"]) * 1e-9


def find_node():
    node = shutil.which("node")
    if node is None:
        return None, "node not found: JS column skipped"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    return node, f"node {version}"


# ---- timing ---------------------------------------------------------------------------------


def interleaved(parts: dict, reps: int, warmup: int = 2) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds a call of each part, best and median of the repeats, the parts taking turns
    (in a rotating order) so that the load other work puts on the shared cores falls on all
    of them alike. A part that times itself (C, node) returns OwnTimes; the others are timed
    here, with the garbage collector off (as timeit has it), rigedit and the Python
    reference alike."""
    for fn in parts.values():
        for _ in range(warmup):
            fn()
    names = list(parts)
    times = {name: [] for name in names}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for r in range(reps):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                t0 = time.perf_counter_ns()
                own = parts[name]()
                dt = (time.perf_counter_ns() - t0) * 1e-9
                times[name].extend(own if isinstance(own, OwnTimes) else [dt])
    finally:
        if gc_was:
            gc.enable()
    return {name: min(v) for name, v in times.items()}, {name: statistics.median(v) for name, v in times.items()}


def plain_fabrik_options(fn) -> dict:
    """Keyword arguments that make rigedit's fabrik plain FABRIK (the references' algorithm)."""
    return {"arc_start": False} if "arc_start" in inspect.signature(fn).parameters else {}


def time_grouped(solve, calls: list, reps: int, warmup: int = 1) -> np.ndarray:
    """solve(*args) for every args in `calls`, reps times, timed in groups of GROUP calls:
    (reps, groups) seconds. A group lasts microseconds, far below a scheduler time slice,
    so a group's median over repeats leaves out the repeats where other work took the core
    (a whole loop over the rows would nearly always contain such a pause on this machine).
    The references are timed the same way (ik_ref.c, ik_ref.js); the garbage collector is
    off (as timeit has it)."""
    groups = [calls[g : g + GROUP] for g in range(0, len(calls), GROUP)]
    out = np.empty((reps, len(groups)))
    for _ in range(warmup):
        for args in calls:
            solve(*args)
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for r in range(reps):
            for g, group in enumerate(groups):
                t0 = time.perf_counter_ns()
                for args in group:
                    solve(*args)
                out[r, g] = time.perf_counter_ns() - t0
    finally:
        if gc_was:
            gc.enable()
    return out * 1e-9


def best_of_rounds(parts: dict, rounds: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Each part() times one round (seconds a solve); the parts take turns, in a rotating
    order, `rounds` times. Returns each part's best round and all its rounds in order."""
    names = list(parts)
    seen = {name: [None] * rounds for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            seen[name][r] = parts[name]()
    return {name: min(v) for name, v in seen.items()}, seen


def round_ratios(label: str, ours: list[float], theirs: list[float]) -> str:
    return f"{label}, each round: " + ", ".join(f"{a / b:.2f}x" for a, b in zip(ours, theirs))


def per_solve(times: np.ndarray, rows: int) -> float:
    """Seconds a solve from time_grouped's (reps, groups): each group's median, summed, per row."""
    return float(np.median(times, axis=0).sum()) / rows


# ---- the table --------------------------------------------------------------------------------


@dataclass
class Row:
    case: str
    rigedit: str
    reference: str
    ratio: float | None  # rigedit / reference (or the value itself for absolute targets)
    target: str
    limit: float | None  # the ratio's ceiling; None: for information
    agree: str = ""  # what the answer check found ("" when there is nothing to check)
    bad: bool = False  # the reference's answers differ: the row compares nothing

    def verdict(self) -> str:
        if self.bad:
            return "INVALID: answers differ"
        if self.limit is None:
            return "-"
        if self.ratio is None:
            return "skipped"
        return "met" if self.ratio <= self.limit else "missed"


def agreement(label: str, ours, theirs, rows: int) -> tuple[str, bool]:
    diff = float(np.max(np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)))) if rows else 0.0
    ok = diff <= AGREE_M
    return f"{label}: max |difference| {diff:.1e} m over {rows} rows ({'same answers' if ok else 'DIFFERENT answers'})", not ok


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} us"


def ns(seconds: float) -> str:
    return f"{seconds * 1e9:.1f} ns"


def fabrik_rows(points, targets, c: CRef | None, c_why, node, js_why, tmp, quick) -> list[Row]:
    """The FABRIK rows. The single-call rows solve the first SINGLE_CHAINS of the batch's chains."""
    rows = []
    k = SINGLE_CHAINS
    plain = plain_fabrik_options(fabrik)
    plain_batch = plain_fabrik_options(fabrik_batch)
    single = [(points[i], targets[i]) for i in range(k)]
    reps = 5 if quick else 21

    # arc_start as a plain keyword, as a caller writes it: unpacking **plain cost ~0.3 us a
    # call here (a tenth of the solve), which is the harness's time, not rigedit's.
    if plain:

        def plain_solve(p, t):
            return fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, arc_start=False)

    else:

        def plain_solve(p, t):
            return fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS)

    def default_solve(p, t):
        return fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS)

    # The other single-chain calls on the same chains, for information (no reference builds
    # them): CCD, and FABRIK with a 35-degree cone on every joint but the root (bench_fabrik's).
    cones = {j: ConeLimit(35.0) for j in range(1, N_JOINTS - 1)}

    def ccd_solve(p, t):
        return ccd(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS)

    def limited_solve(p, t):
        return fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, limits=cones)

    ours = np.array([plain_solve(p, t).points for p, t in single])
    parts = {"plain": lambda: per_solve(time_grouped(plain_solve, single, reps), k)}
    if plain:
        parts["default"] = lambda: per_solve(time_grouped(default_solve, single, reps), k)
    parts["ccd"] = lambda: per_solve(time_grouped(ccd_solve, single, reps), k)
    parts["limited"] = lambda: per_solve(time_grouped(limited_solve, single, reps), k)
    js = None
    if node is not None:
        flat = {"rows": k, "joints": N_JOINTS, "tolerance": TOL_M, "max_iterations": MAX_ITERATIONS,
                "points": points[:k].ravel().tolist(), "targets": targets[:k].ravel().tolist()}  # fmt: skip
        js = JSRef(node, tmp, "fabrik", flat, reps)
        parts["JS"] = lambda: per_solve(js(), k)
    t, seen = best_of_rounds(parts, 2 if quick else ROUNDS)

    case = "`fabrik` N=10 cold from straight, per solve"
    if js is None:
        rows.append(Row(case, us(t["plain"]), js_why, None, "<= 2x JS", 2.0))
    else:
        text, bad = agreement("fabrik vs JS", ours, np.array(js.answer["points"]).reshape(ours.shape), k)
        text += "; " + round_ratios("`fabrik` vs JS", seen["plain"], seen["JS"])
        rows.append(Row(case, us(t["plain"]), f"JS plain FABRIK {us(t['JS'])}", t["plain"] / t["JS"], "<= 2x JS", 2.0, text, bad))
    if plain:  # the default call bends a straight start first: another algorithm, shown for information
        ref = f"{us(t['JS'])} (JS)" if js is not None else "-"
        ratio = t["default"] / t["JS"] if js is not None else None
        rows.append(Row("`fabrik` default (arc start), same chains, per solve", us(t["default"]), ref, ratio, "(information)", None))
    ref = f"{us(t['JS'])} (JS)" if js is not None else "-"
    for name, case in (("ccd", "`ccd`, same chains, per solve"), ("limited", "`fabrik` with 35-degree cones, same chains, per solve")):
        ratio = t[name] / t["JS"] if js is not None else None
        rows.append(Row(case, us(t[name]), ref, ratio, "(information)", None))

    def batch():
        return fabrik_batch(points, targets, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain_batch)

    fabrik_batch(points[:64], targets[:64], tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain_batch)  # compile / warm
    ours_batch = batch()
    parts = {"rigedit": batch}
    if c is not None:
        parts["C"] = c.fabrik
    best, median = interleaved(parts, 3 if quick else 11, 1)
    t = {name: v / len(points) for name, v in best.items()}
    case = f"`fabrik_batch` {len(points):,} chains N=10 cold, per chain"
    if c is None:
        rows.append(Row(case, us(t["rigedit"]), c_why, None, "<= 1x C", 1.0))
        return rows
    text, bad = agreement("fabrik_batch vs C", ours_batch.points, c.out, len(points))
    text2, bad2 = agreement("fabrik (single) vs C", ours, c.out[:k], k)
    text2 += f"; `fabrik_batch` vs C, median of the repeats: {median['rigedit'] / median['C']:.2f}x"
    rows.append(Row(case, us(t["rigedit"]), f"C, 1 thread {us(t['C'])}", t["rigedit"] / t["C"], "<= 1x C", 1.0, f"{text}; {text2}", bad or bad2))
    # C single solves, timed in groups as rigedit's and JS's: the humanoid row's yardstick.
    c.fabrik_grouped(1)
    text, bad = agreement("C single solves vs fabrik_batch", c.out, ours_batch.points, len(points))
    rows.append(Row("C FABRIK N=10 cold, single solves in groups: same answers", "-", "-", None, "(information)", None, text, bad))
    return rows


def two_bone_rows(limb_rows, c: CRef | None, c_why, node, tmp, quick) -> list[Row]:
    """The two-bone rows; the single-call rows solve the first SINGLE_LIMBS of the batch's limbs."""
    rows = []
    R, M, E, T, P = limb_rows
    k = SINGLE_LIMBS
    arrays = [(R[i].copy(), M[i].copy(), E[i].copy(), T[i].copy(), P[i].copy()) for i in range(k)]
    tuples = [tuple(tuple(v.tolist()) for v in limb) for limb in arrays]

    reps = 7 if quick else 31
    ours = [two_bone_ik(*limb) for limb in arrays]
    theirs = [py_two_bone(*limb) for limb in tuples]
    parts = {
        "rigedit": lambda: per_solve(time_grouped(two_bone_ik, arrays, reps), k),
        "Python": lambda: per_solve(time_grouped(py_two_bone, tuples, reps), k),
        # A script's points are as often tuples: converted before the kernel (two_bone.py).
        "tuples": lambda: per_solve(time_grouped(two_bone_ik, tuples, reps), k),
    }
    js = None
    if node is not None:
        flat = {"rows": k, **{name: a[:k].ravel().tolist() for name, a in zip(("root", "mid", "end", "target", "pole"), limb_rows)}}
        js = JSRef(node, tmp, "two_bone", flat, reps)
        parts["JS"] = lambda: per_solve(js(), k)
    t, seen = best_of_rounds(parts, 2 if quick else ROUNDS)

    ours_me = np.array([np.concatenate((o.mid, o.end)) for o in ours])
    text, bad = agreement("two_bone_ik vs Python", ours_me, [np.concatenate(x[:2]) for x in theirs], k)
    text += "; " + round_ratios("`two_bone_ik` vs Python", seen["rigedit"], seen["Python"])
    bad = bad or any(bool(o.reached) != x[2] for o, x in zip(ours, theirs))
    case = "`two_bone_ik` with a pole, per solve"
    rows.append(Row(case, us(t["rigedit"]), f"plain-float Python {us(t['Python'])}", t["rigedit"] / t["Python"], "<= 1x Python", 1.0, text, bad))
    rows.append(Row(f"{case}, given tuples", us(t["tuples"]), f"plain-float Python {us(t['Python'])}",
                    t["tuples"] / t["Python"], "(information)", None, "the same points as float tuples", False))
    if js is not None:
        theirs_me = np.concatenate((np.array(js.answer["mid"]).reshape(k, 3), np.array(js.answer["end"]).reshape(k, 3)), axis=1)
        text, bad = agreement("two_bone_ik vs JS", ours_me, theirs_me, k)
        rows.append(Row(f"{case} (against JS)", us(t["rigedit"]), f"JS {us(t['JS'])}", t["rigedit"] / t["JS"], "(information)", None, text, bad))

    two_bone_ik_batch(R[:64], M[:64], E[:64], T[:64], P[:64])  # compile / warm
    ours_batch = two_bone_ik_batch(R, M, E, T, P)
    parts = {"rigedit": lambda: two_bone_ik_batch(R, M, E, T, P)}
    if c is not None:
        parts["C"] = c.two_bone
    best, median = interleaved(parts, 5 if quick else 21)
    t = {name: v / len(R) for name, v in best.items()}
    case = f"`two_bone_ik_batch` {len(R):,} limbs with poles, per limb"
    if c is None:
        rows.append(Row(case, ns(t["rigedit"]), c_why, None, "<= 1.2x C", 1.2))
        return rows
    text, bad = agreement("two_bone_ik_batch vs C", np.concatenate((ours_batch.mid, ours_batch.end), axis=1), np.concatenate((c.mid, c.end), axis=1), len(R))
    bad = bad or bool(np.any(ours_batch.reached != c.hit.astype(bool)))
    text += f"; `two_bone_ik_batch` vs C, median of the repeats: {median['rigedit'] / median['C']:.2f}x"
    rows.append(Row(case, ns(t["rigedit"]), f"C, 1 thread {ns(t['C'])}", t["rigedit"] / t["C"], "<= 1.2x C", 1.2, text, bad))
    return rows


def humanoid_round(frames: int):
    """A round of the humanoid row: the median Rig.solve per frame over the next `frames`
    frames, every chain's target moving (as bench_rig's "drag all": a 5 cm loop a full turn
    every 120 frames, around a point 4 cm from the chain's tip toward its root), through
    the public API only. Returns the callable that times one round."""
    rig = rigedit.Rig.load(PRESETS / "humanoid.json")
    loop = DragLoop(rig)
    frame = 0
    for frame in range(20):  # warm-up
        loop.move(frame)
        rig.solve()

    def one_round() -> float:
        nonlocal frame
        times = []
        for _ in range(frames):
            frame += 1
            loop.move(frame)
            t0 = time.perf_counter_ns()
            rig.solve()
            times.append(time.perf_counter_ns() - t0)
        return statistics.median(times) * 1e-9

    return one_round


def humanoid_row(c: CRef | None, c_why: str, frames: int, quick: bool) -> Row:
    """The humanoid frame against C FABRIK single solves, in rounds taken in turn."""
    rounds = 2 if quick else ROUNDS
    parts = {"rigedit": humanoid_round(max(1, (120 if quick else frames) // rounds))}
    if c is not None:
        parts["C"] = lambda: per_solve(c.fabrik_grouped(5 if quick else 21), BATCH_CHAINS)
    t, seen = best_of_rounds(parts, rounds)
    case = "humanoid `Rig.solve`, every target moving, per frame"
    if c is None:
        return Row(case, us(t["rigedit"]), c_why, None, "<= 20x C FABRIK", RIG_SOLVES_PER_C)
    text = round_ratios("humanoid frame in C FABRIK solves", seen["rigedit"], seen["C"])
    return Row(case, us(t["rigedit"]), f"C FABRIK N=10 cold {us(t['C'])}", t["rigedit"] / t["C"], "<= 20x C FABRIK", RIG_SOLVES_PER_C, text)


def startup_seconds(runs: int) -> tuple[float, str]:
    """Median wall time of `rigedit --help` on this checkout (the console script beside this
    Python, with the checkout first on PYTHONPATH; `python -m rigedit` without one)."""
    script = Path(sys.executable).with_name("rigedit")
    cmd = [str(script), "--help"] if script.exists() else [sys.executable, "-m", "rigedit", "--help"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    times = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
        t1 = time.perf_counter()
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[:200]}")
        if i:  # the first run fills the disk cache
            times.append(t1 - t0)
    return statistics.median(times), " ".join(["rigedit" if script.exists() else "python -m rigedit", "--help"])


def compile_seconds() -> float:
    """scripts/compile_kernels.py with numba's cache in an empty directory: every kernel compiles."""
    with tempfile.TemporaryDirectory(prefix="rigedit-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "compile_kernels.py")], capture_output=True, text=True, env=env, cwd=ROOT)
        elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"compile_kernels.py failed: {proc.stderr.strip()[-300:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compile", action="store_true", help="also time the kernels' compile from an empty numba cache (slow)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run, not a measurement)")
    ap.add_argument("--frames", type=int, default=600, help="humanoid frames (default 600)")
    args = ap.parse_args()

    points, targets = straight_chains(np.random.default_rng(SEED), BATCH_CHAINS)
    limb_rows = limbs(np.random.default_rng(SEED + 1), BATCH_LIMBS)
    with tempfile.TemporaryDirectory(prefix="rigedit-bench-ref-") as tmp:
        tmp = Path(tmp)
        lib, c_why = build_c(tmp)
        c = None if lib is None else CRef(lib, points, targets, limb_rows)
        node, js_why = find_node()
        rows = fabrik_rows(points, targets, c, c_why, node, js_why, tmp, args.quick)
        rows += two_bone_rows(limb_rows, c, c_why, node, tmp, args.quick)
        rows.append(humanoid_row(c, c_why, args.frames, args.quick))

    start_s, what = startup_seconds(3 if args.quick else 9)
    rows.append(Row(f"`{what}` start-up", f"{start_s:.3f} s", "-", start_s, "<= 0.3 s", 0.3))
    if args.compile:
        compile_s = compile_seconds()
        rows.append(Row("kernel compile, empty numba cache (`scripts/compile_kernels.py`)", f"{compile_s:.1f} s", "-", compile_s, "<= 60 s", 60.0))

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"rigedit against reference builds ({platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average {load}; {c_why}; {js_why}):")  # fmt: skip
    print()
    print("| case | rigedit | reference | ratio | target | verdict |")
    print("|---|---:|---:|---:|---|---|")
    for r in rows:
        if r.ratio is None or r.target.endswith(" s"):  # absolute targets: the value is in the rigedit column
            ratio = "-"
        else:
            ratio = f"{r.ratio:.2f}x"
        print(f"| {r.case} | {r.rigedit} | {r.reference} | {ratio} | {r.target} | {r.verdict()} |")
    print()
    print(f"Answers checked (to {AGREE_M:g} m), and the single-call rows' rounds (best of {ROUNDS} is the figure above):")
    for r in rows:
        if r.agree:
            print(f"- {r.agree}")
    return 1 if any(r.bad for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
