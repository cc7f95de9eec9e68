"""Stills of chosen frames of clip files, drawn by the editor's own viewport: `rigedit report`
puts them on each clip's page (rigedit/report/stills.py chooses the frames and runs this).

    python -m rigedit.app.stills REQUEST.json OUT_DIR

REQUEST.json: {"size": [w, h], "clips": [{"key", "path", "stills": [{"frame", "caption",
"joints"}]}]}. Each clip is read as File > Import reads it, with the mesh the report measured;
each still shows that frame (skeleton and skinned mesh), the named joints marked, framed from
the editor's start view, with its caption written in a corner. One viewport window, shown at
the still's size, is re-used for every still. OUT_DIR/result.json says, per clip key, the PNG
files written or why there are none; the exit status is 0 unless the GL view could not draw.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QMatrix4x4, QPainter
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from rigedit.core.rig import Rig
from rigedit.core.skeleton import Skeleton

from .capture import distinct_colours, wait_until
from .document import Document
from .import_actions import read_for_editing
from .qt_setup import prepare_qt
from .viewport.view import Viewport
from .viewport.view_camera import DEFAULT_AZIMUTH, DEFAULT_ELEVATION

MARK = (1.0, 0.25, 0.2, 0.95)  # the measured joints: red dots drawn over everything
MARK_PX = 13.0
# A drawn figure gives hundreds of colours; the cleared background alone gives one.
BLANK_COLOURS = 8


class StillStage:
    """One viewport in a small top-level window; `show_clip` puts a file's figure in it,
    `render` draws one frame of it into an image."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.holder = QWidget()
        self.holder.setWindowTitle("rigedit stills")
        self.holder.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        # A one-joint rig until the first clip replaces it: the document needs one to start.
        self.document = Document(Rig(Skeleton(["root"], [-1], np.zeros((1, 3)), np.array([[0.0, 0.0, 0.0, 1.0]]))))
        self.viewport = Viewport(self.document, self.holder)
        layout = QVBoxLayout(self.holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.viewport.container)
        self.viewport.container.setMinimumSize(*size)
        self.holder.setFixedSize(*size)
        self.mark = gl.GLScatterPlotItem(pos=np.zeros((0, 3)), size=MARK_PX, color=MARK, pxMode=True)
        self.mark.setGLOptions({GL.GL_DEPTH_TEST: False, GL.GL_BLEND: True,
                                "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)})
        self.mark.setDepthValue(100)  # after every other item
        self.viewport.addItem(self.mark)
        self.holder.show()
        if not wait_until(lambda: self.viewport.isExposed() and self.viewport.isValid(), 20.0):
            raise RuntimeError("the stills' GL window was never shown (no usable display or OpenGL)")
        self._grid_base: QMatrix4x4 | None = None

    def show_clip(self, path: str):
        """Read `path` and show its figure (mesh and bones where it has a mesh); the clip."""
        loaded = read_for_editing(Path(path))
        if loaded.clip is None:
            raise ValueError(f"{path}: the file has no frames")
        mesh = None
        reader = loaded.format.mesh_reader()
        if reader is not None:
            try:
                mesh, _ = reader(path, loaded)
            except ValueError:
                mesh = None  # the page's notes already say the mesh could not be read
        rig = Rig(loaded.skeleton, clip=loaded.clip, name=Path(path).stem)
        self.document.replace_rig(rig, None, mesh)
        self.viewport.set_view_mode("both" if mesh is not None else "bones")
        # The origin's axis lines stay where the grid was made; the grid follows the figure
        # (_grid_under), and the lines far behind it would only puzzle.
        self.viewport.axes.setVisible(False)
        self._grid_base = QMatrix4x4(self.viewport.grid.transform())
        return loaded.clip

    def render(self, clip, frame: int, joints: list[str], caption: str):
        """The image of `frame` with `joints` marked and `caption` written on it."""
        rig = self.document.rig
        rig.time = frame * clip.frame_time
        rig.pose = clip.frame(frame)
        vp = self.viewport
        vp.sync()
        # The body handle (a box in a ring at the hips) is for dragging, not part of the figure.
        vp.gizmos.balls.hide()
        vp.gizmos.lines.hide()
        pos = rig.world_positions()
        known = [rig.skeleton.index(j) for j in joints if j in rig.skeleton.names]
        self.mark.setData(pos=pos[known].astype(np.float32) if known else np.zeros((0, 3), np.float32))
        box = vp.mesh_view.bounds()
        vp.frame_points(pos if box is None else np.concatenate([pos, box]),
                        azimuth=DEFAULT_AZIMUTH, elevation=DEFAULT_ELEVATION)
        self._grid_under(pos)
        img = vp.grab_image()
        if img.isNull():
            raise RuntimeError("the GL window gave no image")
        _write_caption(img, caption)
        return img

    def _grid_under(self, pos: np.ndarray) -> None:
        """The floor grid moved under the figure (a walk leaves the grid made for its start),
        by whole grid steps so its lines stay on the same world places."""
        grid = self.viewport.grid
        step = float(grid.spacing()[0]) or 1.0
        dx, dz = (round(float(pos[:, k].mean()) / step) * step for k in (0, 2))
        grid.setTransform(self._grid_base)
        grid.translate(dx, 0.0, dz)

    def close(self) -> None:
        self.viewport.dispose()
        self.holder.close()
        self.holder.deleteLater()


def _write_caption(img, caption: str) -> None:
    p = QPainter(img)
    font = QFont()
    font.setPixelSize(max(11, img.height() // 28))
    p.setFont(font)
    box = QRect(8, 6, img.width() - 16, img.height() // 4)
    p.setPen(QColor(0, 0, 0, 200))
    p.drawText(box.translated(1, 1), int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), caption)
    p.setPen(QColor(240, 240, 240))
    p.drawText(box, int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), caption)
    p.end()


def render_stills(request: dict, out_dir: Path) -> dict:
    """Every clip's stills as PNGs in out_dir; {key: {"files": [...], "error": str or None}}."""
    stage = StillStage(tuple(request.get("size", (480, 360))))
    done: dict = {}
    try:
        for i, item in enumerate(request["clips"]):
            files: list[str] = []
            try:
                clip = stage.show_clip(item["path"])
                for k, still in enumerate(item["stills"]):
                    img = stage.render(clip, int(still["frame"]), list(still.get("joints", ())), still["caption"])
                    if distinct_colours(img) < BLANK_COLOURS:
                        raise RuntimeError(f"frame {still['frame']} drew blank")
                    name = f"{i}_{k}.png"
                    if not img.save(str(out_dir / name)):
                        raise OSError(f"cannot write {out_dir / name}")
                    files.append(name)
                done[item["key"]] = {"files": files, "error": None}
            except (ValueError, OSError, RuntimeError) as e:
                done[item["key"]] = {"files": files, "error": str(e)}
    finally:
        stage.close()
    return done


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m rigedit.app.stills REQUEST.json OUT_DIR", file=sys.stderr)
        return 2
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    out_dir = Path(argv[1])
    prepare_qt()
    app = QApplication.instance() or QApplication(["rigedit-stills"])  # noqa: F841 - lives until exit
    try:
        done = render_stills(request, out_dir)
    except RuntimeError as e:
        print(f"stills: {e}", file=sys.stderr)
        return 1
    (out_dir / "result.json").write_text(json.dumps({"clips": done}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
