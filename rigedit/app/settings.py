"""Where the editor keeps its settings (recent files, window layout) and recovery files.

`RIGEDIT_CONFIG_DIR`, when set, holds everything (tests set it so they never touch the
user's own settings); otherwise Qt's per-user location for "rigedit" is used.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

MAX_RECENT = 10


def config_dir() -> Path:
    env = os.environ.get("RIGEDIT_CONFIG_DIR")
    if env:
        path = Path(env)
    else:
        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
        path = Path(base or Path.home() / ".config") / "rigedit"
    path.mkdir(parents=True, exist_ok=True)
    return path


def settings() -> QSettings:
    return QSettings(str(config_dir() / "rigedit.ini"), QSettings.Format.IniFormat)


def recent_files() -> list[str]:
    value = settings().value("recent_files", [])
    if isinstance(value, str):  # QSettings gives a bare string for a one-item list
        value = [value]
    return [str(v) for v in (value or [])]


def add_recent_file(path: str | Path) -> list[str]:
    path = str(Path(path).resolve())
    files = [path] + [f for f in recent_files() if f != path]
    files = files[:MAX_RECENT]
    s = settings()
    s.setValue("recent_files", files)
    s.sync()
    return files


def clear_recent_files() -> None:
    s = settings()
    s.setValue("recent_files", [])
    s.sync()


def view_mode(default: str = "both") -> str:
    """View > Mesh / Bones / Both, as last chosen ("mesh", "bones" or "both")."""
    value = settings().value("view_mode", default)
    return value if value in ("mesh", "bones", "both") else default


def save_view_mode(mode: str) -> None:
    s = settings()
    s.setValue("view_mode", mode)
    s.sync()
