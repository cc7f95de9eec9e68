"""The job list of `rigedit batch`: which files, which outputs, what is skipped or refused."""
from __future__ import annotations

from pathlib import Path

import pytest

from rigedit.batch.plan import PlanError, plan


def touch(root: Path, *names: str) -> None:
    for n in names:
        (root / n).parent.mkdir(parents=True, exist_ok=True)
        (root / n).write_text("x")


def names(p) -> list[str]:
    return [j.name for j in p.jobs]


def test_a_folder_with_subfolders_dotfiles_and_other_files(tmp_path):
    touch(tmp_path, "in/a.bvh", "in/b.GLB", "in/sub/c.gltf", "in/notes.txt", "in/.a.bvh.x1.tmp", "in/.git/d.bvh")
    p = plan("bake", [str(tmp_path / "in")], str(tmp_path / "out"))
    assert names(p) == ["a.bvh", "b.GLB", "sub/c.gltf"]
    assert [Path(j.outputs[0]).relative_to(tmp_path / "out").as_posix() for j in p.jobs] == ["a.bvh", "b.bvh", "sub/c.bvh"]
    assert all(Path(j.source).is_absolute() for j in p.jobs)


def test_lint_outputs_with_and_without_fix(tmp_path):
    touch(tmp_path, "in/walk.glb")
    out = tmp_path / "out"
    assert plan("lint", [str(tmp_path / "in")], str(out)).jobs[0].outputs == (str(out / "walk.lint.json"),)
    job = plan("lint", [str(tmp_path / "in")], str(out), fix=True).jobs[0]
    assert job.outputs == (str(out / "walk.glb"), str(out / "walk.lint.json")) and job.fix  # the report last


def test_globs_keep_the_path_below_their_fixed_folders(tmp_path, monkeypatch):
    touch(tmp_path, "lib/s01/walk.bvh", "lib/s02/walk.bvh", "lib/s02/run.bvh")
    monkeypatch.chdir(tmp_path)
    p = plan("lint", ["lib/*/walk*.bvh"], "out")
    assert names(p) == ["s01/walk.bvh", "s02/walk.bvh"]
    assert names(plan("lint", ["lib/**/*.bvh"], "out")) == ["s01/walk.bvh", "s02/run.bvh", "s02/walk.bvh"]
    # What an unquoted glob becomes in the shell: files, each named by itself.
    assert names(plan("lint", ["lib/s02/run.bvh", "lib/s02/run.bvh"], "out")) == ["run.bvh"]


def test_two_clips_with_one_output_the_second_is_an_error(tmp_path):
    touch(tmp_path, "in/walk.bvh", "in/walk.glb")
    p = plan("bake", [str(tmp_path / "in")], str(tmp_path / "out"))
    assert names(p) == ["walk.bvh"]
    [clash] = p.done
    assert clash.name == "walk.glb" and clash.status == "error"
    assert "walk.bvh" in clash.error and str(tmp_path / "in" / "walk.glb") in clash.error


def test_existing_outputs_are_done_unless_force(tmp_path):
    touch(tmp_path, "in/a.bvh", "in/b.bvh", "out/a.lint.json")
    p = plan("lint", [str(tmp_path / "in")], str(tmp_path / "out"))
    assert names(p) == ["b.bvh"] and [(r.name, r.status) for r in p.done] == [("a.bvh", "exists")]
    assert names(plan("lint", [str(tmp_path / "in")], str(tmp_path / "out"), force=True)) == ["a.bvh", "b.bvh"]
    # With --fix the repaired clip is an output too: a report alone is not a finished job.
    assert names(plan("lint", [str(tmp_path / "in")], str(tmp_path / "out"), fix=True)) == ["a.bvh", "b.bvh"]


def test_an_outdir_inside_the_inputs_is_not_read(tmp_path):
    touch(tmp_path, "in/a.bvh", "in/baked/a.bvh")
    assert names(plan("lint", [str(tmp_path / "in")], str(tmp_path / "in" / "baked"))) == ["a.bvh"]


@pytest.mark.parametrize("kind, fix", [("bake", False), ("lint", True)])
def test_an_output_over_an_input_refuses_the_batch(tmp_path, kind, fix):
    touch(tmp_path, "in/a.bvh")
    with pytest.raises(PlanError, match="would replace an input"):
        plan(kind, [str(tmp_path / "in")], str(tmp_path / "in"), fix=fix)
    # Lint reports beside the clips replace nothing: allowed.
    assert names(plan("lint", [str(tmp_path / "in")], str(tmp_path / "in"))) == ["a.bvh"]


@pytest.mark.parametrize("spec, message", [("nowhere", "no such file or folder"), ("in/*.fbx", "no .bvh, .glb, .gltf, .usd, .usda or .usdc files"),
                                           ("in/readme.txt", "not a clip")])
def test_nothing_to_do_is_an_error_naming_the_input(tmp_path, monkeypatch, spec, message):
    touch(tmp_path, "in/readme.txt")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PlanError, match=message) as e:
        plan("lint", [spec], "out")
    assert spec in str(e.value)


def test_jobs_are_handed_out_largest_first(tmp_path):
    from rigedit.batch.plan import largest_first

    for name, size in (("a.bvh", 10), ("b.bvh", 300), ("c.bvh", 20)):
        (tmp_path / name).write_text("x" * size)
    assert [j.name for j in largest_first(plan("lint", [str(tmp_path)], str(tmp_path / "out")).jobs)] == ["b.bvh", "c.bvh", "a.bvh"]


def test_what_is_not_a_clip_is_listed_with_the_reason(tmp_path):
    touch(tmp_path, "in/a.bvh", "in/notes.txt", "in/y.bvh/z.bvh", "elsewhere/w.bvh", "in/.hidden.txt")
    (tmp_path / "in" / "x.bvh").mkdir()  # a folder named like a clip, empty
    (tmp_path / "in" / "gone.bvh").symlink_to(tmp_path / "nowhere.bvh")  # a clip that cannot be opened
    (tmp_path / "in" / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    p = plan("lint", [str(tmp_path / "in")], str(tmp_path / "out"))
    assert names(p) == ["a.bvh", "y.bvh/z.bvh"]
    passed = {r.name: (r.status, r.error) for r in p.done}
    assert set(passed) == {"gone.bvh", "linked", "notes.txt", "x.bvh", "y.bvh"}  # dotfiles alone are left out
    assert passed["gone.bvh"][0] == "unreadable" and "cannot be read" in passed["gone.bvh"][1]
    assert passed["notes.txt"][0] == "skipped" and "not a clip" in passed["notes.txt"][1]
    assert passed["x.bvh"][0] == passed["y.bvh"][0] == "skipped" and "a folder" in passed["x.bvh"][1]
    assert passed["linked"][0] == "skipped" and "not followed" in passed["linked"][1]
    for name, (_, error) in passed.items():
        assert error.startswith(str(tmp_path / "in" / name) + ": ")


def test_a_glob_lists_the_folders_and_other_files_it_matches(tmp_path, monkeypatch):
    touch(tmp_path, "in/a.bvh", "in/b.txt")
    (tmp_path / "in" / "c.bvh").mkdir()
    monkeypatch.chdir(tmp_path)
    p = plan("lint", ["in/*"], "out")
    assert names(p) == ["a.bvh"]
    assert [(r.name, r.status) for r in p.done] == [("b.txt", "skipped"), ("c.bvh", "skipped")]
