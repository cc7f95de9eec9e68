"""`--animation` and `--list-animations` on `rigedit import` and `rigedit bake`."""
from __future__ import annotations

import pytest

from rigedit import cli
from rigedit.io.bvh import read_bvh

from .multi_animation import DATA, durations, write_multi_animation
from .test_gltf_animations import DURATION_ATOL


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    return write_multi_animation(tmp_path_factory.mktemp("gltf") / "multi.glb")


def test_list_animations_prints_a_table_and_needs_no_output(multi, capsys):
    assert cli.main(["import", str(multi), "--list-animations"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].split() == ["index", "name", "seconds", "channels"]
    rows = [line.split() for line in lines[1:]]
    assert [r[:2] for r in rows] == [["0", "Walk"], ["1", "Slow"], ["2", "animations[2]"]]
    for r, name in zip(rows, ["Walk", "Slow", None]):
        assert float(r[2]) == pytest.approx(durations()[name], abs=1e-3)  # printed to the millisecond


def test_list_animations_of_a_bvh_is_refused(capsys):
    assert cli.main(["import", str(DATA / "cmu_12_01_walk.bvh"), "--list-animations"]) == 1
    assert "reads .glb and .gltf" in capsys.readouterr().err


def test_import_without_output_is_still_a_usage_error(multi, capsys):
    assert cli.main(["import", str(multi)]) == 2
    assert "-o/--output" in capsys.readouterr().err


@pytest.mark.parametrize("choice, name", [("Slow", "Slow"), ("2", None), (None, "Walk")])
def test_import_takes_the_chosen_animation(multi, tmp_path, capsys, choice, name):
    out = tmp_path / "rig.json"
    argv = ["import", str(multi), "-o", str(out)] + ([] if choice is None else ["--animation", choice])
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert f"from {name or 'animations[2]'}" in text
    assert out.exists()


def test_import_of_an_unknown_animation_lists_them_and_writes_nothing(multi, tmp_path, capsys):
    out = tmp_path / "rig.json"
    assert cli.main(["import", str(multi), "-o", str(out), "--animation", "Run"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(str(multi)) and "\n" not in err
    assert "no animation named 'Run'" in err and "'Walk', 'Slow'" in err
    assert not out.exists()


def test_animation_on_a_bvh_is_refused(tmp_path, capsys):
    bvh = DATA / "cmu_12_01_walk.bvh"
    assert cli.main(["import", str(bvh), "-o", str(tmp_path / "r.json"), "--animation", "Walk"]) == 1
    assert "a BVH file holds one motion" in capsys.readouterr().err


def test_bake_reads_the_chosen_animation(multi, tmp_path, capsys):
    preset = tmp_path / "rig.json"
    assert cli.main(["import", str(multi), "-o", str(preset)]) == 0
    frame_counts = {}
    for choice in ("Walk", "Slow", "2"):
        out = tmp_path / f"baked_{choice}.bvh"
        assert cli.main(["bake", str(preset), "--clip", str(multi), "--animation", choice, "-o", str(out), "-q", "--fps", "30"]) == 0
        clip = read_bvh(out, scale=1.0, up_axis="y").clip
        frame_counts[choice] = clip.n_frames
        name = None if choice == "2" else choice
        assert clip.duration == pytest.approx(durations()[name], abs=1.0 / 30 + DURATION_ATOL)
    assert frame_counts["Slow"] > frame_counts["Walk"] > frame_counts["2"]
    capsys.readouterr()
    assert cli.main(["bake", str(preset), "--clip", str(multi), "--animation", "Run", "-o", str(tmp_path / "x.bvh"), "-q"]) == 1
    assert "no animation named 'Run'" in capsys.readouterr().err
