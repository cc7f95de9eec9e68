"""A guard against a reference-counting bug of PySide6 6.12 on Python 3.11.

PySide6 6.12's wheels (abi3, built for Python 3.10+) hand None back from void methods, and
pass True through Python-emitted signals, without taking a reference: correct from Python 3.12
on, where None and True are immortal, wrong on 3.11. Each such call then costs None or True
one reference, and after some thousands the interpreter frees them and aborts ("Fatal Python
error: none_dealloc" / "bool_dealloc"). The timeline's plot and playback make thousands of
such calls a second, so the editor would die within a minute of playing.

When (and only when) the bug shows itself, None, True and False are lent 2**40 references:
what Python 3.12 does for them by design, and harmless if the bug is fixed later (the guard
then does nothing). The real fix is a PySide6 without the bug, or Python >= 3.12; until then
this belongs in the app's start-up (qt_setup.prepare_qt), and lives here only because the
timeline is what trips the bug first.
"""
from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject

LENT = 1 << 40
_applied = False


def leaks_references() -> bool:
    """True when a void PySide6 call takes a reference from None (probed, not assumed)."""
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(16):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before


def protect_singletons() -> bool:
    """Apply the guard if this PySide6 needs it; True if it is in force."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or not leaks_references():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += LENT
    _applied = True
    return True
