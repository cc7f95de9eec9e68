"""The import dialog's up-axis override: the Z-up sample opens upright, and picking +y in the
dialog reads it again as written (lying along +Z), with the chains proposed anew; a glTF
file can be told its up axis the same way."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from rigedit.app.import_dialog import ChainProposalDialog

from .test_import import importer, walk_window  # noqa: F401 - fixtures

DATA = Path("/work/shared/data")
ZUP = DATA / "pybvh_bvh_test1.bvh"


def _head_minus_foot(rig):
    pos, _ = rig.skeleton.fk_matrices(rig.clip.frame(0))
    return pos[rig.skeleton.index("Head")] - pos[rig.skeleton.index("LeftFoot")]


def _dialog():
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, ChainProposalDialog) and w.isVisible())


def test_the_z_up_file_opens_upright(walk_window, qtbot, errors):  # noqa: F811
    assert importer(walk_window).import_file(ZUP, ask=False)
    assert _head_minus_foot(walk_window.rig)[1] > 1.0
    assert "turned to +Y up" in importer(walk_window).last_summary
    assert errors == []


def test_the_dialog_offers_the_up_axis_and_rereads(walk_window, qtbot, errors):  # noqa: F811
    seen = {}

    def pick_y_and_accept():
        d = _dialog()
        seen["offered"] = d.up_box is not None and d.up_box.currentText() == "auto"
        seen["before"] = d.head.text()
        assert d.set_up_axis("+y")
        seen["after"] = d.head.text()
        seen["targets"] = [p.target for p in d.proposals]
        d.accept()

    QTimer.singleShot(200, pick_y_and_accept)
    assert importer(walk_window).import_file(ZUP)
    assert seen["offered"]
    assert "turned to +Y up" in seen["before"] and "turned" not in seen["after"]
    rig = walk_window.rig
    d = _head_minus_foot(rig)
    assert d[2] > 1.0 and abs(d[1]) < 0.5  # as written: lying along +Z
    # The chains were proposed from the re-read skeleton: targets where its tips are.
    pos, _ = rig.skeleton.fk_matrices(rig.clip.frame(0))
    for name, target in zip(rig.chain_names, seen["targets"]):
        tip = rig.chain(name).joints[-1]
        np.testing.assert_allclose(target, pos[rig.skeleton.index(tip)], atol=1e-9)
    assert errors == []


def test_gltf_is_upright_and_can_be_told_otherwise(walk_window, qtbot, errors):  # noqa: F811
    seen = {}

    def pick_z_and_accept():
        d = _dialog()
        seen["offered"] = d.up_box is not None
        assert d.set_up_axis("+z")
        seen["after"] = d.head.text()
        d.accept()

    QTimer.singleShot(200, pick_z_and_accept)
    assert importer(walk_window).import_file(DATA / "CesiumMan.glb")
    assert seen["offered"] and "turned from +z" in seen["after"]
    pos, _ = walk_window.rig.skeleton.fk_matrices(walk_window.rig.clip.frame(0))
    extent = np.ptp(pos, axis=0)
    assert extent[2] > 1.5 * max(extent[0], extent[1])  # told +Z was up: the standing figure now lies along -Z
    assert errors == []
