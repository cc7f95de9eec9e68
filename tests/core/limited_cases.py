"""Random limited chains whose poses are given by joint angles (benchmarks/bench_limited_optimality.py
and the limited-reach tests): a chain hanging below a parent bone, each joint with a cone, a
hinge or (now and then) no limit, a rest pose inside the limits with frames carried by
parallel transport (as fabrik builds them when none are given), and `tip(angles)`: where a
pose of those joint angles puts the tip, each bone's frame turned by the shortest arc from its
reference direction after its parent's turn, exactly as the solvers carry frames. The limits
are bounds on the angles, so a target made from angles within them is inside the limits, and
scipy can minimise the tip's distance over them (`best`)."""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

from rigedit.core.ik import ChainLimits, ConeLimit, HingeLimit
from rigedit.core.scalar_quat import cross, perpendicular, qbetween, qmul, qrot, turn_unit

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

    def best(self, target, starts, rng, restarts):
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
