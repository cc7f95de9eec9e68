"""`rigedit batch retarget` takes every option `rigedit retarget` takes (its flags are made from
the same list) and each reaches the retarget of every file: the batch's output is the clip the
core makes with that option, and not the default's."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.lint_cli import load_clip
from tests.core.retarget_cases import DATA, humanoid, positions

BANDAI = DATA / "dataset-1_walk-right_normal_001.bvh"
PYBVH = DATA / "pybvh_bvh_test1.bvh"
XBOT = DATA / "threejs_Xbot.glb"


def _batch(tmp_path, src, onto, *flags) -> object:
    clips = tmp_path / "clips"
    clips.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, clips / "walk.bvh")
    out = tmp_path / "out"
    assert main(["batch", "retarget", str(clips), "-o", str(out), "--onto", str(onto), "--workers", "1", "-q", "--force", *flags]) == 0
    return load_clip(str(out / "walk.bvh"))


@pytest.mark.parametrize("flag, option, src, onto", [
    ("--root=in_place", dict(root="in_place"), BANDAI, "humanoid"), ("--root=kept", dict(root="kept"), BANDAI, "humanoid"),
    ("--no-foot-lock", dict(lock_feet=False), BANDAI, "humanoid"), ("--no-ground", dict(ground=False), BANDAI, "humanoid"),
    # The humanoid is no wider than these figures: arm space moves hands on Xbot's wide hips.
    ("--no-arm-space", dict(arm_space=False), PYBVH, XBOT)])
def test_each_option_reaches_every_files_retarget(tmp_path, flag, option, src, onto):
    from rigedit.core.retarget import retarget_clip
    from rigedit.io.export import read_gltf_source

    back = _batch(tmp_path, src, onto, flag)
    target = humanoid() if onto == "humanoid" else read_gltf_source(onto, animation=None)[0].skeleton
    source = load_clip(str(src))
    want = retarget_clip(source.skeleton, source.clip, target, **option).clip
    default = retarget_clip(source.skeleton, source.clip, target).clip
    got = positions(back.skeleton, back.clip)
    assert np.abs(got - positions(target, want)).max() < 1e-3
    assert np.abs(got - positions(target, default)).max() > 1e-2


def test_in_place_root_does_not_travel(tmp_path):
    travelled = {}
    for mode in ("scaled", "in_place"):
        back = _batch(tmp_path / mode, BANDAI, "humanoid", f"--root={mode}")
        hips = positions(back.skeleton, back.clip)[:, 0]
        travelled[mode] = float(np.linalg.norm(hips[-1, [0, 2]] - hips[0, [0, 2]]))
    height = float(np.ptp(positions(back.skeleton, back.clip)[0][:, 1]))
    assert travelled["scaled"] > 0.5 * height  # the walk goes somewhere
    assert travelled["in_place"] < 0.1 * travelled["scaled"]


def test_only_result_is_refused_not_ignored(tmp_path, capsys):
    clips = tmp_path / "clips"
    clips.mkdir()
    shutil.copy(BANDAI, clips / "walk.bvh")
    assert main(["batch", "retarget", str(clips), "-o", str(tmp_path / "out"), "--onto", str(XBOT), "--only-result"]) == 1
    assert "--only-result" in capsys.readouterr().err
