"""Camera math for the viewport: projecting world points to the widget and casting rays back.

Plain numpy on 4x4 matrices so it can be tested without a window. The rig is Y up; pyqtgraph's
camera orbits about Z. `Y_UP_TO_GL` turns the world a quarter turn about X (y -> z, z -> -y) so
the orbit's "up" is the rig's Y; the viewport puts it at the end of its view matrix, and every
item is then given plain world coordinates.

Screen coordinates are the widget's logical pixels, the ones mouse events carry. The projection
depends only on the aspect ratio, so the device pixel ratio (2 on a HiDPI screen, where the
framebuffer has twice the pixels) never enters: logical in, logical out.
"""
from __future__ import annotations

import math

import numpy as np

Y_UP_TO_GL = np.array(
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, -1.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
)


def qmatrix_to_numpy(m) -> np.ndarray:
    """A QMatrix4x4 as a row-major numpy array (Qt stores it column-major)."""
    return np.array(m.data(), dtype=np.float64).reshape(4, 4).T


def project(mvp: np.ndarray, size: tuple[float, float], points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Widget coordinates (..., 2) of world points (..., 3), and whether each is in front of the camera."""
    points = np.asarray(points, dtype=np.float64)
    h = np.concatenate((points, np.ones(points.shape[:-1] + (1,))), axis=-1)
    clip = h @ mvp.T
    w = clip[..., 3:4]
    in_front = w[..., 0] > 0.0
    ndc = clip[..., :2] / np.where(np.abs(w) > 1e-300, w, 1e-300)
    width, height = size
    sx = (ndc[..., 0] + 1.0) * 0.5 * width
    sy = (1.0 - ndc[..., 1]) * 0.5 * height
    return np.stack((sx, sy), axis=-1), in_front


def screen_ray(mvp: np.ndarray, size: tuple[float, float], x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """The ray (origin on the near plane, unit direction) under widget point (x, y)."""
    width, height = size
    nx = 2.0 * x / width - 1.0
    ny = 1.0 - 2.0 * y / height
    inv = np.linalg.inv(mvp)
    near = inv @ np.array([nx, ny, -1.0, 1.0])
    far = inv @ np.array([nx, ny, 1.0, 1.0])
    near = near[:3] / near[3]
    far = far[:3] / far[3]
    d = far - near
    return near, d / np.linalg.norm(d)


def ray_spheres(origin: np.ndarray, direction: np.ndarray, centers: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Distance along the ray to the first hit of each sphere, inf where it misses.

    A ray starting inside a sphere hits it at 0 (the near plane can cut through a handle when
    the camera is zoomed right in; the handle is still what the user points at).
    """
    centers = np.asarray(centers, dtype=np.float64).reshape(-1, 3)
    radii = np.broadcast_to(np.asarray(radii, dtype=np.float64), centers.shape[:1])
    oc = origin - centers
    b = oc @ direction
    c = np.einsum("ij,ij->i", oc, oc) - radii**2
    disc = b * b - c
    hit = disc >= 0.0
    root = np.sqrt(np.where(hit, disc, 0.0))
    t_near = -b - root
    t_far = -b + root
    t = np.where(t_near >= 0.0, t_near, np.where(t_far >= 0.0, 0.0, np.inf))
    return np.where(hit, t, np.inf)


def ray_plane(origin: np.ndarray, direction: np.ndarray, point: np.ndarray, normal: np.ndarray) -> np.ndarray | None:
    """Where the ray meets the plane through `point` with `normal`; None if parallel or behind."""
    denom = float(direction @ normal)
    if abs(denom) < 1e-12:
        return None
    t = float((point - origin) @ normal) / denom
    if t < 0.0:
        return None
    return origin + t * direction


def camera_position(view: np.ndarray) -> np.ndarray:
    """The eye, in the coordinates the view matrix takes in (world)."""
    inv = np.linalg.inv(view)
    return inv[:3, 3].copy()


def camera_forward(view: np.ndarray) -> np.ndarray:
    """Unit view direction (into the screen) in world coordinates."""
    inv = np.linalg.inv(view)
    f = inv[:3, :3] @ np.array([0.0, 0.0, -1.0])
    return f / np.linalg.norm(f)


def framing_distance(radius: float, fov_deg: float, aspect: float, margin: float = 1.15) -> float:
    """Camera distance at which a sphere of `radius` fits the view.

    pyqtgraph's fov is horizontal; a window wider than tall is limited by the vertical one.
    """
    half_h = math.radians(fov_deg) / 2.0
    half_v = math.atan(math.tan(half_h) / max(aspect, 1e-6))
    half = min(half_h, half_v)
    return margin * max(radius, 1e-3) / math.sin(half)


def camera_right_up(view: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit world directions of the screen's right and up."""
    inv = np.linalg.inv(view)[:3, :3]
    right, up = inv @ np.array([1.0, 0.0, 0.0]), inv @ np.array([0.0, 1.0, 0.0])
    return right / np.linalg.norm(right), up / np.linalg.norm(up)
