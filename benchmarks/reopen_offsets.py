"""How far a saved rig reopens from what was saved: every bundled rig, its targets dragged a
little (seeded random steps, a solve after each, as a drag does), saved, then opened again
with Rig.load. Prints, per rig, the largest joint offset right after loading and after the
first solve (what the editor shows once its solver has answered), and whether the reports
(error, reached) after that solve match the saved rig's next solve.

    .venv/bin/python benchmarks/reopen_offsets.py
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rigedit  # noqa: E402
from rigedit.io.preset import bundled_presets  # noqa: E402


def dragged(path: Path, seed: int = 1, steps: int = 12, step_m: float = 0.03) -> rigedit.Rig:
    rig = rigedit.Rig.load(path)
    rng = np.random.default_rng(seed)
    rig.solve()
    movable = [ch for ch in rig.chains if not ch.ground_feet]
    for _ in range(steps):
        if not movable:  # every target is on the ground: play the clip on instead
            rig.time = rig.time + 1.0 / 30.0
            rig.solve()
            continue
        ch = movable[rng.integers(len(movable))]
        ch.target = ch.target + rng.normal(0.0, step_m, 3)
        rig.solve()
    return rig


def offsets(path: Path) -> tuple[float, float, bool]:
    rig = dragged(path)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / path.name
        rig.save(out)
        back = rigedit.Rig.load(out)
    on_load = float(np.max(np.linalg.norm(back.world_positions() - rig.world_positions(), axis=1)))
    a, b = rig.solve(), back.solve()
    after = float(np.max(np.linalg.norm(back.world_positions() - rig.world_positions(), axis=1)))
    same = all(abs(a[n].error - b[n].error) <= 1e-9 and a[n].reached == b[n].reached for n in a)
    return on_load, after, same


def main() -> None:
    print(f"{'rig':<22} {'on load (mm)':>14} {'after a solve (mm)':>20} {'reports match':>14}")
    for path in bundled_presets():
        on_load, after, same = offsets(path)
        print(f"{path.stem:<22} {on_load * 1e3:>14.6f} {after * 1e3:>20.6f} {str(same):>14}")


if __name__ == "__main__":
    main()
