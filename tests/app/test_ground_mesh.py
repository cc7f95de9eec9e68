"""The viewport's ground mesh (issue 13): merged where the terrain is plane, yet a surface
without cracks whose every vertex is a grid point on the field, and within the height
tolerance of the field at every grid point."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rigedit.app.viewport import ground_mesh as gm
from rigedit.core.ground import HeightField, flat_ground, slope_ground

HALF, CELLS, ROOT = 1.6, 32, 16


def _fields():
    rng = np.random.default_rng(7)
    rough = HeightField(rng.normal(0.0, 0.02, (40, 40)), 0.1, (-2.0, -2.0))
    return {"slope": slope_ground(), "flat": flat_ground(), "rough": rough}


@pytest.fixture(params=["slope", "flat", "rough"])
def field(request):
    return _fields()[request.param]


def test_every_vertex_is_a_grid_point_on_the_field(field):
    verts, _, colours = gm.ground_mesh(field, (0.3, 1.9), HALF, CELLS, ROOT)
    step = 2 * HALF / CELLS
    for axis, c in ((0, 0.3), (2, 1.9)):
        k = (verts[:, axis] - (c - HALF)) / step
        assert np.allclose(k, np.round(k), atol=1e-3)
    assert np.allclose(verts[:, 1], field.height(verts[:, 0], verts[:, 2]), atol=1e-6)
    assert colours.shape == (len(verts), 4)


def test_the_pieces_tile_the_square_without_cracks(field):
    verts, faces, _ = gm.ground_mesh(field, (0.3, 1.9), HALF, CELLS, ROOT)
    xz = verts[:, [0, 2]].astype(np.float64)
    a, b, c = xz[faces[:, 0]], xz[faces[:, 1]], xz[faces[:, 2]]
    area = 0.5 * ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))
    assert np.all(area > 0.0)  # all counter-clockwise in (x, z), none degenerate
    assert np.isclose(area.sum(), (2 * HALF) ** 2, rtol=1e-5)
    # Watertight: an edge inside the square is shared by exactly two triangles, run both ways
    # (a T-junction would leave an edge used once away from the border).
    edges = Counter()
    for f in faces.tolist():
        for i in range(3):
            edges[(f[i], f[(i + 1) % 3])] += 1
    lo, hi = xz.min(axis=0), xz.max(axis=0)
    for (p, q), count in edges.items():
        assert count == 1
        if (q, p) not in edges:
            on_border = [np.isclose(xz[p, k], v) and np.isclose(xz[q, k], v) for k in (0, 1) for v in (lo[k], hi[k])]
            assert any(on_border), f"edge {xz[p]} -> {xz[q]} has one side"


def _mesh_height(verts, faces, x, z):
    xz = verts[:, [0, 2]].astype(np.float64)
    out = np.full(len(x), np.nan)
    p = np.stack([x, z], axis=1)
    for f in faces:
        a, b, c = xz[f]
        m = np.array([b - a, c - a]).T
        u, v = np.linalg.solve(m, (p - a).T)
        inside = (u >= -1e-5) & (v >= -1e-5) & (u + v <= 1 + 1e-5)  # the vertices are float32
        h = verts[f, 1].astype(np.float64)
        out[inside] = h[0] + u[inside] * (h[1] - h[0]) + v[inside] * (h[2] - h[0])
    return out


@pytest.mark.parametrize("name, centre, half, cells, root", [
    ("slope", (0.0, -1.2), 5.0, 128, 32),  # as the uneven-ground scene shows it: bumps, steps
    ("rough", (0.3, 1.9), HALF, CELLS, ROOT),
])
def test_the_surface_keeps_to_the_field_at_every_grid_point(name, centre, half, cells, root):
    field = _fields()[name]
    verts, faces, _ = gm.ground_mesh(field, centre, half, cells, root)
    x, z, y, _ = gm.ground_grid(field, centre, half, cells)
    got = _mesh_height(verts, faces, x.ravel(), z.ravel())
    assert not np.any(np.isnan(got))
    # A piece is within the tolerance of its corners' bilinear patch; its triangles differ
    # from that patch by at most its twist, which the same tolerance bounds on a plane-like
    # piece: twice the tolerance in all.
    assert np.max(np.abs(got - y.ravel())) <= 2 * gm.HEIGHT_TOL_M + 1e-6


def test_plane_ground_is_merged_and_rough_ground_is_not():
    fields = _fields()
    full = 2 * CELLS * CELLS
    assert len(gm.ground_mesh(fields["flat"], (0.0, 0.0), HALF, CELLS, ROOT)[1]) <= 8
    assert len(gm.ground_mesh(fields["slope"], (0.0, -1.2), 5.0, 128, 32)[1]) < 0.25 * 2 * 128 * 128
    assert len(gm.ground_mesh(fields["rough"], (0.0, 0.0), HALF, CELLS, ROOT)[1]) > 0.8 * full
