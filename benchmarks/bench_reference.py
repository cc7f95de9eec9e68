"""rigedit against C and JavaScript builds of the same solvers: `.venv/bin/python benchmarks/bench_reference.py [--compile]`.

Issue 13 asks for speed measured side by side in one run against a C and a JS build of the
same FABRIK and two-bone solves. The references are in benchmarks/reference/: ik_ref.c
(built here with `gcc -O2` into a temporary directory, called through ctypes, one thread)
and ik_ref.js (run with `node`); a plain-float Python two-bone is written below. Each
solves the same seeded inputs as rigedit, and before any speed is compared the benchmark
checks that the reference's answers are rigedit's to 1e-9 m (a reference that computes
something else is no reference): a row whose answers differ says so, and the script exits 1.

Printed: one markdown table, rigedit's time beside the reference's, their ratio, the
issue's target and met/missed. Times are medians of repeats after a warm-up (numba's
compile and V8's JIT are not timed); rigedit's batches run on all cores, the C batch on
one. The machine has 2 cores shared with other work: run it 2-3 times. Without gcc or node
the rows that need them say so and are skipped.

The cases:
- FABRIK: chains of N_JOINTS points (N_JOINTS - 1 bones of random length), straight, from a
  random root in a random direction, each with a random reachable target (direction
  uniform, distance uniform in [0, reach]), solved cold from straight: tolerance 1 mm, at
  most 10 passes. rigedit's `fabrik` is called with arc_start=False where it has that
  option (its default bends a straight start into an arc first: not plain FABRIK, so not
  the references' algorithm); a row below gives the default call's time for information.
- two-bone with a pole: random limbs, targets and poles (bench_ik's distribution).
- humanoid: the bundled humanoid, every chain's target moving each frame on its own 5 cm
  loop (bench_rig's "drag all"), against 45 C FABRIK solves as above.
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
from rigedit.core.ik import fabrik, fabrik_batch, two_bone_ik, two_bone_ik_batch  # noqa: E402

REFERENCE = Path(__file__).resolve().parent / "reference"
PRESETS = ROOT / "resources" / "presets"
SEED = 13
N_JOINTS = 10
TOL_M = 1e-3
MAX_ITERATIONS = 10
AGREE_M = 1e-9  # references must give rigedit's answers to this
SINGLE_CHAINS = 200  # single-call rows: each repeat solves these one call at a time
SINGLE_LIMBS = 1000
BATCH_CHAINS = 10_000
BATCH_LIMBS = 100_000
RIG_SOLVES_PER_C = 45.0  # the issue: humanoid Rig.solve <= 45 C FABRIK N=10 cold solves


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
    version = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    return c, f"gcc {version} -O2"


def _ptr(a: np.ndarray, ctype=ctypes.c_double):
    return a.ctypes.data_as(ctypes.POINTER(ctype))


def c_fabrik(c, points, targets, reps):
    """(points, iterations, errors, median ns per chain) from the C batch."""
    rows, n = points.shape[0], points.shape[1]
    pts, tg = np.ascontiguousarray(points), np.ascontiguousarray(targets)
    out, its, err, ns = np.empty_like(pts), np.empty(rows, dtype=np.intc), np.empty(rows), np.empty(reps)
    c.ik_fabrik_batch(rows, n, _ptr(pts), _ptr(tg), TOL_M, MAX_ITERATIONS, _ptr(out), _ptr(its, ctypes.c_int), _ptr(err), reps, _ptr(ns))
    return out, its, err, statistics.median(ns[1:] if reps > 1 else ns) / rows


def c_two_bone(c, root, mid, end, target, pole, reps):
    rows = root.shape[0]
    args = [np.ascontiguousarray(a) for a in (root, mid, end, target, pole)]
    out_mid, out_end, hit, ns = np.empty((rows, 3)), np.empty((rows, 3)), np.empty(rows, dtype=np.uint8), np.empty(reps)
    c.ik_two_bone_batch(rows, *(_ptr(a) for a in args), _ptr(out_mid), _ptr(out_end), _ptr(hit, ctypes.c_ubyte), reps, _ptr(ns))
    return out_mid, out_end, hit.astype(bool), statistics.median(ns[1:] if reps > 1 else ns) / rows


def run_js(tmp: Path, payload: dict):
    """node's JSON answer, or (None, why not)."""
    node = shutil.which("node")
    if node is None:
        return None, "node not found: JS column skipped"
    src = tmp / "input.json"
    src.write_text(json.dumps(payload))
    proc = subprocess.run([node, str(REFERENCE / "ik_ref.js"), str(src)], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"node failed: {proc.stderr.strip()[:200]}"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    return json.loads(proc.stdout), f"node {version}"


# ---- timing ---------------------------------------------------------------------------------


def median_time(once, reps, warmup=2) -> float:
    """Median seconds of `once()` over reps calls, after warmup calls; the garbage collector
    is off while timing (as timeit has it), for rigedit and the Python reference alike."""
    for _ in range(warmup):
        once()
    times = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            t0 = time.perf_counter_ns()
            once()
            times.append(time.perf_counter_ns() - t0)
    finally:
        if gc_was:
            gc.enable()
    return statistics.median(times) * 1e-9


def plain_fabrik_options(fn) -> dict:
    """Keyword arguments that make rigedit's fabrik plain FABRIK (the references' algorithm)."""
    return {"arc_start": False} if "arc_start" in inspect.signature(fn).parameters else {}


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
        if self.ratio is None:
            return "skipped"
        if self.limit is None:
            return "-"
        return "met" if self.ratio <= self.limit else "missed"


def agreement(label: str, ours, theirs, rows: int) -> tuple[str, bool]:
    diff = float(np.max(np.abs(np.asarray(ours, dtype=float) - np.asarray(theirs, dtype=float)))) if rows else 0.0
    ok = diff <= AGREE_M
    return f"{label}: max |difference| {diff:.1e} m over {rows} rows ({'same answers' if ok else 'DIFFERENT answers'})", not ok


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} us"


def ns(seconds: float) -> str:
    return f"{seconds * 1e9:.1f} ns"


def fabrik_rows(points, targets, c, c_why, js, js_why, quick) -> tuple[list[Row], float | None]:
    """The FABRIK rows and the C solve's seconds per chain (None without gcc). The single-call
    rows solve the first SINGLE_CHAINS of the batch's chains."""
    rows = []
    plain = plain_fabrik_options(fabrik)
    plain_batch = plain_fabrik_options(fabrik_batch)
    single_pts = [points[i] for i in range(SINGLE_CHAINS)]
    single_tg = [targets[i] for i in range(SINGLE_CHAINS)]

    def singles(**kw):
        for p, t in zip(single_pts, single_tg):
            fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **kw)

    ours = np.array([fabrik(p, t, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain).points for p, t in zip(single_pts, single_tg)])
    single_s = median_time(lambda: singles(**plain), 5 if quick else 21) / SINGLE_CHAINS

    # single fabrik against JS
    js_fab = js.get("fabrik") if js else None
    if js_fab is None:
        rows.append(Row("`fabrik` N=10 cold from straight, per solve", us(single_s), js_why, None, "<= 2x JS", 2.0))
    else:
        js_s = statistics.median(js_fab["ns_per_rep"]) * 1e-9 / SINGLE_CHAINS
        text, bad = agreement("fabrik vs JS", ours, np.array(js_fab["points"]).reshape(ours.shape), SINGLE_CHAINS)
        rows.append(Row("`fabrik` N=10 cold from straight, per solve", us(single_s), f"JS plain FABRIK {us(js_s)}", single_s / js_s, "<= 2x JS", 2.0, text, bad))
    if plain:  # the default call bends a straight start first: another algorithm, shown for information
        default_s = median_time(singles, 5 if quick else 21) / SINGLE_CHAINS
        ref = f"{us(js_s)} (JS)" if js_fab is not None else "-"
        rows.append(Row("`fabrik` default (arc start), same chains, per solve", us(default_s), ref, default_s / js_s if js_fab else None, "(information)", None))

    # fabrik_batch against single-thread C
    fabrik_batch(points[:64], targets[:64], tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain_batch)  # compile / warm
    batch = fabrik_batch(points, targets, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain_batch)
    batch_s = median_time(lambda: fabrik_batch(points, targets, tolerance=TOL_M, max_iterations=MAX_ITERATIONS, **plain_batch), 3 if quick else 11, 1) / BATCH_CHAINS
    c_chain_s = None
    if c is None:
        rows.append(Row(f"`fabrik_batch` {BATCH_CHAINS:,} chains N=10 cold, per chain", us(batch_s), c_why, None, "<= 1x C", 1.0))
    else:
        c_pts, _, _, c_ns = c_fabrik(c, points, targets, 4 if quick else 12)
        c_chain_s = c_ns * 1e-9
        text, bad = agreement("fabrik_batch vs C", batch.points, c_pts, BATCH_CHAINS)
        text2, bad2 = agreement("fabrik (single) vs C", ours, c_pts[:SINGLE_CHAINS], SINGLE_CHAINS)
        rows.append(Row(f"`fabrik_batch` {BATCH_CHAINS:,} chains N=10 cold, per chain", us(batch_s), f"C, 1 thread {us(c_chain_s)}", batch_s / c_chain_s, "<= 1x C", 1.0, text + "; " + text2, bad or bad2))
    return rows, c_chain_s


def two_bone_rows(limb_rows, c, c_why, js, js_why, quick) -> list[Row]:
    """The two-bone rows; the single-call rows solve the first SINGLE_LIMBS of the batch's limbs."""
    rows = []
    R, M, E, T, P = limb_rows
    k = SINGLE_LIMBS
    arrays = [(R[i].copy(), M[i].copy(), E[i].copy(), T[i].copy(), P[i].copy()) for i in range(k)]
    tuples = [tuple(tuple(v.tolist()) for v in limb) for limb in arrays]

    def ours_once():
        for r, m, e, t, p in arrays:
            two_bone_ik(r, m, e, t, p)

    def py_once():
        for r, m, e, t, p in tuples:
            py_two_bone(r, m, e, t, p)

    ours = [two_bone_ik(*limb) for limb in arrays]
    theirs = [py_two_bone(*limb) for limb in tuples]
    ours_s = median_time(ours_once, 7 if quick else 31) / k
    py_s = median_time(py_once, 7 if quick else 31) / k
    text, bad = agreement(
        "two_bone_ik vs Python", [np.concatenate((o.mid, o.end)) for o in ours], [np.concatenate(x[:2]) for x in theirs], k
    )
    bad = bad or any(bool(o.reached) != x[2] for o, x in zip(ours, theirs))
    rows.append(Row("`two_bone_ik` with a pole, per solve", us(ours_s), f"plain-float Python {us(py_s)}", ours_s / py_s, "<= 1x Python", 1.0, text, bad))

    js_tb = js.get("two_bone") if js else None
    if js_tb is not None:
        js_s = statistics.median(js_tb["ns_per_rep"]) * 1e-9 / k
        ours_me = np.array([np.concatenate((o.mid, o.end)) for o in ours])
        theirs_me = np.concatenate((np.array(js_tb["mid"]).reshape(k, 3), np.array(js_tb["end"]).reshape(k, 3)), axis=1)
        text, bad = agreement("two_bone_ik vs JS", ours_me, theirs_me, k)
        rows.append(Row("`two_bone_ik` with a pole, per solve", us(ours_s), f"JS {us(js_s)}", ours_s / js_s, "(information)", None, text, bad))

    two_bone_ik_batch(R[:64], M[:64], E[:64], T[:64], P[:64])  # compile / warm
    batch = two_bone_ik_batch(R, M, E, T, P)
    batch_s = median_time(lambda: two_bone_ik_batch(R, M, E, T, P), 5 if quick else 21) / BATCH_LIMBS
    case = f"`two_bone_ik_batch` {BATCH_LIMBS:,} limbs with poles, per limb"
    if c is None:
        rows.append(Row(case, ns(batch_s), c_why, None, "<= 1.2x C", 1.2))
    else:
        c_mid, c_end, c_hit, c_ns = c_two_bone(c, R, M, E, T, P, 6 if quick else 22)
        text, bad = agreement("two_bone_ik_batch vs C", np.concatenate((batch.mid, batch.end), axis=1), np.concatenate((c_mid, c_end), axis=1), BATCH_LIMBS)
        bad = bad or bool(np.any(batch.reached != c_hit))
        rows.append(Row(case, ns(batch_s), f"C, 1 thread {ns(c_ns * 1e-9)}", batch_s / (c_ns * 1e-9), "<= 1.2x C", 1.2, text, bad))
    return rows


def humanoid_frame_seconds(frames: int) -> float:
    """Median Rig.solve per frame on the humanoid with every chain's target moving (as
    bench_rig's "drag all": a 5 cm loop a full turn every 120 frames, around a point 4 cm
    from the chain's tip toward its root), through the public API only."""
    rig = rigedit.Rig.load(PRESETS / "humanoid.json")
    names = rig.chain_names
    home = {}
    for n in names:
        joints = rig.chain(n).joints
        root, tip = rig.world_position(joints[0]), rig.world_position(joints[-1])
        home[n] = tip + 0.04 * (root - tip) / np.linalg.norm(root - tip)
    phase = {n: 2.0 * math.pi * k / len(names) for k, n in enumerate(names)}
    times = []
    warmup = 20
    for f in range(frames + warmup):
        for n in names:
            p = phase[n] + 2.0 * math.pi * f / 120
            rig.chain(n).target = home[n] + 0.05 * np.array([math.cos(p), 0.5 * math.sin(2 * p), math.sin(p)])
        t0 = time.perf_counter_ns()
        rig.solve()
        if f >= warmup:
            times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) * 1e-9


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

    with tempfile.TemporaryDirectory(prefix="rigedit-bench-ref-") as tmp:
        tmp = Path(tmp)
        c, c_why = build_c(tmp)
        points, targets = straight_chains(np.random.default_rng(SEED), BATCH_CHAINS)
        limb_rows = limbs(np.random.default_rng(SEED + 1), BATCH_LIMBS)
        R, M, E, T, P = (a[:SINGLE_LIMBS] for a in limb_rows)  # what the single-call rows solve
        payload = {
            "fabrik": {
                "rows": SINGLE_CHAINS, "joints": N_JOINTS, "tolerance": TOL_M, "max_iterations": MAX_ITERATIONS,
                "points": points[:SINGLE_CHAINS].ravel().tolist(), "targets": targets[:SINGLE_CHAINS].ravel().tolist(),
                "reps": 7 if args.quick else 31, "warmup": 20,
            },
            "two_bone": {
                "rows": SINGLE_LIMBS, "root": R.ravel().tolist(), "mid": M.ravel().tolist(), "end": E.ravel().tolist(),
                "target": T.ravel().tolist(), "pole": P.ravel().tolist(), "reps": 7 if args.quick else 31, "warmup": 20,
            },
        }  # fmt: skip
        js, js_why = run_js(tmp, payload)

        fab, c_chain_s = fabrik_rows(points, targets, c, c_why, js, js_why, args.quick)
        rows = fab + two_bone_rows(limb_rows, c, c_why, js, js_why, args.quick)

    frame_s = humanoid_frame_seconds(120 if args.quick else args.frames)
    case = "humanoid `Rig.solve`, every target moving, per frame"
    if c_chain_s is None:
        rows.append(Row(case, us(frame_s), c_why, None, "<= 45x C FABRIK", RIG_SOLVES_PER_C))
    else:
        rows.append(Row(case, us(frame_s), f"C FABRIK N=10 cold {us(c_chain_s)}", frame_s / c_chain_s, "<= 45x C FABRIK", RIG_SOLVES_PER_C))

    start_s, what = startup_seconds(3 if args.quick else 9)
    rows.append(Row(f"`{what}` start-up", f"{start_s:.3f} s", "-", start_s, "<= 0.3 s", 0.3))
    if args.compile:
        compile_s = compile_seconds()
        rows.append(Row("kernel compile, empty numba cache (`scripts/compile_kernels.py`)", f"{compile_s:.1f} s", "-", compile_s, "<= 60 s", 60.0))

    print(f"rigedit against reference builds ({platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores; {c_why}; {js_why}):")  # fmt: skip
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
    print(f"Answers checked (to {AGREE_M:g} m):")
    for r in rows:
        if r.agree:
            print(f"- {r.agree}")
    return 1 if any(r.bad for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
