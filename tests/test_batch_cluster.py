"""`rigedit batch ... --scheduler ADDRESS` on a two-worker LocalCluster (loopback only): the
same outputs as the local workers (bake, lint --fix, retarget), a broken file and a crashed worker reported, and the
message when dask.distributed is not installed."""
from __future__ import annotations

import sys

import dask
import pytest
from distributed import LocalCluster

from rigedit.batch.cluster import INSTALL, run_cluster
from rigedit.batch.plan import plan
from rigedit.cli import main

from tests.batch_helpers import BROKEN, GOOD, assert_same_bvh, clip_folder, crash_on_marked, findings_of, summary


@pytest.fixture(scope="module")
def scheduler():
    # A file that kills its worker is given up on at once (the default retries it on 3 more
    # workers, each restarted by its nanny: seconds for nothing here).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            yield cluster.scheduler_address


def _stem(rel: str) -> str:
    return rel.rsplit(".", 1)[0]


def test_bake_lint_and_retarget_give_the_local_outputs(tmp_path, scheduler, capsys):
    clips = clip_folder(tmp_path)
    for kind, extra in (("bake", []), ("lint", ["--fix"]), ("retarget", ["--onto", "humanoid"])):
        local, remote = tmp_path / f"{kind}-local", tmp_path / f"{kind}-cluster"
        assert main(["batch", kind, str(clips), "-o", str(local), "--workers", "2", "-q", *extra]) == 1
        assert main(["batch", kind, str(clips), "-o", str(remote), "--scheduler", scheduler, "-q", *extra]) == 1
        a, b = summary(local, kind), summary(remote, kind)
        assert {f: r["status"] for f, r in a.items()} == {f: r["status"] for f, r in b.items()}
        assert b[BROKEN]["status"] == "error" and str(clips / BROKEN) in b[BROKEN]["error"]
        for rel in GOOD:
            if kind == "retarget" and rel == "RiggedSimple.glb":
                assert "two-legged" in b[rel]["error"]  # a two-joint chain: nothing to retarget
                continue
            assert b[rel]["status"] == "ok", b[rel]
            if kind != "lint":
                assert_same_bvh(local / f"{_stem(rel)}.bvh", remote / f"{_stem(rel)}.bvh")
            else:
                assert findings_of(local / f"{_stem(rel)}.lint.json") == findings_of(remote / f"{_stem(rel)}.lint.json")
                if rel.endswith(".bvh"):
                    assert_same_bvh(local / rel, remote / rel)
    assert "the Dask cluster at" in capsys.readouterr().out


def test_a_crashed_worker_is_that_files_error(tmp_path, scheduler):
    clips = clip_folder(tmp_path, broken=False)
    (clips / "crash_me.bvh").write_text((clips / "pybvh_bvh_test1.bvh").read_text())
    results = []
    run_cluster(plan("lint", [str(clips)], str(tmp_path / "out")).jobs, scheduler, results.append, function=crash_on_marked)
    by_name = {r.name: r for r in results}
    assert set(by_name) == set(GOOD) | {"crash_me.bvh"}
    assert by_name["crash_me.bvh"].status == "crashed" and str(clips / "crash_me.bvh") in by_name["crash_me.bvh"].error
    assert all(by_name[rel].status == "ok" for rel in GOOD)


def test_without_distributed_the_error_says_what_to_install(tmp_path, monkeypatch, capsys):
    clips = clip_folder(tmp_path, broken=False)
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed: importing it raises ImportError
    assert main(["batch", "lint", str(clips), "-o", str(tmp_path / "out"), "--scheduler", "tcp://127.0.0.1:8786", "-q"]) == 1
    assert INSTALL in capsys.readouterr().err
    assert not list((tmp_path / "out").glob("*.lint.json"))
