"""A failed atomic save leaves the old file (and its .bak) whole and no temporary file behind,
whichever step fails: writing the new text, copying the backup, or either rename."""
from __future__ import annotations

import os

import pytest

from rigedit.io import atomic
from rigedit.io.atomic import atomic_write_text


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def _fail_on(monkeypatch, function, nth: int):
    """Make the nth call (1-based) of os.<function> raise OSError(ENOSPC)."""
    real = getattr(os, function)
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == nth:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(atomic.os, function, fake)
    return calls


@pytest.mark.parametrize(
    "function, nth",
    [
        ("replace", 1),  # the .bak rename
        ("replace", 2),  # the final rename
        ("fsync", 1),  # writing the new text
        ("fsync", 2),  # copying the old file to the .bak
    ],
)
def test_a_failed_save_leaves_the_old_files_and_no_temporary_file(function, nth, tmp_path, monkeypatch):
    target = tmp_path / "rig.json"
    target.write_text("old")
    (tmp_path / "rig.json.bak").write_text("older")
    calls = _fail_on(monkeypatch, function, nth)
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(target, "new")
    assert calls["n"] >= nth
    assert target.read_text() == "old"
    assert (tmp_path / "rig.json.bak").read_text() in ("older", "old")
    assert _names(tmp_path) == ["rig.json", "rig.json.bak"]


def test_a_failed_save_without_backup_leaves_nothing(tmp_path, monkeypatch):
    _fail_on(monkeypatch, "replace", 1)
    with pytest.raises(OSError):
        atomic_write_text(tmp_path / "out.bvh", "text", backup=False)
    assert _names(tmp_path) == []


def test_a_save_that_works_leaves_the_file_and_its_backup(tmp_path):
    target = tmp_path / "rig.json"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert (tmp_path / "rig.json.bak").read_text() == "one"
    assert _names(tmp_path) == ["rig.json", "rig.json.bak"]


def _folder_refuses(monkeypatch, folder):
    """mkstemp in `folder` fails as in a read-only folder: the kernel names the temporary file."""
    real = atomic.tempfile.mkstemp

    def fake(suffix=None, prefix=None, dir=None, text=False):
        if dir is not None and os.path.samefile(dir, folder):
            raise PermissionError(13, "Permission denied", os.path.join(dir, f"{prefix}k3j2x{suffix}"))
        return real(suffix=suffix, prefix=prefix, dir=dir, text=text)

    monkeypatch.setattr(atomic.tempfile, "mkstemp", fake)


@pytest.mark.parametrize("suffix", [".bvh", ".glb", ".json"])
def test_a_folder_that_refuses_the_write_is_reported_on_the_output_file(suffix, tmp_path, monkeypatch, capsys):
    from rigedit.cli import main

    locked = tmp_path / "locked"
    locked.mkdir()
    out = locked / f"walk{suffix}"
    _folder_refuses(monkeypatch, locked)
    command = ["import"] if suffix == ".json" else ["export", "-q"]
    assert main(command + ["/work/shared/data/pybvh_bvh_test1.bvh", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{out}: ") and "Permission denied" in err, err  # a preset names its clip file after it
    assert ".tmp" not in err and "Traceback" not in err
    assert _names(locked) == []
