"""The ground's mesh for the viewport: the height field sampled on a grid, with the cells that
the eye cannot tell from one bigger cell merged into it (issue 13: the uneven-ground scene's
drag frame rate).

The software GL pays for every triangle it draws, however small (~0.4 us a frame each
under llvmpipe: 20,000 triangles held the uneven-ground scene under 60 fps), and most of a
terrain is plane: a slope, a tread between steps. So the grid is cut into squares (a
quadtree over it) and a square is one piece when the heights and colours of every grid
point in it lie within HEIGHT_TOL_M and COLOUR_TOL of what its corners interpolate to;
otherwise it is split in four; single cells side by side in a row that a straight line
still fits are joined into strips (a step's riser runs along a row). A piece is drawn from its corners alone, or, where smaller
neighbours put corners on its edges, as a fan around its centre through those corners as
well: neighbours then share every vertex along their common edge, so the surface has no
cracks. Every vertex is a grid point with its own height and colour, as on the full grid.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

# A piece may differ from the grid under it by this much: 2 mm is under a pixel as the
# editor frames a rig (a 1280 pixel view 3 m off spans ~2.5 mm a pixel), and the shading's
# tolerance (x 0.62 at most in a channel) under one step of an 8-bit channel.
HEIGHT_TOL_M = 2e-3
COLOUR_TOL = 0.006


def ground_grid(field, centre, half: float, cells: int):
    """(xs, zs, heights (n, n), luminance (n, n)) of the field on a grid of `cells` cells a
    side around `centre` (x, z): rows are z, columns x."""
    n = cells + 1
    xs = np.linspace(centre[0] - half, centre[0] + half, n)
    zs = np.linspace(centre[1] - half, centre[1] + half, n)
    x, z = np.meshgrid(xs, zs)
    y = field.height(x, z)
    # Shade by the surface's slope toward a light up and to the side, plus a hint of height,
    # so steps and bumps read without a lighting shader.
    normal = field.normal(x, z)
    light = np.array([0.35, 0.85, 0.4]) / np.linalg.norm([0.35, 0.85, 0.4])
    # The height bands are the fragment shader's (ground_shader.py): drawn per pixel they
    # need no vertices along their edges.
    return x, z, y, 0.35 + 0.45 * np.clip(normal @ light, 0.0, 1.0)


def _flat(values: np.ndarray, size: int, tol: float) -> np.ndarray:
    """For each aligned square of `size` cells, whether every grid value in it lies within
    tol of the bilinear interpolation of its four corners."""
    win = sliding_window_view(values, (size + 1, size + 1))[::size, ::size]
    u = np.linspace(0.0, 1.0, size + 1)
    a, b = (1.0 - u)[:, None], u[:, None]  # along z (rows)
    c, d = (1.0 - u)[None, :], u[None, :]  # along x (columns)
    c00, c01 = win[..., :1, :1], win[..., :1, -1:]
    c10, c11 = win[..., -1:, :1], win[..., -1:, -1:]
    bilinear = a * c * c00 + a * d * c01 + b * c * c10 + b * d * c11
    return np.abs(win - bilinear).max(axis=(-1, -2)) <= tol


def quadtree_pieces(y: np.ndarray, lum: np.ndarray, cells: int, root: int) -> list[tuple[int, int, int]]:
    """The squares (row, column of the corner, size in cells) that tile the grid: each as
    big as the tolerances allow, at most `root` cells (a power of two dividing `cells`)."""
    flat = {}
    size = root
    while size >= 2:
        flat[size] = _flat(y, size, HEIGHT_TOL_M) & _flat(lum, size, COLOUR_TOL)
        size //= 2
    pieces = []
    stack = [(r, c, root) for r in range(0, cells, root) for c in range(0, cells, root)]
    while stack:
        r, c, s = stack.pop()
        if s == 1 or flat[s][r // s, c // s]:
            pieces.append((r, c, s))
        else:
            h = s // 2
            stack.extend(((r, c, h), (r, c + h, h), (r + h, c, h), (r + h, c + h, h)))
    return pieces


def _linear(row: np.ndarray, tol: float) -> bool:
    """Whether the values lie within tol of the line through the first and the last."""
    u = np.linspace(0.0, 1.0, len(row))
    return bool(np.abs(row - (row[0] + u * (row[-1] - row[0]))).max() <= tol)


def strips(y: np.ndarray, lum: np.ndarray, pieces: list) -> tuple[list, list]:
    """The one-cell pieces side by side in a row merged into strips (row, column, cells
    long) where both their edges stay within the tolerances of a straight line (a step's
    riser runs along a row: a square cannot take more than one cell of it): (the other
    pieces, the strips)."""
    rows: dict = {}
    rest = []
    for r, c, s in pieces:
        if s == 1:
            rows.setdefault(r, []).append(c)
        else:
            rest.append((r, c, s))
    out = []
    for r, cols in rows.items():
        cols.sort()
        k = 0
        while k < len(cols):
            start, end = cols[k], cols[k] + 1
            while k + 1 < len(cols) and cols[k + 1] == end:
                ok = all(_linear(v[r + i, start : end + 2], t) for v, t in ((y, HEIGHT_TOL_M), (lum, COLOUR_TOL)) for i in (0, 1))
                if not ok:
                    break
                end += 1
                k += 1
            out.append((r, start, end - start))
            k += 1
    return rest, out


def mesh_faces(pieces: list, n: int, runs: list = ()) -> tuple[np.ndarray, np.ndarray]:
    """(faces (m, 3) as flat grid indices row * n + column, the grid indices they use) for
    the pieces on a grid of n points a side and the one-row strips (strips()),
    counter-clockwise in (x, z) as the full grid's."""
    corner = np.zeros((n, n), dtype=bool)
    for r, c, s in pieces:
        corner[r, c] = corner[r, c + s] = corner[r + s, c] = corner[r + s, c + s] = True
    for r, c, w in runs:
        corner[r, c] = corner[r, c + w] = corner[r + 1, c] = corner[r + 1, c + w] = True
    faces = []
    for r, c, w in runs:
        # Both long edges with every neighbour's corner on them, zipped: each triangle
        # takes the next point of the edge whose next point comes first.
        low = [c + k for k in np.flatnonzero(corner[r, c : c + w + 1])]
        high = [c + k for k in np.flatnonzero(corner[r + 1, c : c + w + 1])]
        i = j = 0
        while i + 1 < len(low) or j + 1 < len(high):
            if j + 1 >= len(high) or (i + 1 < len(low) and low[i + 1] <= high[j + 1]):
                faces.append((r * n + low[i], r * n + low[i + 1], (r + 1) * n + high[j]))
                i += 1
            else:
                faces.append((r * n + low[i], (r + 1) * n + high[j + 1], (r + 1) * n + high[j]))
                j += 1
    for r, c, s in pieces:
        if s > 1:
            # The piece's edge, counter-clockwise from its (r, c) corner, with every corner
            # of a neighbour lying on it.
            ring = [r * n + c + k for k in np.flatnonzero(corner[r, c : c + s])]
            ring += [(r + k) * n + c + s for k in np.flatnonzero(corner[r : r + s, c + s])]
            ring += [(r + s) * n + c + s - k for k in np.flatnonzero(corner[r + s, c + 1 : c + s + 1][::-1])]
            ring += [(r + s - k) * n + c for k in np.flatnonzero(corner[r + 1 : r + s + 1, c][::-1])]
            if len(ring) > 4:
                mid = (r + s // 2) * n + c + s // 2
                faces.extend((mid, ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring)))
                continue
        a = r * n + c
        e = s * n  # one piece's side along z
        faces.append((a, a + s, a + e))
        faces.append((a + s, a + e + s, a + e))
    faces = np.array(faces, dtype=np.int64)
    return faces, np.unique(faces)


def ground_mesh(field, centre=(0.0, 0.0), half: float = 5.0, cells: int = 128, root: int = 32):
    """Vertices (k, 3), faces (m, 3) and vertex colours (k, 4) of the field around `centre`
    (x, z), `cells` cells a side (a multiple of `root`, a power of two), merged as the module
    says."""
    x, z, y, lum = ground_grid(field, centre, half, cells)
    pieces, runs = strips(y, lum, quadtree_pieces(y, lum, cells, root))
    faces, used = mesh_faces(pieces, cells + 1, runs)
    index = np.full((cells + 1) ** 2, -1, dtype=np.int64)
    index[used] = np.arange(len(used))
    verts = np.stack([x.ravel()[used], y.ravel()[used], z.ravel()[used]], axis=1)
    lum = lum.ravel()[used]
    colours = np.stack([lum * 0.62, lum * 0.6, lum * 0.45, np.full_like(lum, 0.9)], axis=1)
    return verts.astype(np.float32), index[faces].astype(np.uint32), colours.astype(np.float32)
