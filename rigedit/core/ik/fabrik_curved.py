"""The least-squares step's second try (fabrik_newton.dls), with the tip's curvature: Newton's
step on the squared tip distance over the joints' turns, for a step that overshot.

Out of reach, the least-squares step sees only the tip's tangent and asks the chain to
stretch past what it can: its turns came out in radians, and every halving of them still
ended farther off, so the solves see-sawed a few millimetres from the constrained optimum
(on random hinge/cone chains, near half the misses at the default cap). With the second
derivative the step knows that a chain held short of its target curls away from it as it
swings, and lands on the optimum in a few steps; near a target the chain reaches, the
curvature term vanishes and the step is the least-squares one.
"""
from __future__ import annotations

import math

import numpy as np

from .. import scalar_quat as sq
from ..jitable import fresh_cache
from . import fabrik_passes, limits
from .fabrik_passes import _jit, _row3, cross, dot

fresh_cache(__file__, sq, limits, fabrik_passes)

# Rounds of dropping the joints on a limit that the step would push past it, and solving
# again (both steps of fabrik_newton.dls).
ACTIVE_ROUNDS = 2
# The factor is retried with mu growing fourfold from a hundredth of the mean diagonal, at
# most this many times (from there, 4^24 covers any curvature a chain of metres can have).
GROW_TRIES = 24


@_jit
def curved(pts, ax, cols, side, e, lam, hess, turns):
    """The step with the tip's curvature: Newton's (J^T J + C + lam I) t = J^T e over the
    joints' axes (the rows of `cols` in use), C the second derivative of the squared tip
    distance's curvature part (turning axis a_j, then a_k further down, moves the tip by
    a_j x (a_k x r_k) to second order; r_k from joint k to the tip). e is the tip's error,
    `ax`, `cols` and `side` the axes, columns and limit sides fabrik_newton._measure gives.
    A joint on a limit that the step turns past it is left out and the step solved again;
    `hess` is work space (2m, 2m + 1), the joints' turns (rotation vectors) go to `turns`.
    Returns whether a step was found."""
    m = pts.shape[0] - 1
    rows = cols.shape[0]
    ok = False
    for _ in range(ACTIVE_ROUNDS + 1):
        _system(pts, ax, cols, e, hess)
        if not _cholesky_solve(hess, lam):
            return False
        ok = True
        dropped = False
        for r in range(0, rows, 2):
            if side[r] != 0.0 and side[r] * hess[r, rows] > 0.0:
                cols[r, 0], cols[r, 1], cols[r, 2] = 0.0, 0.0, 0.0
                side[r] = 0.0
                dropped = True
        if not dropped:
            break
    for k in range(m):
        w = (0.0, 0.0, 0.0)
        for r in (2 * k, 2 * k + 1):
            t = hess[r, rows]
            w = (w[0] + t * ax[r, 0], w[1] + t * ax[r, 1], w[2] + t * ax[r, 2])
        turns[k, 0], turns[k, 1], turns[k, 2] = w
    return ok


@_jit
def _system(pts, ax, cols, e, hess):
    """J^T J + C into hess[:, :rows] and J^T e into hess[:, rows] (see curved); a row not in
    use (zero column) gets a unit diagonal and nothing else, so its turn solves to 0."""
    m = pts.shape[0] - 1
    rows = cols.shape[0]
    tip = _row3(pts, m)
    d = (-e[0], -e[1], -e[2])
    for j in range(rows):
        cj = _row3(cols, j)
        used_j = cj[0] != 0.0 or cj[1] != 0.0 or cj[2] != 0.0
        hess[j, rows] = dot(cj, e)
        for k in range(j, rows):
            ck = _row3(cols, k)
            h = 0.0
            if used_j and (ck[0] != 0.0 or ck[1] != 0.0 or ck[2] != 0.0):
                r = (tip[0] - pts[k // 2, 0], tip[1] - pts[k // 2, 1], tip[2] - pts[k // 2, 2])
                h = dot(cj, ck) + dot(d, cross(_row3(ax, j), cross(_row3(ax, k), r)))
            elif j == k:
                h = 1.0
            hess[j, k] = h
            hess[k, j] = h


@_jit
def _cholesky_solve(a, lam):
    """Solve (A + mu I) x = b in place, A = a[:, :n] symmetric, b = a[:, n], x into a[:, n]
    (A's lower triangle is overwritten by the factor), mu the least of lam, then growing
    multiples of A's mean diagonal, that makes A + mu I positive definite: far from the
    optimum C can make A indefinite, and a step along a negative curvature is not Newton's.
    Returns whether a factor was found."""
    n = a.shape[0]
    scale = 0.0
    for i in range(n):
        scale += abs(a[i, i])
    scale = 1e-2 * scale / n + 1e-300
    low = np.empty((n, n))
    mu = lam
    for _ in range(GROW_TRIES):
        if _cholesky(a, mu, low):
            break
        mu = max(4.0 * mu, scale)
    else:
        return False
    for i in range(n):  # L y = b
        s = a[i, n]
        for k in range(i):
            s -= low[i, k] * a[k, n]
        a[i, n] = s / low[i, i]
    for i in range(n - 1, -1, -1):  # L^T x = y
        s = a[i, n]
        for k in range(i + 1, n):
            s -= low[k, i] * a[k, n]
        a[i, n] = s / low[i, i]
    return True


@_jit
def _cholesky(a, mu, low):
    """The Cholesky factor of a[:, :n] + mu I into `low`; False when it is not positive definite."""
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 1):
            s = a[i, j] + (mu if i == j else 0.0)
            for k in range(j):
                s -= low[i, k] * low[j, k]
            if i == j:
                if not s > 0.0:
                    return False
                low[i, i] = math.sqrt(s)
            else:
                low[i, j] = s / low[j, j]
    return True
