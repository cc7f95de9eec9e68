"""Keys and clicks as the X server sends them (XTest, through ctypes), for what QTest cannot
show: QTest's key events carry no native scan code, so Qt matches shortcuts against the key
QTest names, while a real key press is matched against the keys the X keyboard map gives,
which carry no KeypadModifier (a real numpad 7 with Num Lock off matched Home).

`x_input()` hands back an XInput, or skips the test where the platform is not X11 or the
X server has no XTest (pytest-xvfb's Xvfb has it)."""
from __future__ import annotations

import ctypes
import ctypes.util

import pytest
from PySide6.QtGui import QGuiApplication

KP_END, KP_NEXT, KP_HOME, KP_DELETE = 0xFF9C, 0xFF9B, 0xFF95, 0xFF9F  # keysyms; the key is the same with Num Lock on
NUM_LOCK, CONTROL_L = 0xFF7F, 0xFFE3


class XInput:
    def __init__(self, x11, xtst, display: ctypes.c_void_p) -> None:
        self._x11, self._xtst, self._dpy = x11, xtst, display

    def _code(self, keysym: int) -> int:
        return self._x11.XKeysymToKeycode(self._dpy, ctypes.c_ulong(keysym))

    def key(self, keysym: int, *held: int) -> None:
        """Press and release `keysym` with the keys `held` down around it."""
        codes = [self._code(k) for k in held]
        for c in codes:
            self._xtst.XTestFakeKeyEvent(self._dpy, c, 1, 0)
        c = self._code(keysym)
        self._xtst.XTestFakeKeyEvent(self._dpy, c, 1, 0)
        self._xtst.XTestFakeKeyEvent(self._dpy, c, 0, 0)
        for c in reversed(codes):
            self._xtst.XTestFakeKeyEvent(self._dpy, c, 0, 0)
        self._x11.XFlush(self._dpy)

    def click(self, x: int, y: int) -> None:
        """A left click at screen position (x, y)."""
        self._xtst.XTestFakeMotionEvent(self._dpy, -1, x, y, 0)
        self._xtst.XTestFakeButtonEvent(self._dpy, 1, 1, 0)
        self._xtst.XTestFakeButtonEvent(self._dpy, 1, 0, 0)
        self._x11.XFlush(self._dpy)

    def close(self) -> None:
        self._x11.XCloseDisplay(self._dpy)


def x_input() -> XInput:
    if QGuiApplication.platformName() != "xcb":
        pytest.skip(f"real X input needs the xcb platform, not {QGuiApplication.platformName()}")
    libs = [ctypes.util.find_library(n) for n in ("X11", "Xtst")]
    if not all(libs):
        pytest.skip("libX11 or libXtst is not installed")
    x11, xtst = (ctypes.CDLL(lib) for lib in libs)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    display = ctypes.c_void_p(x11.XOpenDisplay(None))  # the one Qt uses ($DISPLAY)
    if not display.value:
        pytest.skip("cannot open the X display")
    out = (ctypes.c_int * 4)()
    if not xtst.XTestQueryExtension(display, *[ctypes.byref(out, 4 * i) for i in range(4)]):
        x11.XCloseDisplay(display)
        pytest.skip("the X server has no XTest extension")
    return XInput(x11, xtst, display)
