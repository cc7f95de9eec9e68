"""The pose layer (core/pose_layer.py), compiled: every channel's value at a time, and the
layer put on (or taken off) a pose, for one frame or many, in one call.

The layer is evaluated every frame of a drag, of playback, of the onion skin's ghosts and
the motion trails, and of a bake; walking its channels in Python cost ~330 us a frame
with many keys. `PackedLayer` holds a layer's channels as flat arrays (built once per
layer value: a layer is immutable), and the kernels below walk them:

- channel c's keys are rows starts[c]:starts[c + 1] of key_t (times, sorted), codes (the
  interpolation of the segment leaving each key, as curve.INTERPOLATIONS indexes it) and
  values; its unkeyed value is values row n_keys + c, held at every time (HELD_ALWAYS) or
  only within TIME_EPS of held_t[c] (HELD_AT), as pose_channel.py says;
- the joints' channels come first (quaternions, mixed by slerp), the roots' offset last
  (its first three columns, mixed by lerp; an empty channel when the layer has none).

The helpers are compiled from their one Python source: curve.shape (the easing),
frame_math.slerp (transforms.quat_slerp for one pair, its ends exact as there) and
scalar_quat's products. numba caches the machine code beside this file; fresh_cache drops
it when those sources change.
"""
from __future__ import annotations

import numba
import numpy as np

from . import curve
from . import scalar_quat as sq
from .ik import frame_math
from .jitable import fresh_cache, jitable
from .pose_channel import TIME_EPS

fresh_cache(__file__, curve, sq, frame_math)
jitable(curve.shape, sq.qmul, sq.qconj, sq.qnormalize)

NO_HELD, HELD_ALWAYS, HELD_AT = 0, 1, 2

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _segment(t, c, starts, key_t, codes, held, held_t, n_keys):
    """(row a, row b, w): channel c's value at time t is values[a] mixed toward values[b] by
    w; a = -1 for an empty channel."""
    if held[c] == HELD_ALWAYS or (held[c] == HELD_AT and abs(t - held_t[c]) <= TIME_EPS):
        return n_keys + c, n_keys + c, 0.0
    s, e = starts[c], starts[c + 1]
    if s == e:
        return -1, -1, 0.0
    if t <= key_t[s]:
        return s, s, 0.0
    if t >= key_t[e - 1]:
        return e - 1, e - 1, 0.0
    lo, hi = s, e - 1  # key_t[lo] < t < key_t[hi]: the last key at or before t (bisect_right)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if key_t[mid] <= t:
            lo = mid
        else:
            hi = mid
    u = (t - key_t[lo]) / (key_t[lo + 1] - key_t[lo])
    return lo, lo + 1, curve.shape(codes[lo], u)


@_jit
def _rotation(values, a, b, w):
    qa = (values[a, 0], values[a, 1], values[a, 2], values[a, 3])
    if w == 0.0:
        return qa
    qb = (values[b, 0], values[b, 1], values[b, 2], values[b, 3])
    if w == 1.0:
        return qb
    return frame_math.slerp(qa, qb, w)


@_jit
def _offset(values, a, b, w):
    return (values[a, 0] + (values[b, 0] - values[a, 0]) * w,
            values[a, 1] + (values[b, 1] - values[a, 1]) * w,
            values[a, 2] + (values[b, 2] - values[a, 2]) * w)


@_jit
def channel_values(times, starts, key_t, codes, values, held, held_t, out):
    """out[f, c] = channel c's value at times[f] (a joint's delta quaternion; the roots'
    offset in the last channel's first three columns, zero when it is empty)."""
    n_ch, n_keys = held.shape[0], key_t.shape[0]
    for f in range(times.shape[0]):
        for c in range(n_ch):
            a, b, w = _segment(times[f], c, starts, key_t, codes, held, held_t, n_keys)
            if c == n_ch - 1:
                v = (0.0, 0.0, 0.0) if a < 0 else _offset(values, a, b, w)
                out[f, c, 0], out[f, c, 1], out[f, c, 2], out[f, c, 3] = v[0], v[1], v[2], 0.0
            else:
                q = _rotation(values, a, b, w)
                out[f, c, 0], out[f, c, 1], out[f, c, 2], out[f, c, 3] = q[0], q[1], q[2], q[3]


@_jit
def put_layer(times, rot, trans, joints, roots, sign, starts, key_t, codes, values, held, held_t):
    """The layer on frame f of rot (F, n, 4) and trans (F, n, 3), in place, at times[f]:
    rot[f, joints[c]] = normalize(rot * delta_c), trans[f, roots] += the offset; sign -1.0
    takes it off instead (normalize(rot * conj(delta_c)), trans -= the offset). A float,
    not a bool: numba types a Python bool argument on a slow path (~15 us a call)."""
    n_ch, n_keys = held.shape[0], key_t.shape[0]
    for f in range(times.shape[0]):
        t = times[f]
        for c in range(n_ch - 1):
            a, b, w = _segment(t, c, starts, key_t, codes, held, held_t, n_keys)
            d = _rotation(values, a, b, w)
            if sign < 0.0:
                d = sq.qconj(d)
            j = joints[c]
            q = sq.qnormalize(sq.qmul((rot[f, j, 0], rot[f, j, 1], rot[f, j, 2], rot[f, j, 3]), d))
            rot[f, j, 0], rot[f, j, 1], rot[f, j, 2], rot[f, j, 3] = q[0], q[1], q[2], q[3]
        a, b, w = _segment(t, n_ch - 1, starts, key_t, codes, held, held_t, n_keys)
        if a >= 0:
            v = _offset(values, a, b, w)
            for r in roots:
                trans[f, r, 0] += sign * v[0]
                trans[f, r, 1] += sign * v[1]
                trans[f, r, 2] += sign * v[2]


class PackedLayer:
    """A layer's channels as the kernels read them (see the module docstring); `names` are
    the joints of the first channels, in order."""

    __slots__ = ("names", "starts", "key_t", "codes", "values", "held", "held_t", "_joints")

    def __init__(self, joints: dict, root) -> None:
        self.names = tuple(joints)
        # Each channel's arrays are made once (Channel.packed): one edited joint is one new channel.
        times, codes, values, counts, held, modes, held_t = [], [], [], [0], [], [], []
        for ch in (*joints.values(), root):
            t, c, v = ch.packed()
            times.append(t)
            codes.append(c)
            values.append(v)
            counts.append(len(t))
            held.append(_row(ch.held))
            modes.append(_held_mode(ch))
            held_t.append(0.0 if ch.held_time is None else ch.held_time)
        self.starts = np.cumsum(counts, dtype=np.int64)
        self.key_t = np.concatenate(times)
        self.codes = np.concatenate(codes)
        self.values = np.concatenate(values + [np.array(held, dtype=np.float64)])
        self.held = np.array(modes, dtype=np.int64)
        self.held_t = np.array(held_t, dtype=np.float64)
        self._joints = (None, None, None)  # (skeleton, its names then, their indices): one read

    def _tables(self) -> tuple:
        return self.starts, self.key_t, self.codes, self.values, self.held, self.held_t

    def values_at(self, times: np.ndarray) -> np.ndarray:
        """(F, channels, 4): every channel's value at each time (see channel_values)."""
        times = np.ascontiguousarray(times, dtype=np.float64).reshape(-1)
        out = np.empty((len(times), len(self.held), 4))
        channel_values(times, *self._tables(), out)
        return out

    def joints_of(self, skeleton) -> np.ndarray:
        """The skeleton indices of `names` (kept for the last skeleton asked about)."""
        known, names, idx = self._joints
        if known is not skeleton or names != skeleton.names:
            idx = np.array([skeleton.index(n) for n in self.names], dtype=np.int64)
            self._joints = (skeleton, list(skeleton.names), idx)
        return idx

    def put(self, times, rot: np.ndarray, trans: np.ndarray, joints: np.ndarray, roots, inverse: bool = False) -> None:
        """The layer on (or, `inverse`, off) rot (F, n, 4) and trans (F, n, 3), C-contiguous
        float64 arrays changed in place, frame f at times[f]."""
        times = np.ascontiguousarray(times, dtype=np.float64).reshape(-1)
        put_layer(times, rot, trans, joints, np.asarray(roots, dtype=np.int64), -1.0 if inverse else 1.0, *self._tables())


def _row(value) -> tuple:
    if value is None:
        return (0.0, 0.0, 0.0, 1.0)
    return tuple(value) + (0.0,) * (4 - len(value))


def _held_mode(ch) -> int:
    if ch.held is None:
        return NO_HELD
    return HELD_ALWAYS if ch.held_time is None else HELD_AT
