"""A UsdSkel SkelAnimation's samples as a Clip in its Skeleton's joint order (io/usd.py reads
the Skeleton and calls this).

One frame per time sample, at the stage's timeCodesPerSecond; samples unevenly spaced are
read at the smallest spacing, USD interpolating between them. Joints the animation does not
list keep their rest transform; joints it lists that the Skeleton does not are left out with
a warning, and so are scales (rigedit joints are rigid). Arrays of the wrong length, NaN or
infinite values and zero quaternions are errors naming the attribute and the time.
"""
from __future__ import annotations

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.transforms import quat_normalize

# More frames than this from the time samples' spacing is a file to refuse, not to allocate.
MAX_FRAMES = 1_000_000


class AnimationReader:
    """A SkelAnimation's samples, as local translations and rotations in the Skeleton's order.

    reading: the Skeleton being read (io/usd.py): its path, stage, pxr's Usd module, the
    warnings list, and error(where, problem), the UsdError to raise."""

    def __init__(self, reading, anim, joints: list[str], rest_r: np.ndarray, rest_t: np.ndarray) -> None:
        self.r, self.anim = reading, anim
        self.where = str(anim.GetPath())
        self.rest_r, self.rest_t = rest_r, rest_t
        order = [str(j) for j in (anim.GetJointsAttr().Get() or [])]
        index = {j: i for i, j in enumerate(joints)}
        self.cols = np.array([index.get(j, -1) for j in order], dtype=np.int64)
        unknown = [j for j in order if j not in index]
        if unknown:
            reading.warnings.append(f"{self.where}.joints: {len(unknown)} joint(s) not in the Skeleton left out, e.g. {unknown[0]!r}")
        if len(set(order)) != len(order):
            raise self.fail("joints", "a joint is listed twice")

    def fail(self, attr: str, problem: str) -> ValueError:
        return self.r.error(f"{self.where}.{attr}", problem)

    def clip(self) -> Clip | None:
        attrs = (self.anim.GetTranslationsAttr(), self.anim.GetRotationsAttr(), self.anim.GetScalesAttr())
        times = sorted({t for a in attrs[:2] for t in a.GetTimeSamples()})
        if not times and not any(a.HasAuthoredValue() for a in attrs[:2]):
            return None
        tcps = float(self.r.stage.GetTimeCodesPerSecond())
        if not (np.isfinite(tcps) and tcps > 0):
            raise self.r.error("timeCodesPerSecond", f"must be a positive number, got {tcps}")
        steps = _frame_times(self, times)
        n_frames = len(steps)
        rot = np.repeat(self.rest_r[None], n_frames, axis=0)
        trans = np.repeat(self.rest_t[None], n_frames, axis=0)
        ok = self.cols >= 0
        scaled = False
        for f, t in enumerate(steps):
            code = self.r.Usd.TimeCode(t)
            tr = self._values(attrs[0], code, 3, "translations", t)
            q = self._values(attrs[1], code, 4, "rotations", t)
            if tr is not None:
                trans[f, self.cols[ok]] = tr[ok]
            if q is not None:
                if (np.linalg.norm(q, axis=-1) < 1e-6).any():
                    raise self.fail("rotations", f"a zero quaternion at time {t:g}")
                rot[f, self.cols[ok]] = quat_normalize(q[ok])
            s = attrs[2].Get(code)
            if s is not None and len(s):
                scaled = scaled or bool(np.abs(np.array(s, dtype=np.float64) - 1.0).max() > 1e-4)
        if scaled:
            self.r.warnings.append(f"{self.where}.scales: scales other than 1 left out (rigedit joints are rigid)")
        frame_time = (steps[1] - steps[0]) / tcps if n_frames > 1 else 1.0 / tcps
        return Clip(rot, trans, frame_time)

    def _values(self, attr, code, width: int, name: str, t: float) -> np.ndarray | None:
        value = attr.Get(code)
        if value is None:
            return None
        a = np.array(value, dtype=np.float64).reshape(-1, width)
        if len(a) != len(self.cols):
            raise self.fail(name, f"{len(a)} values at time {t:g} for the {len(self.cols)} joints the animation lists")
        if not np.isfinite(a).all():
            raise self.fail(name, f"a value at time {t:g} is not finite (NaN or infinite)")
        return a


def _frame_times(anim: AnimationReader, times: list[float]) -> list[float]:
    """One frame per time sample when they are evenly spaced; else frames at the smallest
    spacing (USD interpolates between samples). [0.0] for values that do not change."""
    if len(times) < 2:
        return times or [0.0]
    gaps = np.diff(times)
    step = float(gaps.min())
    if np.allclose(gaps, step, rtol=1e-6, atol=0):
        return list(times)
    n = int(round((times[-1] - times[0]) / step)) + 1
    if n > MAX_FRAMES:
        raise anim.fail("translations", f"time samples {step:g} apart over {times[-1] - times[0]:g} time codes would be {n} frames")
    return [times[0] + k * step for k in range(n)]
