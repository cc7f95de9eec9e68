"""Full body on every bundled preset (issue 16): goals moved, limits and lengths hold, anchors
(chains of pull 0) reach, nothing raises; FABRIK chains with hinges and cones included."""
from __future__ import annotations

import numpy as np
import pytest

import rigedit
from rigedit.core.ik.limits import limit_error_deg
from rigedit.core.rig import BUNDLED_PRESETS

LIMIT_EPS_DEG = 1e-6
LENGTH_RELATIVE = 1e-9
PRESETS = sorted(p.name for p in BUNDLED_PRESETS.glob("*.json"))


def _limit_errors(rig) -> list:
    names = list(rig.skeleton.names)
    pos, wrot = rig.skeleton.fk(rig.pose)
    parents = rig.skeleton.parents
    out = []
    for name in rig.chain_names:
        ch = rig.chain(name)
        if ch.solver == "look_at":
            continue
        for k, joint in enumerate(ch.joints[:-1]):
            limit = ch.limits.get(joint)
            j = names.index(joint)
            if limit is None or parents[j] < 0:
                continue
            child = names.index(ch.joints[k + 1])
            out.append(limit_error_deg(limit, pos[j] - pos[parents[j]], wrot[parents[j]], pos[child] - pos[j]))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_goals_moved_with_full_body_keep_limits_and_lengths(preset):
    rig = rigedit.Rig.load(BUNDLED_PRESETS / preset)
    rig.solve()
    rig.full_body = True
    rng = np.random.default_rng(len(preset))
    for _ in range(4):
        for name in rig.chain_names:
            ch = rig.chain(name)
            if ch.pull > 0.0:
                ch.target = np.asarray(ch.target) + rng.uniform(-0.08, 0.08, 3)
        reports = rig.solve()
        assert max(_limit_errors(rig), default=0.0) <= LIMIT_EPS_DEG
        pos = rig.world_positions()
        for j, p in enumerate(rig.skeleton.parents):
            if p >= 0:
                length = np.linalg.norm(rig.skeleton.offsets[j])
                assert abs(np.linalg.norm(pos[j] - pos[p]) - length) <= LENGTH_RELATIVE * max(length, 1e-3)
        for name in rig.chain_names:
            if rig.chain(name).pull == 0.0 and rig.chain(name).solver == "two_bone":
                assert reports[name].reached, name  # an anchor left where it was reaches
