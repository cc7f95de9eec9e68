"""`rigedit report ... --scheduler ADDRESS` on a two-worker LocalCluster (loopback only): the
same numbers as in one process."""
from __future__ import annotations

import json

import pytest
from distributed import LocalCluster

from rigedit.cli import main
from rigedit.core.quality import METRICS

from tests.test_report_cli import SMALL, _library


@pytest.fixture(scope="module")
def scheduler():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_the_cluster_gives_the_numbers_of_one_process(tmp_path, scheduler):
    clips = _library(tmp_path, broken=True)
    one, many = tmp_path / "1.json", tmp_path / "c.json"
    assert main(["report", str(clips), "-o", str(tmp_path / "1.html"), "--json", str(one), "--workers", "1", "-q"]) == 1
    assert main(["report", str(clips), "-o", str(tmp_path / "c.html"), "--json", str(many), "--scheduler", scheduler, "-q"]) == 1
    a, b = json.loads(one.read_text()), json.loads(many.read_text())
    assert [e["clip"] for e in b["errors"]] == ["broken.bvh"]
    assert [r["clip"] for r in a["clips"]] == [r["clip"] for r in b["clips"]] and len(b["clips"]) == len(SMALL)
    for ra, rb in zip(a["clips"], b["clips"]):
        for key, _, _ in METRICS:
            assert (ra[key] is None) == (rb[key] is None)
            if ra[key] is not None:
                assert rb[key] == pytest.approx(ra[key], rel=1e-9, abs=1e-12), key
    assert "Dask cluster" in b["summary"]

