"""Hypothesis strategies and checks shared by the FABRIK tests: random chains from 1 cm to
100 m, with the degenerate cases real rigs have (zero-length bones, straight and folded
chains, targets on the root or on the chain's line)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

SCALES = st.floats(min_value=-2.0, max_value=2.0).map(lambda e: 10.0**e)  # 1 cm .. 100 m


def unit(v):
    v = np.asarray(v, dtype=np.float64)
    # Scaled by the largest component first: the norm of a vector like (0, 0, 3e-161)
    # underflows in its squares, and dividing by it gave a "unit" vector of length 0.9997
    # (hypothesis found it: an out-of-reach target that was in reach).
    m = float(np.abs(v).max()) if v.size else 0.0
    if not m > 0:
        return np.array([0.0, 1.0, 0.0])
    v = v / m
    return v / np.linalg.norm(v)


@st.composite
def chains(draw, min_points=2, max_points=10, zero_bones=True, shapes=("random", "straight", "folded")):
    """(points (n, 3), scale). Bone lengths up to `scale`, a few of them zero."""
    n = draw(st.integers(min_points, max_points))
    scale = draw(SCALES)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lengths = rng.uniform(0.05, 1.0, n - 1) * scale
    if zero_bones and n > 2 and draw(st.booleans()):
        lengths[rng.integers(0, n - 1, size=rng.integers(1, n))] = 0.0
    shape = draw(st.sampled_from(shapes))
    if shape == "straight":
        dirs = np.tile(unit(rng.normal(size=3)), (n - 1, 1))
    elif shape == "folded":  # collinear, bones going back and forth
        dirs = np.outer(rng.choice([-1.0, 1.0], n - 1), unit(rng.normal(size=3)))
    else:
        dirs = rng.normal(size=(n - 1, 3))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    origin = rng.uniform(-3.0, 3.0, 3) * scale
    pts = origin + np.concatenate(([[0.0, 0.0, 0.0]], np.cumsum(dirs * lengths[:, None], axis=0)))
    return pts, scale


@st.composite
def targets(draw, pts, kinds=("inside", "root", "line", "far", "anywhere")):
    """A target for the chain `pts`, of a drawn kind."""
    kind = draw(st.sampled_from(kinds))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    root = pts[0]
    total = float(np.sum(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
    if kind == "root":
        return root.copy()
    if kind == "line":  # on the line of the first bone, ahead or behind
        d = unit(pts[-1] - root)
        return root + d * rng.uniform(-1.2, 1.2) * total
    if kind == "far":
        return root + unit(rng.normal(size=3)) * (total * rng.uniform(1.01, 3.0) + 1e-3)
    if kind == "inside":
        return root + unit(rng.normal(size=3)) * rng.uniform(0.0, 1.0) * total
    return root + rng.normal(size=3) * max(total, 1e-3)


def reach_interval(lengths):
    """[inner, outer] distances from the root the tip can reach."""
    lengths = np.asarray(lengths, dtype=np.float64)
    total = float(lengths.sum())
    longest = float(lengths.max()) if len(lengths) else 0.0
    return max(0.0, 2.0 * longest - total), total


def bone_lengths(pts):
    return np.linalg.norm(np.diff(np.asarray(pts), axis=0), axis=1)


def assert_lengths_kept(out, lengths, what="bone lengths"):
    got = bone_lengths(out)
    # 1e-9 relative to each bone, plus round-off on coordinates of the chain's size.
    slack = 1e-9 * lengths + 1e-13 * (1.0 + float(np.max(np.abs(out))))
    bad = np.abs(got - lengths) > slack
    assert not bad.any(), f"{what}: bone {int(np.argmax(bad))} is {got[bad][0]!r}, expected {lengths[bad][0]!r}"


def assert_result_consistent(r, target, tolerance):
    """What every fabrik result says about itself."""
    assert np.all(np.isfinite(r.points)), r.points
    assert r.points.dtype == np.float64 and r.points.ndim == 2 and r.points.shape[1] == 3
    assert type(r.errors) is tuple and all(type(e) is float for e in r.errors), r.errors
    assert len(r.errors) == r.iterations
    assert all(b <= a for a, b in zip(r.errors, r.errors[1:])), f"tip error grew: {r.errors}"
    gap = float(np.linalg.norm(r.points[-1] - np.asarray(target)))
    assert abs(r.error - gap) <= 1e-12 * (1.0 + gap + float(np.max(np.abs(r.points))))
    if r.iterations:
        assert r.errors[-1] == r.error
    assert r.reached == (r.error <= tolerance)
