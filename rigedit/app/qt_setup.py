"""Qt settings that must be made before the QApplication exists."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt


def prepare_qt() -> None:
    """Share OpenGL contexts between widgets.

    pyqtgraph compiles each shader program once and caches it; without shared contexts the
    second GL widget in a process gets a program id from another context (GL error 1281 on
    glUseProgram) and draws nothing. Qt only honours this before the QApplication is made.
    """
    if QCoreApplication.instance() is None:
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
