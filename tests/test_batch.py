"""`rigedit batch` on local worker processes: outputs, a broken file, skip and --force, the same
results as the single-file commands, a crashed worker, Ctrl+C."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rigedit.batch.jobs import Job
from rigedit.batch.local import run_local
from rigedit.batch.plan import plan
from rigedit.cli import main
from rigedit.import_cli import cmd_bake, cmd_import
from rigedit.io.bvh import read_bvh
from rigedit.lint_cli import cmd_lint

from tests.batch_helpers import (BROKEN, DATA, GOOD, assert_same_bvh, clip_folder, crash_on_marked, crash_once_on_marked,
                                 exit_on_marked, findings_of, summary)

ROOT = Path(__file__).resolve().parents[1]


def _stem(rel: str) -> str:
    return rel.rsplit(".", 1)[0]


def test_bake_a_folder_with_a_broken_file(tmp_path, capsys):
    clips, out = clip_folder(tmp_path), tmp_path / "out"
    assert main(["batch", "bake", str(clips), "-o", str(out), "--workers", "2", "-q"]) == 1
    captured = capsys.readouterr()
    rows = summary(out, "bake")
    assert set(rows) == set(GOOD) | {BROKEN}
    for rel in GOOD:
        assert rows[rel]["status"] == "ok", rows[rel]
        assert (out / f"{_stem(rel)}.bvh").is_file()  # subfolders kept
    bad = rows[BROKEN]
    assert bad["status"] == "error" and bad["outputs"] == []
    assert str(clips / BROKEN) in bad["error"] and "MOTION" in bad["error"]
    assert not (out / "broken.bvh").exists()
    # Reported as it happened (stderr) and in the table (stdout), with the file's name.
    assert f"error: {clips / BROKEN}" in captured.err
    assert "broken.bvh" in captured.out and "3 ok, 1 error" in captured.out


def test_bake_gives_what_import_then_bake_gives(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    assert main(["batch", "bake", str(clips), "-o", str(out), "-q"]) == 0
    for rel in GOOD:
        preset, single = tmp_path / "single.json", tmp_path / "single.bvh"
        assert cmd_import([str(clips / rel), "-o", str(preset), "--force"]) == 0  # one preset, rewritten per clip
        assert cmd_bake([str(preset), "-o", str(single), "-q", "--force"]) == 0
        assert_same_bvh(out / f"{_stem(rel)}.bvh", single)


def test_bake_with_a_rig_is_bake_with_clip(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    preset = tmp_path / "rig.json"
    assert cmd_import([str(DATA / "pybvh_bvh_test1.bvh"), "-o", str(preset)]) == 0
    code = main(["batch", "bake", str(clips), "-o", str(out), "--rig", str(preset), "-q"])
    rows = summary(out, "bake")
    assert code == 1  # the other skeletons do not fit the rig
    assert rows["pybvh_bvh_test1.bvh"]["status"] == "ok"
    for rel in ("takes/walk_right.bvh", "RiggedSimple.glb"):
        assert rows[rel]["status"] == "error" and str(clips / rel) in rows[rel]["error"]
    single = tmp_path / "single.bvh"
    assert cmd_bake([str(preset), "--clip", str(clips / "pybvh_bvh_test1.bvh"), "-o", str(single), "-q"]) == 0
    assert_same_bvh(out / "pybvh_bvh_test1.bvh", single)


def test_lint_writes_what_lint_json_prints(tmp_path, capsys):
    clips, out = clip_folder(tmp_path), tmp_path / "out"
    assert main(["batch", "lint", str(clips), "-o", str(out), "-q"]) == 1
    rows = summary(out, "lint")
    capsys.readouterr()
    for rel in GOOD:
        report = out / f"{_stem(rel)}.lint.json"
        assert cmd_lint([str(clips / rel), "--json"]) == 0
        single = json.loads(capsys.readouterr().out)
        assert set(json.loads(report.read_text())) == {"findings"}
        assert findings_of(report) == [(f["kind"], f["chain"], f["joint"], f["frame_start"], f["frame_end"], f["severity"])
                                       for f in single["findings"]]
        counted = {}
        for f in single["findings"]:
            counted[f["kind"]] = counted.get(f["kind"], 0) + 1
        assert rows[rel]["findings"] == counted
    assert rows[BROKEN]["status"] == "error" and not (out / "broken.lint.json").exists()


def test_lint_fix_writes_the_repair_in_the_input_format(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    assert main(["batch", "lint", str(clips / "takes"), "-o", str(out), "--fix", "-q"]) == 0
    capsys.readouterr()
    single = tmp_path / "single.bvh"
    assert cmd_lint([str(clips / "takes/walk_right.bvh"), "--fix", "-o", str(single), "--json"]) == 0
    fixed = json.loads(capsys.readouterr().out)["fix"]
    assert fixed["repaired"], "the sample should have something to repair, or this test shows nothing"
    assert json.loads((out / "walk_right.lint.json").read_text())["fix"]["repaired"] == fixed["repaired"]
    assert_same_bvh(out / "walk_right.bvh", single)


def test_existing_outputs_are_skipped_unless_force(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    assert main(["batch", "lint", str(clips), "-o", str(out), "-q"]) == 0
    report = out / "pybvh_bvh_test1.lint.json"
    first = summary(out, "lint")
    report.write_text('{"findings": [{"kind": "knee_pop"}]}\n')  # a marker a rerun must leave alone
    assert main(["batch", "lint", str(clips), "-o", str(out), "-q"]) == 0
    rows = summary(out, "lint")
    assert {r["status"] for r in rows.values()} == {"exists"}
    assert report.read_text() == '{"findings": [{"kind": "knee_pop"}]}\n'
    assert rows["pybvh_bvh_test1.bvh"]["findings"] == {"knee_pop": 1}  # read back from the report there
    assert rows["RiggedSimple.glb"]["findings"] == first["RiggedSimple.glb"]["findings"]
    assert main(["batch", "lint", str(clips), "-o", str(out), "-q", "--force"]) == 0
    rows = summary(out, "lint")
    assert {r["status"] for r in rows.values()} == {"ok"}
    assert report.read_text() != '{"findings": [{"kind": "knee_pop"}]}\n'
    assert rows["pybvh_bvh_test1.bvh"]["findings"] == first["pybvh_bvh_test1.bvh"]["findings"]


def test_a_glob_and_no_matches(tmp_path, capsys):
    clips, out = clip_folder(tmp_path), tmp_path / "out"
    assert main(["batch", "lint", str(clips / "**" / "*walk*.bvh"), "-o", str(out), "-q"]) == 0
    assert set(summary(out, "lint")) == {"takes/walk_right.bvh"}
    assert main(["batch", "lint", str(clips / "*.fbx"), "-o", str(out), "-q"]) == 1
    assert "no .bvh, .glb, .gltf, .usd, .usda or .usdc files" in capsys.readouterr().err


def test_outputs_never_replace_inputs(tmp_path, capsys):
    clips = clip_folder(tmp_path, broken=False)
    before = {p: p.read_bytes() for p in clips.rglob("*.bvh")}
    assert main(["batch", "bake", str(clips), "-o", str(clips), "-q"]) == 1
    assert "would replace an input clip" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in clips.rglob("*.bvh")} == before
    assert not (clips / "batch-bake.json").exists()


def test_a_crashed_worker_is_that_files_error(tmp_path):
    clips = clip_folder(tmp_path, broken=False)
    (clips / "crash_me.bvh").write_text((DATA / "pybvh_bvh_test1.bvh").read_text())
    todo = plan("lint", [str(clips)], str(tmp_path / "out"))
    results = []
    run_local(todo.jobs, 2, results.append, function=crash_on_marked)
    by_name = {r.name: r for r in results}
    assert set(by_name) == set(GOOD) | {"crash_me.bvh"}  # each once
    assert by_name["crash_me.bvh"].status == "crashed"
    assert str(clips / "crash_me.bvh") in by_name["crash_me.bvh"].error
    for rel in GOOD:
        assert by_name[rel].status == "ok", by_name[rel]
        assert (tmp_path / "out" / f"{_stem(rel)}.lint.json").is_file()


@pytest.mark.parametrize("function", [exit_on_marked, crash_on_marked])
def test_a_worker_that_dies_fails_its_file_by_name_in_the_summary_and_exit_status(function, tmp_path, monkeypatch, capsys):
    import rigedit.batch.local as local

    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    (clips / "crash_me.bvh").write_text((DATA / "pybvh_bvh_test1.bvh").read_text())
    calls = []

    def run_local(jobs, workers, on_result):
        calls.append(1)
        return local_run(jobs, workers, on_result, function=function)

    local_run = local.run_local
    monkeypatch.setattr(local, "run_local", run_local)
    assert main(["batch", "lint", str(clips), "-o", str(out), "--workers", "2", "-q"]) == 1
    assert calls
    rows = summary(out, "lint")
    assert rows["crash_me.bvh"]["status"] == "crashed" and str(clips / "crash_me.bvh") in rows["crash_me.bvh"]["error"]
    assert all(rows[rel]["status"] == "ok" for rel in GOOD)
    printed = capsys.readouterr().out
    assert "crash_me.bvh" in printed and "crashed" in printed


def test_a_worker_killed_once_is_retried_and_its_file_done(tmp_path):
    clips = clip_folder(tmp_path, broken=False)
    (clips / "crash_me.bvh").write_text((DATA / "pybvh_bvh_test1.bvh").read_text())
    todo = plan("lint", [str(clips)], str(tmp_path / "out"))
    results = []
    run_local(todo.jobs, 2, results.append, function=crash_once_on_marked)
    by_name = {r.name: r for r in results}
    assert set(by_name) == set(GOOD) | {"crash_me.bvh"}
    assert all(r.status == "ok" for r in results), results
    assert (tmp_path / "out" / "crash_me.lint.json.killed").is_file()  # it was killed once


def test_a_batch_lists_what_it_skipped(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    (clips / "x.bvh").mkdir()
    (clips / "notes.txt").write_text("not a clip")
    assert main(["batch", "lint", str(clips), "-o", str(out), "--workers", "1", "-q"]) == 0  # skipping is no failure
    rows = summary(out, "lint")
    assert rows["x.bvh"]["status"] == rows["notes.txt"]["status"] == "skipped"
    assert "a folder" in rows["x.bvh"]["error"] and "not a clip" in rows["notes.txt"]["error"]
    (clips / "gone.bvh").symlink_to(tmp_path / "nowhere.bvh")
    assert main(["batch", "lint", str(clips), "-o", str(out), "--workers", "1", "-q"]) == 1  # a clip not read is
    assert summary(out, "lint")["gone.bvh"]["status"] == "unreadable"


def test_unexpected_errors_are_reported_not_raised(tmp_path):
    job = Job("lint", str(tmp_path / "x.bvh"), (str(tmp_path / "x.lint.json"),), "x.bvh")
    from rigedit.batch.jobs import execute

    r = execute(Job("unknown", job.source, job.outputs, job.name))  # a KeyError inside: a bug, still one file's row
    assert r.status == "error" and job.source in r.error and "KeyError" in r.error
    r = execute(job)  # no such file
    assert r.status == "error" and job.source in r.error


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_cleanly(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    walk = (DATA / "cmu_12_01_walk.bvh").read_text()
    for i in range(6):
        (clips / f"walk{i:02d}.bvh").write_text(walk)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "rigedit", "batch", "bake", str(clips), "-o", str(out), "--workers", "1", "-q"]
    # Its own process group, signalled as a terminal's Ctrl+C signals the foreground group,
    # and with Ctrl+C's default action, as a foreground job has it: run from a background
    # job (`make test &`), the suite inherits SIGINT ignored, which the batch would inherit
    # and rightly keep.
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("*.bvh")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the batch ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    rows = summary(out, "bake")
    statuses = {r["status"] for r in rows.values()}
    assert statuses <= {"ok", "not run"} and "not run" in statuses
    written = list(out.glob("*.bvh"))
    # Stopped files leave nothing half written: every output there is a whole clip (one
    # finished just as the signal came may be there while its row says "not run").
    assert {f for f, r in rows.items() if r["status"] == "ok"} <= {p.name for p in written} and len(written) < 6
    for p in written:
        assert read_bvh(p).clip.n_frames == 524
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left
    # Running again goes on from there.
    assert subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=300).returncode == 0
    assert {r["status"] for r in summary(out, "bake").values()} == {"ok", "exists"}


def test_retarget_gives_what_retarget_file_gives(tmp_path, capsys):
    from rigedit.retarget_cli import retarget_file

    clips, out = clip_folder(tmp_path), tmp_path / "out"
    assert main(["batch", "retarget", str(clips), "-o", str(out), "--onto", "humanoid", "-q"]) == 1
    rows = summary(out, "retarget")
    assert rows[BROKEN]["status"] == "error" and str(clips / BROKEN) in rows[BROKEN]["error"]
    # RiggedSimple is a two-joint chain, no figure to retarget: its own error, named.
    assert rows["RiggedSimple.glb"]["status"] == "error" and str(clips / "RiggedSimple.glb") in rows["RiggedSimple.glb"]["error"]
    for rel in ("pybvh_bvh_test1.bvh", "takes/walk_right.bvh"):
        assert rows[rel]["status"] == "ok", rows[rel]
        single = tmp_path / "single.bvh"
        retarget_file(clips / rel, "humanoid", single, force=True)
        assert_same_bvh(out / f"{_stem(rel)}.bvh", single)


def test_a_broken_preset_stops_the_batch_before_it_starts(tmp_path, capsys):
    clips, out = clip_folder(tmp_path, broken=False), tmp_path / "out"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for argv in (["bake", "--rig", str(bad)], ["retarget", "--onto", str(bad)], ["retarget", "--onto", "no_such_rig"]):
        assert main(["batch", argv[0], str(clips), "-o", str(out), *argv[1:], "-q"]) == 1
        assert argv[-1] in capsys.readouterr().err
        assert not out.exists()
