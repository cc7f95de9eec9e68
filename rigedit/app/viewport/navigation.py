"""Viewport navigation presets: which mouse button and modifier orbit, pan and zoom the camera.

Blender: middle-drag orbits, Shift+middle pans, Ctrl+middle zooms, the wheel zooms; numpad 1 / 3 / 7
look from the front / right / top (Ctrl for back / left / bottom), numpad period frames the
selection. Maya: Alt+left orbits, Alt+middle pans, Alt+right zooms, the wheel zooms.
In both, a left press on a handle drags it and a left drag anywhere else leaves the camera
where it is (a missed handle must not turn the view). The numpad views work in both.

The preset is a per-user setting (the View menu's Navigation submenu), kept with the others.
"""
from __future__ import annotations

from PySide6.QtCore import Qt

from .. import settings

PRESETS = {"blender": "Blender", "maya": "Maya"}
DEFAULT_PRESET = "blender"
SETTING = "viewport/navigation"

ORBIT, PAN, ZOOM = "orbit", "pan", "zoom"

_B = Qt.MouseButton
_M = Qt.KeyboardModifier
# (button, the modifiers that matter) -> gesture; the modifiers are compared exactly, so
# Shift+Alt+left is nothing in Maya rather than an orbit.
_GESTURES = {
    "blender": {
        (_B.MiddleButton, _M.NoModifier): ORBIT,
        (_B.MiddleButton, _M.ShiftModifier): PAN,
        (_B.MiddleButton, _M.ControlModifier): ZOOM,
    },
    "maya": {
        (_B.LeftButton, _M.AltModifier): ORBIT,
        (_B.MiddleButton, _M.AltModifier): PAN,
        (_B.RightButton, _M.AltModifier): ZOOM,
    },
}
_RELEVANT = _M.ShiftModifier | _M.ControlModifier | _M.AltModifier | _M.MetaModifier

# Camera angles of the numpad views, in the viewport's (pyqtgraph's) azimuth and elevation,
# degrees. The rig faces +Z, so the front view looks from +Z and has +X on the right.
FRONT, BACK = (-90.0, 0.0), (90.0, 0.0)
RIGHT, LEFT = (0.0, 0.0), (180.0, 0.0)
TOP, BOTTOM = (-90.0, 90.0), (-90.0, -90.0)
VIEWS = {"front": FRONT, "back": BACK, "right": RIGHT, "left": LEFT, "top": TOP, "bottom": BOTTOM}

FRAME = "frame"  # numpad period: Frame Selected
_K = Qt.Key
# Blender's numpad: key with Num Lock on, the same key with it off -> (view, view with Ctrl).
# Qt marks both with KeypadModifier, which is what tells numpad 7 (Home with Num Lock off)
# from the Home key.
NUMPAD = [
    ((_K.Key_1, _K.Key_End), ("front", "back")),
    ((_K.Key_3, _K.Key_PageDown), ("right", "left")),
    ((_K.Key_7, _K.Key_Home), ("top", "bottom")),
    ((_K.Key_Period, _K.Key_Delete), (FRAME, FRAME)),
]


def numpad_command(key, modifiers) -> str | None:
    """The view name (or FRAME) a numpad key press asks for, or None for any other key.

    The viewport reads its key presses with this rather than leaving them to the View menu's
    shortcuts: Qt matches shortcuts against the keys the X keyboard map gives for the key
    pressed, and those carry no KeypadModifier, so a real numpad 1 matched no shortcut and a
    numpad 7 with Num Lock off matched Home (Reset Camera)."""
    if not modifiers & _M.KeypadModifier or modifiers & (_M.ShiftModifier | _M.AltModifier | _M.MetaModifier):
        return None
    ctrl = bool(modifiers & _M.ControlModifier)
    for keys, views in NUMPAD:
        if key in keys:
            return views[ctrl]
    return None


def gesture(preset: str, button, modifiers) -> str | None:
    """What a drag with `button` and `modifiers` does to the camera under `preset`, or None."""
    mods = modifiers & _RELEVANT
    return _GESTURES.get(preset, _GESTURES[DEFAULT_PRESET]).get((button, mods))


def bindings(preset: str) -> list[tuple[Qt.MouseButton, Qt.KeyboardModifier, str]]:
    """(button, modifiers, gesture) of every camera drag `preset` has (the Help menu lists them)."""
    return [(button, mods, g) for (button, mods), g in _GESTURES[preset].items()]


def saved_preset() -> str:
    value = settings.settings().value(SETTING, DEFAULT_PRESET)
    return value if value in PRESETS else DEFAULT_PRESET


def save_preset(preset: str) -> None:
    if preset not in PRESETS:
        raise ValueError(f"unknown navigation preset {preset!r} (one of {', '.join(PRESETS)})")
    s = settings.settings()
    s.setValue(SETTING, preset)
    s.sync()
