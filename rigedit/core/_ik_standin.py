"""TEMPORARY stand-in for rigedit.core.ik until the IK engineers land their solvers. Delete me."""
from types import SimpleNamespace

import numpy as np


def two_bone_ik(root, mid, end, target, pole=None, *, eps=1e-6):
    root, mid, end, target = (np.asarray(v, float) for v in (root, mid, end, target))
    a = np.linalg.norm(mid - root)
    b = np.linalg.norm(end - mid)
    d_vec = target - root
    d = np.linalg.norm(d_vec)
    reached = abs(a - b) <= d <= a + b
    dc = np.clip(d, abs(a - b) + 1e-12, a + b - 1e-12)
    u = d_vec / d
    if pole is not None:
        bend = np.asarray(pole, float) - root
    else:
        bend = mid - root
    bend = bend - u * np.dot(bend, u)
    nb = np.linalg.norm(bend)
    bend = bend / nb if nb > 1e-12 else np.array([0.0, 0.0, 1.0])
    x = (a * a - b * b + dc * dc) / (2 * dc)
    h = np.sqrt(max(a * a - x * x, 0.0))
    new_mid = root + u * x + bend * h
    dirv = target - new_mid
    new_end = new_mid + dirv / np.linalg.norm(dirv) * b
    return SimpleNamespace(mid=new_mid, end=new_end, reached=reached)


def fabrik(points, target, *, lengths=None, tolerance=1e-3, max_iterations=10, limits=None):
    p = np.array(points, float)
    target = np.asarray(target, float)
    L = np.linalg.norm(np.diff(p, axis=0), axis=1) if lengths is None else np.asarray(lengths, float)
    root = p[0].copy()
    errors = []
    err = np.linalg.norm(p[-1] - target)
    if np.linalg.norm(target - root) > L.sum():
        u = (target - root) / np.linalg.norm(target - root)
        p = root + np.concatenate(([0.0], np.cumsum(L)))[:, None] * u
        err = np.linalg.norm(p[-1] - target)
        return SimpleNamespace(points=p, iterations=0, error=err, errors=(), reached=err <= tolerance)
    it = 0
    while err > tolerance and it < max_iterations:
        p[-1] = target
        for i in range(len(p) - 2, -1, -1):
            d = p[i] - p[i + 1]
            p[i] = p[i + 1] + d / np.linalg.norm(d) * L[i]
        p[0] = root
        for i in range(1, len(p)):
            d = p[i] - p[i - 1]
            p[i] = p[i - 1] + d / np.linalg.norm(d) * L[i - 1]
        err = np.linalg.norm(p[-1] - target)
        errors.append(err)
        it += 1
    return SimpleNamespace(points=p, iterations=it, error=err, errors=tuple(errors), reached=err <= tolerance)
