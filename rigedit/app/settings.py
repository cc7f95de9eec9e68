"""Where the editor keeps its settings (recent files, window layout, the folders file dialogs
last showed) and recovery files.

`RIGEDIT_CONFIG_DIR`, when set, holds everything (tests set it so they never touch the
user's own settings); otherwise Qt's per-user location for "rigedit" is used.
"""
from __future__ import annotations

import json
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


def add_recent_file(path: str | Path, import_options: dict | None = None) -> list[str]:
    """Put `path` first in Open Recent. `import_options` (JSON-able: up axis, animation) mark
    it as an import, to be read again the same way; None marks a preset."""
    path = str(Path(path).resolve())
    files = [path] + [f for f in recent_files() if f != path]
    files = files[:MAX_RECENT]
    options = {f: o for f, o in _recent_imports().items() if f in files and f != path}
    if import_options is not None:
        options[path] = dict(import_options)
    s = settings()
    s.setValue("recent_files", files)
    s.setValue("recent_imports", json.dumps(options))
    s.sync()
    return files


def remove_recent_file(path: str | Path) -> list[str]:
    path = str(path)
    files = [f for f in recent_files() if f != path]
    options = {f: o for f, o in _recent_imports().items() if f != path}
    s = settings()
    s.setValue("recent_files", files)
    s.setValue("recent_imports", json.dumps(options))
    s.sync()
    return files


def recent_import_options(path: str | Path) -> dict | None:
    """How a recent import was read ({"up": ..., "animation": ...}), or None for a preset."""
    return _recent_imports().get(str(path))


def _recent_imports() -> dict[str, dict]:
    # Kept as one JSON text: QSettings takes "/" in a key as a group, and paths are full of them.
    try:
        value = json.loads(str(settings().value("recent_imports", "{}") or "{}"))
    except ValueError:
        return {}  # a hand-edited settings file: forget the options, keep the list
    return {str(k): v for k, v in value.items() if isinstance(v, dict)} if isinstance(value, dict) else {}


def clear_recent_files() -> None:
    s = settings()
    s.setValue("recent_files", [])
    s.setValue("recent_imports", "{}")
    s.sync()


def last_folder(kind: str) -> str:
    """The folder the `kind` file dialog ("import", ...) last showed, if it still exists; else ""."""
    value = settings().value(f"folders/{kind}", "")
    return str(value) if value and Path(str(value)).is_dir() else ""


def set_last_folder(kind: str, folder: str | Path) -> None:
    s = settings()
    s.setValue(f"folders/{kind}", str(Path(folder).resolve()))
    s.sync()


def view_mode(default: str = "both") -> str:
    """View > Mesh / Bones / Both, as last chosen ("mesh", "bones" or "both")."""
    value = settings().value("view_mode", default)
    return value if value in ("mesh", "bones", "both") else default


def save_view_mode(mode: str) -> None:
    s = settings()
    s.setValue("view_mode", mode)
    s.sync()


def pose_library_folder() -> Path:
    """The pose library dock's folder: the one last chosen, else `poses` in the user's data
    folder for rigedit (in the config folder when RIGEDIT_CONFIG_DIR is set, as in tests)."""
    value = settings().value("pose_library/folder", "")
    if value:
        return Path(str(value))
    if os.environ.get("RIGEDIT_CONFIG_DIR"):
        return config_dir() / "poses"
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(base or Path.home() / ".local" / "share") / "rigedit" / "poses"


def set_pose_library_folder(folder: str | Path) -> None:
    s = settings()
    s.setValue("pose_library/folder", str(Path(folder).resolve()))
    s.sync()
