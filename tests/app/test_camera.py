"""Camera math: projection and rays agree, spheres and planes are hit where they are."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.app.viewport import camera

finite = st.floats(-2.0, 2.0, allow_nan=False)


def look_view(azimuth: float, elevation: float, distance: float, center) -> np.ndarray:
    """A view matrix built the textbook way (look-at), independent of pyqtgraph's."""
    a, e = math.radians(azimuth), math.radians(elevation)
    eye = np.asarray(center) + distance * np.array([math.cos(e) * math.cos(a), math.sin(e), math.cos(e) * math.sin(a)])
    f = np.asarray(center) - eye
    f /= np.linalg.norm(f)
    r = np.cross(f, [0.0, 1.0, 0.0])
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = r, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fov_deg: float, aspect: float, near: float, far: float) -> np.ndarray:
    t = 1.0 / math.tan(math.radians(fov_deg) / 2)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = t / aspect, t
    m[2, 2], m[2, 3] = (far + near) / (near - far), 2 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


cameras = st.tuples(st.floats(-180, 180), st.floats(-80, 80), st.floats(1.0, 20.0), st.tuples(finite, finite, finite))


@settings(max_examples=60, deadline=None)
@given(cam=cameras, point=st.tuples(finite, finite, finite), size=st.tuples(st.integers(200, 2000), st.integers(150, 1500)))
def test_the_ray_under_a_projected_point_passes_through_it(cam, point, size):
    view = look_view(*cam)
    mvp = perspective(50.0, size[0] / size[1], 0.01, 1000.0) @ view
    p = np.array(point)
    scr, in_front = camera.project(mvp, size, p)
    # The ray starts on the near plane (0.01 m): a point must lie beyond it, not only in front
    # of the eye. A point metres off to the side can be 7 mm deep, between the eye and the
    # near plane (hypothesis found one), where the ray is already past it.
    depth = -(view @ np.append(p, 1.0))[2]
    if not in_front or depth < 0.05:
        return
    origin, d = camera.screen_ray(mvp, size, *scr)
    to_p = p - origin
    miss = np.linalg.norm(to_p - d * (to_p @ d))
    assert miss < 1e-6 * max(1.0, np.linalg.norm(to_p))
    assert to_p @ d > 0


def test_project_puts_the_view_centre_in_the_middle_of_the_widget():
    view = look_view(30, 20, 5, (0.5, 1.0, -0.2))
    mvp = perspective(60, 1.5, 0.01, 100) @ view
    scr, in_front = camera.project(mvp, (900, 600), np.array([0.5, 1.0, -0.2]))
    assert in_front
    np.testing.assert_allclose(scr, [450, 300], atol=1e-9)


def test_camera_position_and_forward_come_back_from_the_view_matrix():
    view = look_view(0.0, 0.0, 4.0, (0, 1, 0))
    np.testing.assert_allclose(camera.camera_position(view), [4, 1, 0], atol=1e-12)
    np.testing.assert_allclose(camera.camera_forward(view), [-1, 0, 0], atol=1e-12)


def test_ray_spheres_hits_the_nearest_surface_and_misses_cleanly():
    o, d = np.zeros(3), np.array([0.0, 0.0, -1.0])
    t = camera.ray_spheres(o, d, np.array([[0, 0, -5], [0, 0, -2], [3, 0, -2], [0, 0, 4]]), np.array([1.0, 0.5, 0.5, 1.0]))
    np.testing.assert_allclose(t[:2], [4.0, 1.5])
    assert np.isinf(t[2]) and np.isinf(t[3])  # beside the ray; behind the origin


def test_ray_starting_inside_a_sphere_hits_it_at_zero():
    t = camera.ray_spheres(np.zeros(3), np.array([1.0, 0, 0]), np.zeros((1, 3)), np.array([1.0]))
    assert t[0] == 0.0


@given(point=st.tuples(finite, finite, finite), normal=st.tuples(finite, finite, finite))
def test_ray_plane_hit_lies_on_the_plane(point, normal):
    n = np.array(normal)
    if np.linalg.norm(n) < 1e-3:
        return
    origin, d = np.array([0.1, 0.2, 5.0]), np.array([0.0, 0.0, -1.0])
    hit = camera.ray_plane(origin, d, np.array(point), n)
    if hit is None:
        return
    assert abs((hit - np.array(point)) @ n) < 1e-9 * max(1.0, np.linalg.norm(n)) * 10
    np.testing.assert_allclose(hit[:2], origin[:2])


def test_framing_distance_fits_the_sphere_in_both_directions():
    for aspect in (0.5, 1.0, 2.0):
        d = camera.framing_distance(1.0, 60.0, aspect, margin=1.0)
        half_h = math.radians(30)
        half_v = math.atan(math.tan(half_h) / aspect)
        assert math.asin(1.0 / d) <= min(half_h, half_v) + 1e-12


def test_y_up_to_gl_is_a_proper_rotation_taking_y_to_z():
    r = camera.Y_UP_TO_GL[:3, :3]
    np.testing.assert_allclose(r @ r.T, np.eye(3))
    assert np.isclose(np.linalg.det(r), 1.0)
    np.testing.assert_allclose(r @ [0, 1, 0], [0, 0, 1])
