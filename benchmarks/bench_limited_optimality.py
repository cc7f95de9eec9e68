"""How near limited solves end to the best pose their limits allow: `.venv/bin/python benchmarks/bench_limited_optimality.py [--chains 300] [--seed 0]`.

Issue 24 (item 4) asks that limited FABRIK (and CCD) end within 1 mm of the constrained
optimum on at least 95% of random hinge/cone chains and targets. This script is that check.

The chains: 3-6 joints (2-5 bones of 0.1-0.5 m), hanging from the origin below a parent bone
`root_dir`, each joint but the tip with a cone (10-120 degrees), a hinge (a random axis in the
parent's frame, a range 20-150 degrees wide somewhere in [-150, 180]) or, now and then, no
limit. The rest pose meets the limits (straight where they allow, half the time); its frames
are carried by parallel transport, as `fabrik` builds them when none are given. Half the
targets are the tip of a random pose inside the limits (reachable: the optimum is 0), half
random points within 1.3 times the chain's length (mostly out of the limited reach).

The optimum: scipy's L-BFGS-B minimising the squared tip distance over the joint angles with
the limits as bounds (a cone: its angle from the parent bone in [0, max] and a free azimuth;
a hinge: its angle in [min, max] about its axis, carried by the parent bone's frame exactly
as the solvers carry it), from the rest pose, the target's own pose when there is one, and
RESTARTS random poses; the best of all, and never worse than the solver (the solver's end
counts as an upper bound on the optimum). Each solver is called once, from the rest pose,
with tolerance 1e-3 and the cap given (`--cap`, the API's default 10, and 100).

Printed: per solver and cap, the share of cases whose tip ends within 1 mm of the optimum's,
and a table of the worst gaps. Seeded: two runs on one machine print the same.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core import ik  # noqa: E402
from tests.core.limited_cases import Case, _unit  # noqa: E402 (the chains and their joint angles)

GAP = 1e-3  # within 1 mm of the optimum
RESTARTS = 8


def make_cases(n: int, seed: int):
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < n:
        case = Case(rng)
        total = float(case.lengths.sum())
        if rng.random() < 0.5:
            x = case.random_x(rng)
            target, inside = case.tip(x), x
        else:
            d = np.asarray(_unit(rng.normal(size=3)))
            target, inside = d * total * rng.uniform(0.0, 1.3) ** (1.0 / 3.0), None
        cases.append((case, target, inside))
    return cases


def optimum(cases, seed):
    rng = np.random.default_rng(seed + 1)
    out = []
    for case, target, inside in cases:
        starts = [np.clip(np.zeros(len(case.lo)), case.lo, case.hi)]
        if inside is not None:
            out.append(0.0)  # the target's own pose reaches it exactly
            continue
        out.append(case.best(target, starts, rng, RESTARTS)[0])
    return out


SOLVERS = {"fabrik": ik.fabrik}
if hasattr(ik, "ccd"):
    SOLVERS["ccd"] = ik.ccd


def run(cases, best, solver, cap):
    gaps = []
    for (case, target, inside), opt in zip(cases, best):
        r = solver(case.rest, target, limits=case.limits, tolerance=1e-3, max_iterations=cap)
        gaps.append((r.error - opt, r.error, opt, r.iterations, case, inside is not None))
    return gaps


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chains", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--cap", type=int, action="append")
    ap.add_argument("--optimum-cache", type=Path, help="an .npy file to keep the optima in between runs")
    a = ap.parse_args()
    caps = a.cap or [10, 100]
    cases = make_cases(a.chains, a.seed)
    t0 = time.perf_counter()
    if a.optimum_cache and a.optimum_cache.exists() and len(np.load(a.optimum_cache)) == a.chains:
        best = np.load(a.optimum_cache).tolist()
    else:
        best = optimum(cases, a.seed)
        if a.optimum_cache:
            np.save(a.optimum_cache, np.array(best))
    print(f"{a.chains} chains (seed {a.seed}), optimum by L-BFGS-B in {time.perf_counter() - t0:.0f} s\n")
    print("| solver | cap | within 1 mm | reachable within 1 mm | worst gap (mm) | median iterations |")
    print("|---|---|---|---|---|---|")
    worst_rows = []
    for name, solver in SOLVERS.items():
        for cap in caps:
            gaps = run(cases, best, solver, cap)
            ok = [g[0] <= GAP for g in gaps]
            inside = [g[0] <= GAP for g in gaps if g[5]]
            share = 100.0 * sum(ok) / len(ok)
            print(
                f"| {name} | {cap} | {share:.1f}% | {100.0 * sum(inside) / max(1, len(inside)):.1f}% "
                f"| {1e3 * max(g[0] for g in gaps):.1f} | {int(np.median([g[3] for g in gaps]))} |"
            )
            worst_rows += [(name, cap, g) for g in sorted(gaps, key=lambda g: -g[0])[: a.worst]]
    print("\nWorst gaps:\n")
    print("| solver | cap | gap (mm) | solver's error (mm) | optimum (mm) | iterations | joints | limits | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, cap, (gap, err, opt, its, case, inside) in worst_rows:
        lims = " ".join("C" if k == "cone" else "H" if k == "hinge" else "-" for k in case.kinds)
        print(
            f"| {name} | {cap} | {1e3 * gap:.1f} | {1e3 * err:.1f} | {1e3 * opt:.1f} | {its} | {len(case.kinds) + 1} "
            f"| {lims} | {'inside' if inside else 'random'} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
