"""The clip belongs to the document (issue 14 item 1): File > Import, scrub, File > Save,
File > Open in another window: the clip, the time and the timeline's range are back."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.app import dialogs
from rigedit.app.import_actions import install_import_actions
from rigedit.core.autochains import propose_chains
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.io.bvh import read_bvh
from rigedit.io.bvh_format import parse_bvh
from rigedit.io.gltf import read_gltf

from .helpers import wait_solved

DATA = Path("/work/shared/data")


@pytest.fixture
def errors(monkeypatch):
    shown = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text, reassurance="": shown.append((title, text)))
    return shown


def skeleton_of(path: Path):
    return read_bvh(path).skeleton if path.suffix == ".bvh" else read_gltf(path, up_axis="auto").skeleton


def sized_window(make_window, path: Path):
    """A window already showing a skeleton of the file's size (see test_import.walk_window:
    the viewport trips over a rig with more joints than it shows, which is not tested here)."""
    skeleton = skeleton_of(path)
    rig = Rig(skeleton)
    p = propose_chains(skeleton)[0]
    rig.add_chain(p.name, p.joints, solver=p.solver, target=p.target, pole=p.pole)
    return make_window(rig)


def every_frame(rig: Rig) -> np.ndarray:
    return rig.skeleton.fk_matrices(Pose(rig.clip.rotations, rig.clip.translations))[0]


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "CesiumMan.glb"])
def test_import_save_open_keeps_clip_time_and_range(make_window, qtbot, tmp_path, errors, name):
    path = DATA / name
    first = sized_window(make_window, path)
    importer = first.importer if hasattr(first, "importer") else install_import_actions(first)
    assert importer.import_file(path, ask=False)
    wait_solved(qtbot, first)
    clip = first.rig.clip
    # Goals do not follow the clip yet (issue 14 item 2, another branch): at weight 0 the
    # pose is the clip. (At weight 1 an out-of-reach FABRIK spine is left unsettled, and the
    # editor's solve after opening gives it another go, so the pose on screen may move on.)
    for chain in first.rig.chain_names:
        first.document.edit_chain(chain, "weight", {"weight": 0.0})
    panel = first.timeline_dock.widget()
    assert (panel.timeline.start, panel.timeline.end) == pytest.approx((0.0, clip.duration))
    panel.scrub_to(0.6 * clip.duration)
    wait_solved(qtbot, first)
    time = first.rig.time
    assert time == pytest.approx(0.6 * clip.duration, abs=clip.frame_time)
    shown = first.rig.world_positions()
    saved = tmp_path / "take.json"
    assert first.save_preset(saved)
    assert (tmp_path / "take.clip.npz").exists() and not first.isWindowModified()

    second = sized_window(make_window, path)
    assert second.open_preset(saved)
    wait_solved(qtbot, second)
    assert errors == []
    rig = second.rig
    assert rig.clip is not None and rig.clip.n_frames == clip.n_frames
    np.testing.assert_allclose(every_frame(rig), every_frame(first.rig), atol=1e-9)
    assert rig.clip.source.file == name
    assert rig.time == pytest.approx(time, abs=1e-12)
    height = float(np.ptp(every_frame(rig)[0], axis=0).max())
    np.testing.assert_allclose(rig.world_positions(), shown, atol=1e-6 * height)
    at_time = rig.skeleton.fk_matrices(clip.pose_at(time))[0]
    np.testing.assert_allclose(rig.world_positions(), at_time, atol=1e-6 * height)
    assert [rig.chain(c).weight for c in rig.chain_names] == [0.0] * len(rig.chain_names)
    panel2 = second.timeline_dock.widget()
    assert panel2.time == pytest.approx(time, abs=1e-12)
    assert panel2.timeline.frame_rate == pytest.approx(clip.frame_rate)
    assert (panel2.timeline.start, panel2.timeline.end) == pytest.approx((0.0, clip.duration))
    assert panel2.plot._range == pytest.approx((0.0, clip.duration))
    assert name in second.statusBar().currentMessage()
    if path.suffix == ".bvh":  # Export Baked BVH writes the file's own layout, after reopening too
        importer2 = second.importer if hasattr(second, "importer") else install_import_actions(second)
        assert importer2.export_bvh(tmp_path / "baked.bvh"), importer2.last_error
        src, baked = parse_bvh(path.read_text()), parse_bvh((tmp_path / "baked.bvh").read_text())
        assert [(j.name, j.channels) for j in baked.joints] == [(j.name, j.channels) for j in src.joints]


def test_a_missing_clip_file_keeps_the_rig_the_editor_had(make_window, qtbot, tmp_path, errors):
    path = DATA / "pybvh_bvh_test1.bvh"
    window = sized_window(make_window, path)
    imp = read_bvh(path)
    Rig(imp.skeleton, clip=imp.clip).save(tmp_path / "z.json")
    (tmp_path / "z.clip.npz").unlink()
    before = window.rig
    assert not window.open_preset(tmp_path / "z.json")
    assert window.rig is before
    [(title, text)] = errors
    assert str(tmp_path / "z.json") in text and str(tmp_path / "z.clip.npz") in text and "missing" in text


def test_autosave_keeps_the_clip_and_discarding_removes_its_file(tmp_path):
    from rigedit.app import recovery

    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    rig = Rig(imp.skeleton, clip=imp.clip)
    rig.time = 0.5
    rec = recovery.write_recovery(rig, tmp_path / "z.json")
    sidecar = rec.with_name(rec.stem + ".clip.npz")
    assert sidecar.exists()
    back = Rig.load(recovery.pending_recovery(tmp_path / "z.json"))
    assert back.clip.n_frames == imp.clip.n_frames and back.time == 0.5
    recovery.discard_recovery(tmp_path / "z.json")
    assert not rec.exists() and not sidecar.exists()


def test_a_preset_from_rigedit_import_opens_with_its_clip_range(make_window, qtbot, tmp_path, errors, capsys):
    from rigedit.import_cli import cmd_import

    path = DATA / "dataset-1_walk-right_normal_001.bvh"
    assert cmd_import([str(path), "-o", str(tmp_path / "walk.json")]) == 0
    window = sized_window(make_window, path)
    assert window.open_preset(tmp_path / "walk.json")
    wait_solved(qtbot, window)
    clip = window.rig.clip
    assert clip is not None and clip.n_frames == read_bvh(path).clip.n_frames
    panel = window.timeline_dock.widget()
    assert panel.timeline.frame_rate == pytest.approx(clip.frame_rate)
    assert (panel.timeline.start, panel.timeline.end) == pytest.approx((0.0, clip.duration))
    assert errors == []
