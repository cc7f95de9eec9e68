"""Adding chains, as an import does: `.venv/bin/python benchmarks/bench_add_chains.py`.

For n limbs (100..800) prints the seconds to propose chains for a creature with n legs
(n / 2 body segments with a pair each), to build the rig and add every proposed chain, and
to add n limbs on one joint (Rig.add_chain alone). Linear: the time per chain stays flat
(issue 14: 400 chains took 1.6 s, quadratic). Indicative only: run it on a quiet machine.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402,F401
from rigedit.core.autochains import propose_chains  # noqa: E402
from rigedit.core.rig import Rig  # noqa: E402
from rigedit.core.skeleton import Skeleton  # noqa: E402

SIZES = (100, 200, 400, 800)


def centipede(limbs: int) -> Skeleton:
    joints = [("s0", None, (0.0, 1.0, 0.0))]
    for k in range(limbs // 2):
        if k:
            joints.append((f"s{k}", f"s{k - 1}", (0.0, 0.0, 0.1)))
        for side, x in (("l", 0.1), ("r", -0.1)):
            joints += [(f"{side}a{k}", f"s{k}", (x, 0.0, 0.0)), (f"{side}b{k}", f"{side}a{k}", (0.0, -0.5, 0.05)),
                       (f"{side}c{k}", f"{side}b{k}", (0.0, -0.5, -0.05))]
    return Skeleton.from_joints(joints)


def fan(limbs: int) -> Skeleton:
    joints = [("root", None, (0.0, 1.0, 0.0))]
    for i in range(limbs):
        joints += [(f"a{i}", "root", (0.01 * i, 0, 0)), (f"b{i}", f"a{i}", (0, -0.3, 0.01)), (f"c{i}", f"b{i}", (0, -0.3, -0.01))]
    return Skeleton.from_joints(joints)


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    Rig(fan(2)).add_chain("warm", ["a0", "b0", "c0"], solver="two_bone")  # first-use costs out of the table
    print(f"{'limbs':>6} {'propose s':>10} {'add proposed s':>15} {'chains':>7} {'add fan s':>10} {'us/chain':>9}")
    for n in SIZES:
        sk = centipede(n)
        proposals = []

        def propose():
            proposals[:] = propose_chains(sk)

        def add_proposed():
            rig = Rig(sk)
            for c in proposals:
                rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole)

        t_prop = best(propose)
        t_add = best(add_proposed)
        f = fan(n)

        def add_fan():
            rig = Rig(f)
            for i in range(n):
                rig.add_chain(f"l{i}", [f"a{i}", f"b{i}", f"c{i}"], solver="two_bone")

        t_fan = best(add_fan)
        print(f"{n:>6} {t_prop:>10.3f} {t_add:>15.3f} {len(proposals):>7} {t_fan:>10.3f} {1e6 * t_fan / n:>9.0f}")


if __name__ == "__main__":
    main()
