"""Values a file stores as 32-bit floats (glTF's accessors and node transforms, USD's float3
translations). A float64 beyond float32's range would be written as Inf (numpy only warns),
and every reader would then play garbage; so the writer refuses it, naming the file, the
field and the value, before anything is written."""
from __future__ import annotations

import os
from typing import Sequence

import numpy as np

F32_MAX = float(np.finfo(np.float32).max)


def as_float32(values, path: str | os.PathLike, field: str, *axes: str | Sequence[str]) -> np.ndarray:
    """`values` as float32; ValueError "PATH: FIELD at frame 3 of 'Hips': VALUE is beyond ..." when
    one is not finite in float32. Each of `axes` names the entries of one leading axis: a
    word ("frame": "at frame 3") or the entries' names (joint names: "of 'Hips'")."""
    values = np.asarray(values, dtype=np.float64)
    bad = ~(np.abs(values) <= F32_MAX)  # NaN too
    if bad.any():
        first = np.argwhere(bad)[0]
        where = "".join(f" at {axis} {k}" if isinstance(axis, str) else f" of {axis[k]!r}"
                        for axis, k in zip(axes, map(int, first)))
        raise ValueError(f"{os.fspath(path)}: {field}{where}: {values[tuple(first)]:.4g} is beyond the range of the 32-bit "
                         f"floats the file stores (largest {F32_MAX:.4g}); it would be written as Inf")
    return values.astype(np.float32)
