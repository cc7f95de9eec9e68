"""Every reaching solver of the registry runs everywhere a chain is solved (issue 24): its
single-chain API, Rig.solve, the bake, `rigedit batch bake` and full body, on a small rig
imported from a BVH file. A new entry is tested by being in the registry."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rigedit
from rigedit.cli import main
from rigedit.core.bake import bake
from rigedit.core.ik import registry
from rigedit.import_cli import cmd_import

DATA = Path("/work/shared/data")
CLIP = DATA / "pybvh_bvh_test1.bvh"
REACHING = registry.reaching()


@pytest.fixture(scope="module")
def preset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("walk") / "rig.json"
    assert cmd_import([str(CLIP), "-o", str(out)]) == 0
    return out


def probe(rig: rigedit.Rig, solver: registry.Solver) -> rigedit.Chain:
    """The rig's left arm (three joints) under `solver`, its target moved within reach."""
    ch = rig.chain("left_arm")
    ch.solver = solver.name
    ch.max_iterations = 30
    ch.target = rig.world_position(ch.joints[-1]) + (0.04, 0.06, 0.03)
    return ch


def test_the_walk_covers_every_reaching_solver():
    assert {s.name for s in REACHING} == {s.name for s in registry.SOLVERS if s.reaches}
    assert len(REACHING) >= 2


@pytest.mark.parametrize("solver", REACHING, ids=[s.name for s in REACHING])
def test_the_single_chain_api_reaches_a_target(solver):
    points = np.array([[0.0, 0.0, 0.0], [0.0, 0.3, 0.02], [0.0, 0.6, 0.0]])
    target = np.array([0.2, 0.4, 0.1])
    got = solver.method.single(points, target, tolerance=1e-5, max_iterations=50)
    assert got.shape == points.shape
    assert np.linalg.norm(got[-1] - target) <= 1e-4
    np.testing.assert_allclose(np.linalg.norm(np.diff(got, axis=0), axis=1), np.linalg.norm(np.diff(points, axis=0), axis=1),
                               rtol=1e-9)


@pytest.mark.parametrize("solver", REACHING, ids=[s.name for s in REACHING])
def test_rig_solve_bake_and_full_body(preset, solver):
    rig = rigedit.Rig.load(preset)
    ch = probe(rig, solver)
    report = rig.solve()["left_arm"]
    assert report.reached, report
    assert np.linalg.norm(rig.world_position(ch.joints[-1]) - ch.target) <= ch.tolerance
    baked = bake(rig)
    assert np.all(np.isfinite(baked.clip.rotations)) and baked.errors["left_arm"].shape == (rig.clip.n_frames,)
    rig.full_body = True
    report = rig.solve()["left_arm"]
    assert np.isfinite(report.error) and report.error <= ch.tolerance


@pytest.mark.parametrize("solver", REACHING, ids=[s.name for s in REACHING])
def test_batch_bake(preset, solver, tmp_path):
    rig = rigedit.Rig.load(preset)
    probe(rig, solver)
    rig.save(tmp_path / "rig.json")
    clips = tmp_path / "clips"
    clips.mkdir()
    (clips / CLIP.name).write_bytes(CLIP.read_bytes())
    assert main(["batch", "bake", str(clips), "-o", str(tmp_path / "out"), "--rig", str(tmp_path / "rig.json"), "-q"]) == 0
    assert (tmp_path / "out" / CLIP.name).is_file()


def test_a_method_missing_a_part_fails_loudly():
    from rigedit.core.solve_methods import Method

    class Half(Method):
        name = "half"
        reaches = True

    with pytest.raises(NotImplementedError, match="the half method has no frame_row"):
        Half().frame_row
    with pytest.raises(NotImplementedError, match="has no full_body_kind"):
        Half().full_body_kind()
