"""Full-body IK on the bundled humanoid (issue 16): `.venv/bin/python benchmarks/bench_full_body.py [--quick]`.

Prints two markdown tables.

Quality: hand goals at 1.15-1.35x the arm's reach from the shoulder, in front of it (within
45 degrees to either side), from level to 60 degrees below, one at a time from the rest pose:
the share reached within the chain's tolerance with both feet within 1 mm of their targets,
with full_body on and off; and hands, head and both feet moved at once to goals one pose
meets (tests/core/full_body_cases.body_goals): the share with every goal met.

Speed, against the C FABRIK N=10 cold solve of bench_reference.py (its gcc build and
grouped timing, in the same run): a warm frame (the hand goal of a 1.3x reach moving 2 mm a
frame on a loop, Rig.solve warm-started from the last frame) and a cold one (a new 1.3x goal
from the rest pose: the kernel from the animated pose); both as Rig.solve and as the kernel
call alone; and the batch form over many frames at once.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_reference import CRef, build_c, limbs, per_solve, straight_chains  # noqa: E402

from rigedit.core import rig_full_body  # noqa: E402
from tests.core.full_body_cases import FEET, TIPS, arm_reach, body_goals, humanoid, reach_goals  # noqa: E402

FOOT_EPS = 1e-3


def reach_share(base, chain: str, goals, full_body: bool) -> tuple[float, float, float]:
    """(share reached with feet within 1 mm, worst foot error, mean passes)."""
    ok, worst, passes = 0, 0.0, []
    for goal in goals:
        rig = base.copy()
        rig.full_body = full_body
        rig.chain(chain).target = goal
        rep = rig.solve()[chain]
        feet = max(float(np.linalg.norm(rig.world_position(f) - base.world_position(f))) for f in FEET)
        worst = max(worst, feet)
        ok += rep.reached and feet <= FOOT_EPS
        passes.append(rep.iterations)
    return ok / len(goals), worst, float(np.mean(passes))


def body_share(base, n: int) -> float:
    ok = 0
    for seed in range(n):
        goals = body_goals(base, np.random.default_rng(1000 + seed))
        rig = base.copy()
        rig.full_body = True
        for c, g in goals.items():
            rig.chain(c).target = g
        rig.solve()
        ok += all(np.linalg.norm(rig.world_position(TIPS[c]) - g) <= rig.chain(c).tolerance for c, g in goals.items())
    return ok / n


def kernel_call(rig):
    """The kernel call Rig.solve makes for `rig`'s current goals, as a closure over its
    prepared arrays (warm from the rig's last solve, or cold from the animated pose)."""
    from rigedit.core.rig_anim import animated

    tables = rig_full_body.tables_of(rig)
    goals, poles, has_pole, pulls, tols, clamps, softs, active, _ = rig_full_body.chain_arrays(rig, tables)
    anim = animated(rig)
    anim_rot = np.array(anim.rot)
    anim_trans = np.array(anim.translations)
    warm = getattr(rig, "_full_body_warm", None)
    warm_rot, warm_root = (anim_rot.copy(), anim_trans[0].copy()) if warm is None else (warm[0], warm[1])
    k = rig_full_body.kernel()
    lk, la, lb, lax = tables.lim
    mk, mx, mlo, mhi = tables.mid
    out_rot, out_trans = np.empty_like(anim_rot), np.empty_like(anim_trans)
    err, errors = np.empty(len(tables.names)), np.empty(rig_full_body.FULL_BODY_ITERATIONS)
    hist = np.empty((rig_full_body.FULL_BODY_ITERATIONS, len(tables.names)))

    def call():
        return k.solve_row(
            tables.parents, anim_rot, anim_trans, warm_rot, warm_root, tables.order, tables.below, tables.child,
            tables.owner, lk, la, lb, lax, tables.kinds, tables.cs, tables.cj, goals, poles, has_pole, pulls, tols,
            clamps, softs, mk, mx, mlo, mhi, active, rig_full_body.FULL_BODY_ITERATIONS, out_rot, out_trans, err, errors,
            hist,
        )  # fmt: skip

    return call


def median_time(fn, reps: int) -> float:
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts) * 1e-9


def speed(base, quick: bool) -> dict:
    shoulder, reach = arm_reach(base)
    centre = shoulder + 1.3 * reach * np.array([0.0, -0.5, 0.866])
    frames = 60 if quick else 240
    path = [centre + 0.05 * np.array([np.cos(t), np.sin(t), 0.0]) for t in np.linspace(0, 2 * np.pi, frames // 2)]
    rig = base.copy()
    rig.full_body = True
    rig.chain("left_arm").target = path[0]
    rig.solve()
    warm_solve, warm_kernel, passes = [], [], []
    for g in path * 2:
        rig.chain("left_arm").target = g
        t0 = time.perf_counter_ns()
        passes.append(rig.solve()["left_arm"].iterations)
        warm_solve.append((time.perf_counter_ns() - t0) * 1e-9)
    for g in path[: len(path) // 2]:
        # The kernel alone on the next frame's goal, from this frame's warm start.
        rig.chain("left_arm").target = g
        warm_kernel.append(median_time(kernel_call(rig), 5))
        rig.solve()
    cold_solve, cold_kernel = [], []
    ready = base.copy()
    ready.full_body = True
    ready.solve()  # its tables and roles made: a cold frame is a new goal, not a new rig
    for g in reach_goals(base, np.random.default_rng(2), 20 if quick else 60, lo=1.25, hi=1.35):
        cold = ready.copy()
        cold.full_body = True
        cold.chain("left_arm").target = g
        cold_kernel.append(median_time(kernel_call(cold), 5))
        t0 = time.perf_counter_ns()
        cold.solve()
        cold_solve.append((time.perf_counter_ns() - t0) * 1e-9)
    return {
        "warm solve": statistics.median(warm_solve), "warm kernel": statistics.median(warm_kernel),
        "warm passes": float(np.mean(passes)), "cold solve": statistics.median(cold_solve),
        "cold kernel": statistics.median(cold_kernel),
        "cold solve p90": float(np.percentile(cold_solve, 90)),
    }  # fmt: skip


def batch_seconds(base, rows: int) -> float:
    """Seconds per row of solve_rows over `rows` frames (different hand goals, cold)."""
    rig = base.copy()
    rig.full_body = True
    rig.solve()
    from rigedit.core.rig_anim import animated

    tables = rig_full_body.tables_of(rig)
    goals, poles, has_pole, pulls, tols, clamps, softs, active, _ = rig_full_body.chain_arrays(rig, tables)
    anim = animated(rig)
    ar = np.broadcast_to(np.array(anim.rot), (rows, *np.shape(anim.rot))).copy()
    at = np.broadcast_to(anim.translations, (rows, *anim.translations.shape)).copy()
    wr, wroot = ar.copy(), at[:, 0].copy()
    G = np.broadcast_to(goals, (rows, *goals.shape)).copy()
    c = rig.chain_names.index("left_arm")
    G[:, c] = np.array(reach_goals(base, np.random.default_rng(4), rows))
    P = np.broadcast_to(poles, (rows, *poles.shape)).copy()
    k = rig_full_body.kernel()
    lk, la, lb, lax = tables.lim
    mk, mx, mlo, mhi = tables.mid
    cap = rig_full_body.FULL_BODY_ITERATIONS
    out_r, out_t = np.empty_like(ar), np.empty_like(at)
    err, errors, its = np.empty((rows, len(tables.names))), np.empty((rows, cap)), np.empty(rows, np.int64)
    hist = np.empty((rows, cap, len(tables.names)))

    def call():
        k.solve_rows(
            tables.parents, ar, at, wr, wroot, tables.order, tables.below, tables.child, tables.owner, lk, la, lb, lax,
            tables.kinds, tables.cs, tables.cj, G, P, has_pole, pulls, tols, clamps, softs, mk, mx, mlo, mhi, active, cap,
            out_r, out_t, err, errors, hist, its,
        )  # fmt: skip

    call()
    return median_time(call, 3) / rows


def c_fabrik_seconds(quick: bool) -> tuple[float | None, str]:
    tmp = Path(tempfile.mkdtemp())
    lib, why = build_c(tmp)
    if lib is None:
        return None, why
    rng = np.random.default_rng(13)
    points, targets = straight_chains(rng, 1000)
    c = CRef(lib, points, targets, limbs(rng, 10))
    return per_solve(c.fabrik_grouped(5 if quick else 21), len(points)), why


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    base = humanoid()
    warm = base.copy()
    warm.full_body = True
    warm.solve()  # the kernel's compile (or cache load) stays out of every figure
    n = 60 if args.quick else 200
    print("| quality (bundled humanoid) | result | target |")
    print("|---|---|---|")
    for chain, seed in (("left_arm", 16), ("right_arm", 17)):
        goals = reach_goals(base, np.random.default_rng(seed), n, chain=chain)
        share, worst, passes = reach_share(base, chain, goals, True)
        off, _, _ = reach_share(base, chain, goals, False)
        print(f"| {chain}: 1.15-1.35x reach, full_body on | {share:.1%} reached, feet <= {worst * 1e3:.2g} mm, {passes:.1f} passes | >= 95%, feet <= 1 mm |")
        print(f"| {chain}: the same goals, full_body off | {off:.1%} reached | out of reach |")
    # The reach study behind the arms' default pull (0.4: the root may move 0.4 of the
    # arm's reach): the share reached by distance from the shoulder.
    for lo, hi in ((1.0, 1.15), (1.35, 1.4), (1.4, 1.45), (1.45, 1.6)):
        goals = reach_goals(base, np.random.default_rng(int(lo * 100)), n // 2, lo=lo, hi=hi)
        share, worst, passes = reach_share(base, "left_arm", goals, True)
        print(f"| left_arm: {lo:.2f}-{hi:.2f}x reach (default pull {base.chain('left_arm').pull:g}) | {share:.1%} reached, feet <= {worst * 1e3:.2g} mm, {passes:.1f} passes | (study) |")
    m = 20 if args.quick else 60
    print(f"| hands, head and feet at once ({m} poses) | {body_share(base, m):.1%} all met | all |")
    print()
    c_fab, why = c_fabrik_seconds(args.quick)
    s = speed(base, args.quick)
    per_row = batch_seconds(base, 64 if args.quick else 512)
    print(f"| speed | time | vs C FABRIK N=10 ({why}) | target |")
    print("|---|---|---|---|")

    def ratio(t):
        return "-" if c_fab is None else f"{t / c_fab:.0f}x"

    if c_fab is not None:
        print(f"| C FABRIK N=10 cold, per solve | {c_fab * 1e6:.2f} us | 1x | |")
    print(f"| warm frame, Rig.solve ({s['warm passes']:.1f} passes) | {s['warm solve'] * 1e6:.0f} us | {ratio(s['warm solve'])} | <= 60x |")
    print(f"| warm frame, kernel alone | {s['warm kernel'] * 1e6:.0f} us | {ratio(s['warm kernel'])} | |")
    print(f"| cold 1.25-1.35x reach, Rig.solve (median; p90 {s['cold solve p90'] * 1e6:.0f} us) | {s['cold solve'] * 1e6:.0f} us | {ratio(s['cold solve'])} | <= 1 ms |")
    print(f"| cold, kernel alone | {s['cold kernel'] * 1e6:.0f} us | {ratio(s['cold kernel'])} | |")
    print(f"| batch solve_rows, cold frames, per row (all cores) | {per_row * 1e6:.0f} us | {ratio(per_row)} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
