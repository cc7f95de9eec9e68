"""Frame Selected's fit (viewport/framing.py): every corner of the selection's box inside the
view with the margin to spare, and no farther back than that needs."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.app.viewport import camera, framing

from .test_camera import look_view, perspective

coord = st.floats(-2.0, 2.0, allow_nan=False)
side = st.floats(0.0, 1.5, allow_nan=False)


def corners_ndc(lo, hi, view, fov, aspect):
    corners = np.array([[a[0], b[1], c[2]] for a in (lo, hi) for b in (lo, hi) for c in (lo, hi)])
    h = np.concatenate((corners, np.ones((8, 1))), axis=1) @ (perspective(fov, aspect, 1e-4, 1e4) @ view).T
    assert (h[:, 3] > 0).all()  # every corner in front of the eye
    return h[:, :2] / h[:, 3:4]


@settings(max_examples=80, deadline=None)
@given(centre=st.tuples(coord, coord, coord), size=st.tuples(side, side, side),
       azimuth=st.floats(-180, 180), elevation=st.floats(-80, 80), aspect=st.floats(0.4, 3.0))
def test_the_box_fits_with_the_margin_and_touches_it(centre, size, azimuth, elevation, aspect):
    lo = np.array(centre) - np.array(size) / 2
    hi = lo + np.array(size)
    if max(size) < 1e-2:
        return
    v0 = look_view(azimuth, elevation, 1.0, (lo + hi) / 2)
    right, up = camera.camera_right_up(v0)
    fov_h = 60.0
    d = framing.fit_distance(lo, hi, right, up, fov_h, aspect)
    # perspective() takes the vertical fov; pyqtgraph's 60 degrees are the horizontal one.
    fov_v = math.degrees(2 * math.atan(math.tan(math.radians(fov_h) / 2) / aspect))
    ndc = np.abs(corners_ndc(lo, hi, look_view(azimuth, elevation, d, (lo + hi) / 2), fov_v, aspect))
    assert ndc.max() <= 1 / framing.MARGIN + 1e-9
    # Tight: a corner is on the margin, unless the box takes next to no room across (a line
    # seen end-on, as hypothesis found) and the eye is held just in front of its near side.
    corners = np.array([[a[0], b[1], c[2]] for a in (lo, hi) for b in (lo, hi) for c in (lo, hi)]) - (lo + hi) / 2
    near_side = float((corners @ np.cross(right, up)).max())
    held = math.isclose(d, near_side + framing.NEAR_CLEARANCE * float(np.linalg.norm(hi - lo)), rel_tol=1e-9)
    assert ndc.max() >= 1 / framing.MARGIN - 1e-6 or held


def test_a_line_seen_end_on_keeps_the_eye_in_front_of_it():
    lo, hi = np.array([-0.5, 0, 0]), np.array([0.5, 0, 0])
    view = look_view(0.0, 0.0, 1.0, (0, 0, 0))  # from +X, along the line
    right, up = camera.camera_right_up(view)
    d = framing.fit_distance(lo, hi, right, up, 60.0, 1.0)
    assert d >= 0.5 + 0.05  # the near end is 0.5 in front of the centre


def test_a_short_selection_is_seen_at_least_least_across():
    right, up = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
    point = np.zeros(3)
    d = framing.fit_distance(point, point, right, up, 60.0, 1.5, least=0.6)
    tan_v = math.tan(math.radians(30)) / 1.5
    np.testing.assert_allclose(2 * d * tan_v, framing.MARGIN * 0.6, rtol=1e-12)
    # A selection longer than `least` is framed by its own size.
    lo, hi = np.array([0, 0, 0.0]), np.array([0, 2.0, 0])
    assert framing.fit_distance(lo, hi, right, up, 60.0, 1.5, least=0.6) > d


def test_selection_box_holds_the_balls_whole():
    lo, hi = framing.selection_box(np.array([[0, 0, 0], [1, 2, 3.0]]), np.array([0.0, 0.5]))
    np.testing.assert_allclose(lo, [0, 0, 0])
    np.testing.assert_allclose(hi, [1.5, 2.5, 3.5])
