"""The rig's warm-start cache is keyed by value: equal limits given anew, or the same inputs
built again, are the same inputs (no cold re-solve), and a solve warm from a settled state
gives what a fresh rig gives."""
from __future__ import annotations

import numpy as np
import pytest

from rigedit.core.rig import BUNDLED_PRESETS, Rig


def _spine_rig() -> Rig:
    rig = Rig.load(BUNDLED_PRESETS / "humanoid.json")
    ch = rig.chain("spine")
    ch.target = ch.target + np.array([0.6, -0.2, 0.4])  # out of reach: it stalls short
    for _ in range(50):
        if all(r.iterations == 0 for r in rig.solve().values()):
            break
    return rig


def test_equal_limits_given_anew_keep_the_warm_start():
    rig = _spine_rig()
    assert not rig.solve()["spine"].reached  # settled short: solving it again would run passes
    before = rig.world_positions()
    ch = rig.chain("spine")
    ch.limits = {name: lim for name, lim in ch.limits.items()}  # a new mapping, equal limits
    ch.target = ch.target.copy()  # and an equal target: nothing it solves for has changed
    report = rig.solve()
    assert report["spine"].iterations == 0
    np.testing.assert_allclose(rig.world_positions(), before, rtol=0, atol=1e-12)


@pytest.mark.parametrize("preset", sorted(p.stem for p in BUNDLED_PRESETS.glob("*.json")))
def test_a_warm_rig_solves_as_a_copy_that_keeps_only_its_warm_starts(preset):
    # The cache's shortcuts (the packed tables, the settled frame, the animated
    # pose) are pure shortcuts: a copy keeps the chains' states and nothing else, and
    # solves every drag frame to the same pose.
    rig = Rig.load(BUNDLED_PRESETS / f"{preset}.json")
    rng = np.random.default_rng(13)
    names = rig.chain_names
    for frame in range(60):
        fresh = rig.copy()
        moved = [names[i] for i in rng.choice(len(names), size=rng.integers(0, len(names) + 1), replace=False)]
        for name in moved:
            step = rng.normal(0.0, 0.02, 3)
            for r in (rig, fresh):
                r.chain(name).target = r.chain(name).target + step
        if rig.clip is not None and frame % 3 == 0:
            rig.time = fresh.time = rig.time + 1.0 / 30.0
        got, want = rig.solve(), fresh.solve()
        np.testing.assert_allclose(rig.world_positions(), fresh.world_positions(), rtol=0, atol=1e-12)
        assert {n: r.reached for n, r in got.items()} == {n: r.reached for n, r in want.items()}
