"""The solver registry: every entry's properties hold for the chains the rig solves with it,
and validation (chains, presets) knows exactly the registered names."""
from __future__ import annotations

import numpy as np
import pytest

import rigedit
from rigedit.core.ik import registry
from rigedit.core.ik.limits import ConeLimit

# A chain of each length on the bundled humanoid, root to tip.
ARM = ["LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand"]


def chain_for(solver: registry.Solver) -> list[str]:
    n = solver.joints or len(ARM)
    return ARM[len(ARM) - n:]


@pytest.mark.parametrize("solver", registry.SOLVERS, ids=registry.NAMES)
def test_each_solver_solves_a_rig_chain_as_its_entry_says(solver):
    rig = rigedit.Rig.default()
    joints = chain_for(solver)
    tip = rig.skeleton.index(joints[-1])
    rig.add_chain("probe", joints, solver=solver.name, target=rig.world_position(joints[-1]) + (0.05, 0.1, 0.3))
    before = rig.pose.rotations[tip].copy()
    report = rig.solve()["probe"]
    if not solver.iterations:
        assert report.iterations == 0 and report.errors == ()
    else:
        assert report.iterations >= 1 and len(report.errors) == report.iterations
    # An aiming solver turns the chain's tip to face the target; a reaching one moves the tip
    # there and leaves its rotation to the pose.
    assert (not np.allclose(rig.pose.rotations[tip], before, atol=1e-9)) == (not solver.reaches)
    if solver.reaches:
        assert np.linalg.norm(rig.world_position(joints[-1]) - rig.chain("probe").target) == pytest.approx(report.error, abs=1e-12)


@pytest.mark.parametrize("solver", registry.SOLVERS, ids=registry.NAMES)
def test_joint_counts_and_limits_are_refused_as_the_entry_says(solver):
    rig = rigedit.Rig.default()
    joints = chain_for(solver)
    ch = rig.add_chain("probe", joints, solver=solver.name)
    for k, joint in enumerate(joints[:-1]):
        problem = solver.limit_problem(k)
        if problem is None:
            ch.limits = {joint: ConeLimit(90.0)}
            assert joint in ch.limits
        else:
            with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
                ch.limits = {joint: ConeLimit(90.0)}
    other = rig.add_chain("two", ["LeftArm", "LeftForeArm"], solver="fabrik")
    if solver.fits(2):
        other.solver = solver.name
    else:
        with pytest.raises(ValueError, match=f"solver '{solver.name}' needs exactly {solver.joints} joints, got 2"):
            other.solver = solver.name


def test_only_registered_names_are_solvers():
    ch = rigedit.Rig.default().chain("spine")
    with pytest.raises(ValueError, match=r"unknown solver 'jacobian' \(expected 'two_bone', 'fabrik', 'ccd' or 'look_at'\)"):
        ch.solver = "jacobian"
    assert registry.find("jacobian") is None and registry.find(["fabrik"]) is None
    assert [registry.get(n).name for n in registry.NAMES] == list(registry.NAMES)


def test_the_preset_schema_lists_the_registered_names():
    from rigedit.io.preset_model import PresetModel

    schema = PresetModel.model_json_schema()
    assert schema["$defs"]["ChainModel"]["properties"]["solver"]["enum"] == list(registry.NAMES)


def test_new_chains_get_the_closed_form_where_it_fits():
    assert not registry.reaching_for(3).iterations and registry.reaching_for(3).reaches
    for n in (2, 4, 7):
        assert registry.reaching_for(n) is registry.general()
    assert registry.general().joints is None and registry.general().reaches
