"""The retarget options dialog is made from core/retarget/options.py's fields, as the
command's flags are (rigedit/retarget_flags.py): every option has its box, a box clicked or
a choice picked with the mouse and keyboard is the option the dialog gives back, and an
option declared once (a field with its metadata) is in the dialog and on the command line."""
from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, field, fields

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QDialogButtonBox

from rigedit.app.retarget_dialog import RetargetOptionsDialog, widget_name
from rigedit.core.retarget import RetargetOptions
from rigedit.retarget_flags import add_option_flags, option_values

from .test_retarget_menu import pick_choice


@dataclass(frozen=True)
class WithMore(RetargetOptions):
    """The options with two more, declared only here."""
    mirror: bool = field(default=False, metadata={"help": "mirror the clip left for right", "label": "&Mirror"})
    speed: str = field(default="same", metadata={"choices": ("same", "half", "double"), "help": "playback speed",
                                                 "label": "&Speed:", "choice_labels": ("As is", "Half", "Double")})


def _answer(qtbot, dialog, clicks: list[str], picks: dict) -> None:
    dialog.show()
    qtbot.waitExposed(dialog)
    for name in clicks:
        box = dialog.findChild(QCheckBox, widget_name(name))
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    for name, value in picks.items():
        pick_choice(qtbot, dialog.findChild(QComboBox, widget_name(name)), value)
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert dialog.result() == RetargetOptionsDialog.DialogCode.Accepted


def _random_answer(kind, rng):
    """Boxes to click and choices to pick, at random, and the options they should give."""
    start = kind()
    clicks = [f.name for f in fields(kind) if "choices" not in f.metadata and rng.random() < 0.5]
    picks = {f.name: rng.choice(f.metadata["choices"]) for f in fields(kind) if "choices" in f.metadata}
    want = {f.name: getattr(start, f.name) for f in fields(kind)}
    want.update({n: not want[n] for n in clicks}, **picks)
    return start, clicks, picks, kind(**want)


@pytest.mark.parametrize("kind", [RetargetOptions, WithMore], ids=["options", "one more declared"])
def test_every_option_has_its_box_and_the_dialog_gives_back_what_was_set(qtbot, kind):
    rng = random.Random()
    start, clicks, picks, want = _random_answer(kind, rng)
    dialog = RetargetOptionsDialog(start, "walk.bvh")
    qtbot.addWidget(dialog)
    for f in fields(kind):
        box = dialog.findChild(QComboBox if "choices" in f.metadata else QCheckBox, widget_name(f.name))
        assert box is not None, f.name
        if isinstance(box, QCheckBox):
            assert box.text() == f.metadata["label"] and box.isChecked() == f.default
        else:
            assert [box.itemData(i) for i in range(box.count())] == list(f.metadata["choices"])
    _answer(qtbot, dialog, clicks, picks)
    assert dialog.options() == want


def test_an_option_declared_once_is_a_flag_and_a_box(qtbot):
    """WithMore's two fields: `--mirror` and `--speed` on the command line, and the dialog's
    boxes, without a line written for them anywhere else."""
    p = argparse.ArgumentParser()
    add_option_flags(p, WithMore)
    from_flags = WithMore(**option_values(p.parse_args(["--mirror", "--speed", "half", "--no-foot-lock"]), WithMore))
    dialog = RetargetOptionsDialog(WithMore(), "walk.bvh")
    qtbot.addWidget(dialog)
    _answer(qtbot, dialog, ["mirror", "lock_feet"], {"speed": "half"})
    assert dialog.options() == from_flags == WithMore(mirror=True, speed="half", lock_feet=False)


def test_the_dialog_opens_on_the_options_it_is_given(qtbot):
    rng = random.Random()
    _, _, _, given = _random_answer(RetargetOptions, rng)
    dialog = RetargetOptionsDialog(given, "walk.bvh")
    qtbot.addWidget(dialog)
    _answer(qtbot, dialog, [], {})
    assert dialog.options() == given
