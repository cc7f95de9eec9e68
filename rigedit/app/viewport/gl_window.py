"""The surface the viewport draws on: a QOpenGLWindow (pyqtgraph's GLViewMixin) embedded in the
main window through `QWidget.createWindowContainer` (`GLWindow.container`).

Not a QOpenGLWidget: a GL widget makes Qt compose the whole top-level window through GL on
every frame, which under a software GL (llvmpipe, Xvfb) cost more than drawing the rig: an
empty 1018x742 view drew 30 frames a second as a widget and 130 as a window on the same
machine. The window is a native child of the main window, so QWidget.grab() leaves it blank:
screenshots take `grab_image()` (capture.grab_window puts it into the window's grab).

Frames: `before_frame()` runs on the window's update request, just before the frame is drawn
(the place to move the items), and `after_frame()` once it is drawn.
"""
from __future__ import annotations

import gc
import time

import shiboken6
from OpenGL import GL
from pyqtgraph.opengl.GLViewWidget import GLViewMixin
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QImage, QOpenGLContext
from PySide6.QtOpenGL import QOpenGLWindow
from PySide6.QtWidgets import QWidget


DEPTH_BITS = 24

# Input that reaches the container widget instead of the window: events a script or test
# sends to the widget named "viewport" (the window system sends its own to the window).
_FORWARDED = {
    QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick,
    QEvent.Type.MouseMove, QEvent.Type.Wheel, QEvent.Type.KeyPress, QEvent.Type.KeyRelease,
}


class _ForwardInput(QObject):
    """Hands the container's input to the GL window. The window fills the container, so a
    position in one is the same position in the other."""

    def __init__(self, window: QOpenGLWindow) -> None:
        super().__init__()
        self._window = window

    def eventFilter(self, obj, ev) -> bool:  # noqa: N802 (Qt's name)
        if ev.type() in _FORWARDED:
            QCoreApplication.sendEvent(self._window, ev.clone())
            return True
        return False


class GLWindow(GLViewMixin, QOpenGLWindow):
    frame_drawn = Signal()
    _in_before_frame = False  # a class default: pyqtgraph's __init__ asks for updates before ours runs

    def __init__(self, parent: QWidget | None = None) -> None:
        # The shared context: pyqtgraph compiles each shader once per process (see qt_setup).
        super().__init__(QOpenGLContext.globalShareContext())
        self.setObjectName("viewportWindow")
        # pyqtgraph makes its arrow-key orbit timer without a parent; owned by this window, it
        # ends with it instead of outliving a closed editor in the same process.
        self.keyTimer.setParent(self)
        # Ask for a depth buffer before the native window exists: a window's default format
        # has none (depth 0 under Xvfb/GLX), and then every item drawn later covers the
        # earlier ones whatever their depth (the uneven ground hid the legs standing on it).
        fmt = self.requestedFormat()
        fmt.setDepthBufferSize(DEPTH_BITS)
        self.setFormat(fmt)
        # A native window gets every mouse move, buttons or not: hover needs no tracking flag.
        self.container = QWidget.createWindowContainer(self, parent)
        self.container.setObjectName("viewport")
        self.container.setMinimumSize(320, 240)
        self.container.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self._forwarder = _ForwardInput(self)
        self.container.installEventFilter(self._forwarder)
        self.frames = 0  # paintGL calls, for the frame-rate readout
        self.last_frame_time = 0.0

    # --- frames ---------------------------------------------------------------------------

    def before_frame(self) -> None:
        """Called on each update request, before the frame is drawn; update() asks nothing here."""

    def after_frame(self) -> None:
        """Called once each frame is drawn."""

    def event(self, ev) -> bool:
        if ev.type() == QEvent.Type.UpdateRequest:
            self._in_before_frame = True  # the frame this request paints shows it all
            try:
                self.before_frame()
            finally:
                self._in_before_frame = False
        return super().event(ev)

    def update(self, *args) -> None:
        if not self._in_before_frame:
            super().update(*args)

    def request_frame(self) -> None:
        """Another frame, even when asked from before_frame (update() is ignored there)."""
        QOpenGLWindow.update(self)

    def paintGL(self) -> None:  # noqa: N802
        # No cyclic collection inside a frame: the garbage can be another editor's GL window
        # never closed, whose destructor makes its own context current and then none, and the
        # rest of this frame would draw without a context (pyqtgraph's items crash on that).
        collecting = gc.isenabled()
        gc.disable()
        try:
            super().paintGL()
        finally:
            if collecting:
                gc.enable()
        self.frames += 1
        self.last_frame_time = time.perf_counter()
        self.after_frame()
        self.frame_drawn.emit()

    # --- size, grabs, the end ---------------------------------------------------------------

    def getViewport(self) -> tuple[int, int, int, int]:  # noqa: N802 (pyqtgraph's name)
        # The container's size: the same as the window's once shown, and known before (the
        # camera is framed when the viewport is built, before the window has a size).
        return 0, 0, self.container.width(), self.container.height()

    def grab_image(self) -> QImage:
        """The scene as it stands, in device pixels (a null image before the window is shown).

        Drawn afresh into the back buffer and read from there, never swapped to the screen:
        what an earlier frame left in the back buffer is not defined after a swap."""
        if not self.isValid() or not self.isExposed():
            return QImage()
        self.makeCurrent()
        dpr = self.devicePixelRatioF()
        GL.glViewport(0, 0, int(self.width() * dpr), int(self.height() * dpr))
        region = self.getViewport()
        self.paint(region=region, viewport=region)
        return self.grabFramebuffer()

    def mapTo(self, widget: QWidget, pos: QPoint) -> QPoint:  # noqa: N802 (QWidget's name)
        """Where a point of this view is in `widget`'s coordinates (as QWidget.mapTo)."""
        return self.container.mapTo(widget, pos)

    def delete_window(self) -> None:
        """Delete the GL window and its container now. Left to Python's cyclic collector, the
        window would be destroyed whenever a collection runs, in the solver thread or in
        another window's frame (see paintGL)."""
        if shiboken6.isValid(self.container):
            self.clear()  # the items forget this view: a late change to one asks nothing of it
            self.container.deleteLater()
            QCoreApplication.sendPostedEvents(self.container, QEvent.Type.DeferredDelete)
