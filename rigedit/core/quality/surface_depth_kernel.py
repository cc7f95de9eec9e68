"""How far points lie inside a triangle surface, compiled: each point's closest point on the
triangles around its nearest surface vertices, and the surface normal there (interpolated from
the vertex normals), give a signed depth (mesh_contact.py says what the measure does with it).

Closest point on a triangle: Ericson, Real-Time Collision Detection, 5.1.5 (the Voronoi regions
of the vertices, edges and face, in that order).
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _dot(ax, ay, az, bx, by, bz):
    return ax * bx + ay * by + az * bz


@numba.njit(cache=True, nogil=True)
def _closest(p, a, b, c):
    """(u, v, w): barycentric weights of the point of triangle abc closest to p (rows of
    three floats; written out in components, as numba would allocate for each difference)."""
    abx, aby, abz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    acx, acy, acz = c[0] - a[0], c[1] - a[1], c[2] - a[2]
    d1 = _dot(abx, aby, abz, p[0] - a[0], p[1] - a[1], p[2] - a[2])
    d2 = _dot(acx, acy, acz, p[0] - a[0], p[1] - a[1], p[2] - a[2])
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    d3 = _dot(abx, aby, abz, p[0] - b[0], p[1] - b[1], p[2] - b[2])
    d4 = _dot(acx, acy, acz, p[0] - b[0], p[1] - b[1], p[2] - b[2])
    if d3 >= 0.0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return 1.0 - t, t, 0.0
    d5 = _dot(abx, aby, abz, p[0] - c[0], p[1] - c[1], p[2] - c[2])
    d6 = _dot(acx, acy, acz, p[0] - c[0], p[1] - c[1], p[2] - c[2])
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return 1.0 - t, 0.0, t
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - t, t
    den = 1.0 / (va + vb + vc)
    v, w = vb * den, vc * den
    return 1.0 - v - w, v, w


@numba.njit(cache=True, nogil=True)
def depths(points, verts, normals, tris, near, start, incident, straight):
    """(P,) depth of each point behind the surface (negative: in front; -inf: not straight
    behind it, see mesh_contact.STRAIGHT_BEHIND). near (P, K): each point's nearest surface
    vertices; a vertex's triangles are incident[start[v]:start[v + 1]]."""
    out = np.empty(len(points))
    for i in range(len(points)):
        p = points[i]
        best = np.inf
        cx = cy = cz = nx = ny = nz = 0.0
        for k in range(near.shape[1]):
            v = near[i, k]
            for e in range(start[v], start[v + 1]):
                t0, t1, t2 = tris[incident[e], 0], tris[incident[e], 1], tris[incident[e], 2]
                u, s, w = _closest(p, verts[t0], verts[t1], verts[t2])
                qx = u * verts[t0, 0] + s * verts[t1, 0] + w * verts[t2, 0]
                qy = u * verts[t0, 1] + s * verts[t1, 1] + w * verts[t2, 1]
                qz = u * verts[t0, 2] + s * verts[t1, 2] + w * verts[t2, 2]
                d = (p[0] - qx) ** 2 + (p[1] - qy) ** 2 + (p[2] - qz) ** 2
                if d < best:
                    best, cx, cy, cz = d, qx, qy, qz
                    nx = u * normals[t0, 0] + s * normals[t1, 0] + w * normals[t2, 0]
                    ny = u * normals[t0, 1] + s * normals[t1, 1] + w * normals[t2, 1]
                    nz = u * normals[t0, 2] + s * normals[t1, 2] + w * normals[t2, 2]
        n_len = np.sqrt(nx * nx + ny * ny + nz * nz)
        if best == np.inf or n_len == 0.0:  # no triangle of the surface near, or no normal there
            out[i] = -np.inf
            continue
        depth = _dot(cx - p[0], cy - p[1], cz - p[2], nx, ny, nz) / n_len
        out[i] = depth if depth >= straight * np.sqrt(best) else -np.inf
    return out
