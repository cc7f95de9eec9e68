"""The editor (PySide6 + pyqtgraph). `MainWindow(rig=None)` builds it; see main_window.py."""
from .qt_setup import prepare_qt

prepare_qt()

from .main_window import MainWindow  # noqa: E402  (after prepare_qt: no QApplication may exist yet)

__all__ = ["MainWindow", "prepare_qt"]
