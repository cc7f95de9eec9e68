"""The viewport's camera: matrices, projections to and from the screen, framing (Home,
Frame Selected (framing.py), the six side views) and the navigation preset.

A mixin of Viewport (view.py), which holds the state it reads: `doc`, `container`, `drag`,
`mesh_view`, `_camera_moved`, `_gesture`. The rig is Y up; pyqtgraph orbits about Z, so
every matrix goes through camera.Y_UP_TO_GL.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QMatrix4x4, QVector3D

from . import camera, framing, navigation

_Y_UP = QMatrix4x4(*camera.Y_UP_TO_GL.flatten().tolist())
DEFAULT_AZIMUTH = -62.0  # degrees: a three-quarter view from the character's front-left
DEFAULT_ELEVATION = 12.0


class ViewCamera:

    def viewMatrix(self) -> QMatrix4x4:  # noqa: N802 (Qt's name)
        # pyqtgraph orbits about Z; the rig is Y up (see camera.Y_UP_TO_GL).
        return super().viewMatrix() * _Y_UP

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        vp = self.getViewport()
        view = camera.qmatrix_to_numpy(self.viewMatrix())
        proj = camera.qmatrix_to_numpy(self.projectionMatrix(vp, vp))
        return view, proj

    def _size(self) -> tuple[float, float]:
        return float(max(self.container.width(), 1)), float(max(self.container.height(), 1))

    def world_to_screen(self, xyz) -> QPointF:
        """Widget coordinates (logical pixels, as mouse events use) of a world point."""
        view, proj = self.matrices()
        pt, _ = camera.project(proj @ view, self._size(), np.asarray(xyz, dtype=np.float64))
        return QPointF(float(pt[0]), float(pt[1]))

    def ray(self, pos: QPointF) -> tuple[np.ndarray, np.ndarray]:
        view, proj = self.matrices()
        return camera.screen_ray(proj @ view, self._size(), pos.x(), pos.y())

    def camera_forward(self) -> np.ndarray:
        return camera.camera_forward(self.matrices()[0])

    def pixel_size(self, world: np.ndarray) -> float:
        """World size of one pixel at this point."""
        view, _ = self.matrices()
        dist = float(np.linalg.norm(camera.camera_position(view) - world))
        return dist * 2.0 * math.tan(0.5 * math.radians(self.opts["fov"])) / self._size()[0]

    def look_at(self, center, distance: float | None = None, azimuth: float | None = None,
                elevation: float | None = None) -> None:
        gl_center = camera.Y_UP_TO_GL[:3, :3] @ np.asarray(center, dtype=np.float64)
        self.setCameraPosition(pos=QVector3D(*[float(v) for v in gl_center]), distance=distance,
                               azimuth=azimuth, elevation=elevation)
        self._camera_moved = True

    def set_navigation(self, preset: str) -> None:
        if preset not in navigation.PRESETS:
            raise ValueError(f"unknown navigation preset {preset!r} (one of {', '.join(navigation.PRESETS)})")
        self.navigation = preset
        self._gesture = None

    def view_from(self, name: str) -> None:
        """Look from one side (navigation.VIEWS: front, back, right, left, top, bottom),
        about the same centre and at the same distance."""
        azimuth, elevation = navigation.VIEWS[name]
        self.setCameraPosition(azimuth=azimuth, elevation=elevation)
        self._camera_moved = True

    def frame_points(self, points: np.ndarray, **angles) -> None:
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        lo, hi = points.min(axis=0), points.max(axis=0)
        center = (lo + hi) / 2
        radius = float(np.linalg.norm(hi - lo)) / 2
        w, h = self._size()
        self.look_at(center, camera.framing_distance(radius, self.opts["fov"], w / h), **angles)

    def reset_camera(self) -> None:
        """The start view (Home): the whole scene from the front-left, for the view's size now."""
        self.frame_points(self._scene_points(), azimuth=DEFAULT_AZIMUTH, elevation=DEFAULT_ELEVATION)
        self._camera_moved = False

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(ev)
        # The view is framed when built, before the window has its size (and aspect); until the
        # user moves the camera, the start view is framed again for each new size, so it is
        # the very view Home gives.
        if not self._camera_moved and not self._disposed and self.drag.active is None:
            self.reset_camera()

    def frame_selected(self) -> None:
        """Frame the selected joints' bones (each joint and its children), else the selected
        chain (its joints and target ball); the whole scene (Frame All) without either.
        framing.py says how far back, and why a short selection is widened."""
        rig, doc = self.doc.rig, self.doc
        figure = max(float(np.ptp(self._figure_points(), axis=0).max()), 1e-3)
        if doc.selected_joints:
            sk = rig.skeleton
            idx = [sk.index(n) for n in doc.selected_joints]
            near = idx + [c for c in range(len(sk.parents)) if sk.parents[c] in idx]  # their bones' ends
            pts, radii, share = rig.world_positions()[near], 0.0, framing.JOINT_CONTEXT
        elif doc.selected:
            ch = rig.chain(doc.selected)
            pts = np.array([rig.world_position(j) for j in ch.joints] + [rig.shown_target(ch.name)])
            radii = np.zeros(len(pts))
            radii[-1] = self.gizmos.radius  # the target ball is seen whole
            share = framing.CHAIN_CONTEXT
        else:
            self.frame_all()
            return
        lo, hi = framing.selection_box(pts, radii)
        right, up = camera.camera_right_up(self.matrices()[0])
        w, h = self._size()
        self.look_at((lo + hi) / 2, framing.fit_distance(lo, hi, right, up, self.opts["fov"], w / h, share * figure))

    def frame_all(self) -> None:
        """The whole scene (the figure, its targets, the clip's path) from where the camera
        looks now."""
        self.frame_points(self._scene_points())

    def _figure_points(self) -> np.ndarray:
        """The figure as it stands now: its joints, and its mesh's box when one is shown."""
        box = self.mesh_view.bounds()
        pos = self.doc.rig.world_positions()
        return pos if box is None else np.concatenate([pos, box])

    def _scene_points(self) -> np.ndarray:
        rig = self.doc.rig
        pts = [rig.world_positions()] + [rig.shown_target(n)[None] for n in rig.chain_names]
        # --- issue 8 (INTEGRATION): a clip that carries the body away (a walk) is framed
        # whole: the rig as it stands, moved to each end of the root's path.
        clip = rig.clip
        if clip is not None and clip.n_frames > 1:
            here = pts[0] - pts[0][0]
            for f in (0, clip.n_frames // 2, clip.n_frames - 1):
                pts.append(here + clip.translations[f, 0])
        # --- end issue 8
        box = self.mesh_view.bounds()  # issue 15: the mesh reaches past the joints (the head's top)
        if box is not None:
            pts.append(box)
        return np.concatenate(pts)
