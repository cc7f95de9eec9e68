"""`rigedit report`'s stills: each clip page shows its worst frames drawn by the editor's
viewport as PNGs inside the page, at the frames the numbers name; --no-stills leaves them out;
without a way to draw them the page and the output say why."""
from __future__ import annotations

import base64
import html
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from rigedit.app.capture import image_array
from rigedit.app.viewport import palette
from rigedit.cli import main
from rigedit.report import stills
from rigedit.report.measure import measure_file
from rigedit.report.still_frames import MAX_STILLS

DATA = Path("/work/shared/data")
FILES = [DATA / "cmu_12_01_walk.bvh", DATA / "CesiumMan.glb"]
FIGURE = re.compile(r'<figure class="still" data-frame="(\d+)"><img alt="[^"]*" src="data:image/png;base64,([^"]+)">'
                    r"<figcaption>([^<]*)</figcaption>")
SECTION = re.compile(r'<section id="clip-\d+"><h2>([^<]*)</h2>(.*?)</section>', re.S)


def _report(tmp_path: Path, *extra: str) -> tuple[str, dict, int]:
    out, js = tmp_path / "r.html", tmp_path / "r.json"
    code = main(["report", *map(str, FILES), "-o", str(out), "--json", str(js), "--workers", "1", *extra])
    rows = {Path(r["file"]).name: r for r in json.loads(js.read_text())["clips"]}
    return out.read_text(encoding="utf-8"), rows, code


def _sections(page: str) -> dict[str, str]:
    return {Path(html.unescape(name)).name: body for name, body in SECTION.findall(page)}


def _not_blank(png: bytes) -> None:
    img = QImage.fromData(png, "PNG")
    assert not img.isNull() and img.width() >= 200 and img.height() >= 150
    a = image_array(img).astype(int)
    background = np.array([round(255 * c) for c in palette.BACKGROUND[:3]])
    off = np.abs(a - background).max(axis=-1) > 12
    assert off.mean() > 0.05  # grid, figure and caption: far more than a cleared view
    # The figure is in the middle of the frame, framed: the centre third is not just floor.
    h, w = off.shape
    centre = a[h // 3: 2 * h // 3, w // 3: 2 * w // 3].reshape(-1, 3)
    assert len(np.unique(centre @ np.array([65536, 256, 1]))) > 64


def _check_frame(frame: int, caption: str, row: dict, tracks: dict) -> None:
    assert caption.startswith(f"frame {frame} ({frame / row['fps']:.2f} s): ")
    named = []
    if "self-penetration of the mesh" in caption:
        named.append(row["mesh_penetration_frame"] == frame)
    elif "self-penetration" in caption:
        named.append(row["self_penetration_frame"] == frame)
    if "foot skate" in caption:
        named.append(tracks["skating"][frame] == 1)
    if "jerk spike" in caption:
        named.append(frame in row["jitter_spike_frames"] and tracks["jerk"][frame] == max(tracks["jerk"][f] for f in row["jitter_spike_frames"]))
    if "ground penetration" in caption:
        named.append(row["ground_penetration_frame"] == frame)
    if "middle frame" in caption:
        named.append(row["foot_skate_share"] in (None, 0) and not row["jitter_spike_frames"])
    assert named and all(named), caption


def test_each_clip_page_shows_its_worst_frames_drawn_by_the_viewport(tmp_path, capsys):
    page, rows, code = _report(tmp_path)
    assert code == 0
    assert "drawn by the viewport" in capsys.readouterr().out
    sections = _sections(page)
    assert set(sections) == {f.name for f in FILES}
    for name, body in sections.items():
        figures = FIGURE.findall(body)
        assert 1 <= len(figures) <= MAX_STILLS
        _, tracks, _ = measure_file(str(DATA / name))
        frames = [int(f) for f, _, _ in figures]
        assert len(set(frames)) == len(frames)
        images = []
        for frame, data, caption in figures:
            png = base64.b64decode(data)
            _not_blank(png)
            _check_frame(int(frame), html.unescape(caption), rows[name], tracks)
            images.append(png)
        if len(images) > 1:
            assert len(set(images)) == len(images)  # each still draws its own frame
    walk = FIGURE.findall(sections["cmu_12_01_walk.bvh"])
    assert any("foot skate" in c for _, _, c in walk)  # the CMU walk skates (its summary says so)
    assert rows["cmu_12_01_walk.bvh"]["foot_skate_share"] > 0


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
def test_without_a_display_the_stills_are_drawn_under_xvfb_run(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    out = tmp_path / "r.html"
    assert main(["report", str(FILES[1]), "-o", str(out), "--workers", "1"]) == 0
    assert "drawn by the viewport" in capsys.readouterr().out
    figures = FIGURE.findall(out.read_text(encoding="utf-8"))
    assert figures
    for _, data, _ in figures:
        _not_blank(base64.b64decode(data))


def test_no_stills_leaves_them_out(tmp_path):
    page, _, code = _report(tmp_path, "--no-stills")
    assert code == 0
    assert "<figure" not in page and 'id="stills-note"' not in page


def test_without_a_way_to_draw_the_report_says_why(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(stills.shutil, "which", lambda name: None)
    page, rows, code = _report(tmp_path)
    assert code == 0 and len(rows) == len(FILES)  # the numbers are all there
    err = capsys.readouterr().err
    assert "no stills: there is no display" in err and "xvfb" in err
    assert 'id="stills-note"' in page and "<figure" not in page


def test_a_display_that_cannot_draw_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DISPLAY", ":4321")  # no X server there
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(stills.shutil, "which", lambda name: None)
    page, _, code = _report(tmp_path)
    assert code == 0
    err = capsys.readouterr().err
    assert "no stills: drawing on the display :4321 failed" in err
    assert "<figure" not in page and ":4321" in page
