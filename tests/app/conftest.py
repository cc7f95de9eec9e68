"""GUI test set-up: shared GL contexts before any QApplication, a private config folder per
test, and a ready editor window whose solver has answered."""
from __future__ import annotations

import pytest

from rigedit.app.qt_setup import prepare_qt

prepare_qt()  # at import, before pytest-qt makes the QApplication


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    """Settings, recent files and recovery files of this test only."""
    d = tmp_path / "config"
    monkeypatch.setenv("RIGEDIT_CONFIG_DIR", str(d))
    return d


@pytest.fixture
def errors(monkeypatch):
    """The error dialogs the test's window would show, as (title, text), instead of showing them."""
    from rigedit.app import dialogs

    shown = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text, *more, **extra: shown.append((title, text)))
    return shown


@pytest.fixture
def make_window(qtbot):
    from rigedit.app import MainWindow

    from .helpers import wait_solved

    made = []

    def make(rig=None, path=None, size=(1100, 720)):
        w = MainWindow(rig, path, keep_layout=False)
        made.append(w)
        w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        wait_solved(qtbot, w)
        return w

    yield make
    for w in made:
        w.document.mark_saved()  # no "save changes?" prompt on the way out
        w.close()
        assert not w.solver.is_running()


@pytest.fixture
def window(make_window):
    return make_window()
