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
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rigedit.core import ik  # noqa: E402
from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit  # noqa: E402
from rigedit.core.scalar_quat import cross, perpendicular, qbetween, qmul, qrot, turn_unit  # noqa: E402

GAP = 1e-3  # within 1 mm of the optimum
RESTARTS = 8
ROOT_DIR = (0.0, -1.0, 0.0)  # the parent bone points down; chains hang from it


def _unit(v):
    v = np.asarray(v, dtype=np.float64)
    return tuple((v / np.linalg.norm(v)).tolist())


class Case:
    """One chain: rest points, limits, and the joint-angle parametrisation of its poses."""

    def __init__(self, rng: np.random.Generator):
        m = int(rng.integers(2, 6))  # bones: 3-6 joints
        self.lengths = rng.uniform(0.1, 0.5, m)
        self.joints = {}
        self.kinds, self.bounds = [], []
        straight = rng.random() < 0.5
        parent, frame = ROOT_DIR, (0.0, 0.0, 0.0, 1.0)
        dirs, axes = [], []
        for k in range(m):
            r = rng.random()
            if r < 0.45:
                deg = float(rng.uniform(10.0, 120.0))
                self.joints[k] = ConeLimit(deg)
                self.kinds.append("cone")
                self.bounds += [(0.0, math.radians(deg)), (-2 * math.pi, 2 * math.pi)]
                th = 0.0 if straight else rng.uniform(0.0, math.radians(deg))
                u = self._cone_dir(parent, perpendicular(parent), th, rng.uniform(-math.pi, math.pi))
                axes.append((0.0, 0.0, 0.0))
            elif r < 0.9:
                while True:
                    local = _unit(rng.normal(size=3))
                    world = qrot(frame, local)
                    if abs(float(np.dot(world, parent))) < 0.95:
                        break
                lo = float(rng.uniform(-150.0, 30.0))
                hi = min(180.0, lo + float(rng.uniform(20.0, 150.0)))
                self.joints[k] = HingeLimit(local, lo, hi)
                self.kinds.append("hinge")
                self.bounds.append((math.radians(lo), math.radians(hi)))
                th = 0.0 if straight and lo <= 0.0 <= hi else rng.uniform(math.radians(lo), math.radians(hi))
                u = self._hinge_dir(parent, world, th)
                axes.append(world)
            else:
                self.kinds.append("free")
                self.bounds += [(0.0, math.pi), (-2 * math.pi, 2 * math.pi)]
                th = 0.0 if straight else rng.uniform(0.0, math.pi)
                u = self._cone_dir(parent, perpendicular(parent), th, rng.uniform(-math.pi, math.pi))
                axes.append((0.0, 0.0, 0.0))
            dirs.append(u)
            frame = qmul(qbetween(parent, u), frame)  # parallel transport, as chain_frames does
            parent = u
        self.ref_dirs, self.ref_axes = dirs, axes
        self.perps = [perpendicular(ROOT_DIR if k == 0 else dirs[k - 1]) for k in range(m)]
        self.rest = np.concatenate(([[0.0, 0.0, 0.0]], np.cumsum(np.array(dirs) * self.lengths[:, None], axis=0)))
        self.limits = ChainLimits(self.joints, root_dir=ROOT_DIR)
        self.lo = np.array([b[0] for b in self.bounds])
        self.hi = np.array([b[1] for b in self.bounds])

    @staticmethod
    def _cone_dir(parent, e1, th, ph):
        e2 = cross(parent, e1)
        s, c = math.sin(th), math.cos(th)
        return tuple(c * parent[i] + s * (math.cos(ph) * e1[i] + math.sin(ph) * e2[i]) for i in range(3))

    @staticmethod
    def _hinge_dir(parent, axis_world, th):
        a = float(np.dot(axis_world, parent))
        axis = _unit(np.asarray(axis_world) - a * np.asarray(parent))
        b = cross(axis, parent)
        return tuple(math.cos(th) * parent[i] + math.sin(th) * b[i] for i in range(3))

    def tip(self, x) -> np.ndarray:
        """The tip of the pose with joint angles x: each bone's frame turned by the shortest
        arc from its reference direction, after its parent's turn (fabrik_passes.forward)."""
        q = (0.0, 0.0, 0.0, 1.0)
        parent = ROOT_DIR
        p = [0.0, 0.0, 0.0]
        i = 0
        for k, kind in enumerate(self.kinds):
            c = qrot(q, self.ref_dirs[k])
            if kind == "hinge":
                u = self._hinge_dir(parent, qrot(q, self.ref_axes[k]), x[i])
                i += 1
            else:
                u = self._cone_dir(parent, qrot(q, self.perps[k]), x[i], x[i + 1])
                i += 2
            q = turn_unit(c, u, q)
            for j in range(3):
                p[j] += self.lengths[k] * u[j]
            parent = u
        return np.array(p)

    def random_x(self, rng) -> np.ndarray:
        return rng.uniform(self.lo, self.hi)

    def best(self, target, starts, rng, restarts=RESTARTS):
        """(distance, angles) of the best pose found toward target."""

        def f(x):
            d = self.tip(x) - target
            return float(d @ d)

        xs = list(starts) + ([self.random_x(rng) for _ in range(restarts)] if rng is not None else [])
        best = (math.inf, None)
        for x0 in xs:
            r = minimize(f, x0, method="L-BFGS-B", bounds=self.bounds, options={"maxiter": 400, "ftol": 1e-15, "gtol": 1e-12})
            d = math.sqrt(max(r.fun, 0.0))
            if d < best[0]:
                best = (d, r.x)
        return best


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
        out.append(case.best(target, starts, rng)[0])
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
