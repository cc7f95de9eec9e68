"""Meshes and overlay lines the viewport draws."""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from rigedit.app.viewport.geometry import arc, circle, octahedral_bones, polyline_segments, wire_sphere
from rigedit.app.viewport.overlays import limit_lines, reach_shell
from rigedit.core.ik.limits import ConeLimit, HingeLimit

coord = st.floats(-3, 3, allow_nan=False)
vec = st.tuples(coord, coord, coord)


@given(heads=st.lists(vec, min_size=1, max_size=6), shift=st.lists(vec, min_size=1, max_size=6))
def test_octahedral_bones_span_head_to_tail_and_never_produce_nan(heads, shift):
    n = min(len(heads), len(shift))
    h = np.array(heads[:n])
    t = h + np.array(shift[:n])
    verts, faces = octahedral_bones(h, t)
    assert verts.shape == (6 * n, 3) and faces.shape == (8 * n, 3)
    assert np.all(np.isfinite(verts))
    np.testing.assert_allclose(verts[0::6], h)
    np.testing.assert_allclose(verts[1::6], t)
    assert faces.max() < len(verts)
    # The waist stays within the bone's length of the axis: no spikes.
    length = np.linalg.norm(t - h, axis=1)
    for k in range(2, 6):
        assert np.all(np.linalg.norm(verts[k::6] - h, axis=1) <= length * 0.3 + 1e-9)


def test_zero_length_bone_collapses_to_a_point():
    verts, _ = octahedral_bones(np.zeros((1, 3)), np.zeros((1, 3)))
    np.testing.assert_allclose(verts, 0.0)


def test_circle_is_closed_and_at_the_radius():
    c = circle((1, 2, 3), (0, 0, 2), 0.5, 24)
    np.testing.assert_allclose(c[0], c[-1], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(c - [1, 2, 3], axis=1), 0.5)
    np.testing.assert_allclose((c - [1, 2, 3]) @ [0, 0, 1], 0.0, atol=1e-12)


def test_polyline_segments_pairs_consecutive_points():
    line = np.arange(12, dtype=float).reshape(4, 3)
    segs = polyline_segments(line)
    np.testing.assert_array_equal(segs, line[[0, 1, 1, 2, 2, 3]])


def test_wire_sphere_points_lie_on_the_sphere():
    pts = wire_sphere((0.1, 0.2, 0.3), 0.7)
    np.testing.assert_allclose(np.linalg.norm(pts - [0.1, 0.2, 0.3], axis=1), 0.7)


def test_reach_shell_has_the_inner_and_outer_radii():
    pts = reach_shell(np.zeros(3), 0.3, 0.25)
    r = np.round(np.linalg.norm(pts, axis=1), 9)
    assert set(np.unique(r)) == {0.05, 0.55}


def test_arc_turns_from_min_to_max_about_the_axis():
    a = arc(np.zeros(3), (0, 0, 1), (1, 0, 0), np.radians(-30), np.radians(90), 2.0)
    np.testing.assert_allclose(a[0], 2 * np.array([np.cos(np.radians(-30)), np.sin(np.radians(-30)), 0]), atol=1e-12)
    np.testing.assert_allclose(a[-1], [0, 2, 0], atol=1e-12)


def _straight_chain():
    # root (0,0,0) -> j1 (0,1,0) -> j2 (0,2,0) -> tip (0,3,0); identity world rotations
    pos = np.array([[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0]], dtype=float)
    rot = np.tile([0, 0, 0, 1.0], (4, 1))
    parents = np.array([-1, 0, 1, 2])
    return pos, rot, parents


def test_hinge_limit_arc_sits_at_the_joint_between_its_angles():
    pos, rot, parents = _straight_chain()
    lines, colours = limit_lines(pos, rot, parents, [0, 1, 2, 3], {1: HingeLimit((1, 0, 0), 0.0, 90.0)})
    assert len(lines) == len(colours) > 0
    d = lines - pos[1]
    radius = np.linalg.norm(d, axis=1)
    on_arc = radius > 1e-9
    np.testing.assert_allclose(radius[on_arc], 0.35)  # LIMIT_SIZE of the 1 m bone
    np.testing.assert_allclose(d[:, 0], 0.0, atol=1e-12)  # in the plane across the x axis
    # 0 degrees is straight on (+y); positive turns toward +z about +x by the right-hand rule.
    ang = np.degrees(np.arctan2(d[on_arc, 2], d[on_arc, 1]))
    assert ang.min() > -1e-6 and abs(ang.max() - 90) < 1e-6


def test_cone_limit_rim_is_at_its_angle():
    pos, rot, parents = _straight_chain()
    lines, _ = limit_lines(pos, rot, parents, [0, 1, 2, 3], {2: ConeLimit(30.0)})
    d = lines - pos[2]
    away = np.linalg.norm(d, axis=1) > 1e-9
    cosang = (d[away] @ [0, 1, 0]) / np.linalg.norm(d[away], axis=1)
    np.testing.assert_allclose(cosang, np.cos(np.radians(30)), atol=1e-9)


def test_no_limits_draw_nothing():
    pos, rot, parents = _straight_chain()
    lines, colours = limit_lines(pos, rot, parents, [0, 1, 2, 3], {})
    assert lines.shape == (0, 3) and colours.shape == (0, 4)
