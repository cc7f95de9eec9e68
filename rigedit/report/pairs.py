"""`rigedit report --compare A B`: A and B are two clip files, or two folders whose clips are
matched by name (their path under the folder without the suffix, so walk.bvh goes with
walk.glb; failing that, the file's stem alone when that is unique on both sides). Each
measure of result.py's METRICS side by side, with the change B - A.
"""
from __future__ import annotations

import os
from pathlib import Path

from rigedit.batch.plan import PlanError, find_clips
from rigedit.core.quality import METRICS


def pair_inputs(a: str, b: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """([(name, file in A, file in B)], [what could not be matched, as text]). PlanError
    (a ValueError) naming the input when A or B is neither a clip file nor a folder of clips,
    or when a file is compared with a folder."""
    for p in (a, b):
        if not os.path.exists(p):
            raise PlanError(f"{p}: no such file or folder")
    if os.path.isdir(a) != os.path.isdir(b):
        raise PlanError(f"{a} and {b}: compare two files or two folders, not a file with a folder")
    if not os.path.isdir(a):
        find_clips([a], Path(os.devnull))  # a clip file, or PlanError naming it
        find_clips([b], Path(os.devnull))
        return [(Path(a).name, a, b)], []
    left, right = _clips(a), _clips(b)
    pairs, unmatched = [], []
    by_stem_b = _unique_stems(right)
    for key, path in left.items():
        other = right.get(key) or by_stem_b.get(Path(key).name)
        if other is None:
            unmatched.append(f"{path}: nothing of that name in {b}")
        else:
            pairs.append((key, path, other))
    used = {p[2] for p in pairs}
    unmatched += [f"{path}: nothing of that name in {a}" for path in right.values() if path not in used]
    if not pairs:
        raise PlanError(f"{a} and {b}: no clips with the same name in both folders")
    return pairs, unmatched


def _clips(folder: str) -> dict[str, str]:
    return {rel.with_suffix("").as_posix(): str(path) for path, rel in find_clips([folder], Path(os.devnull))}


def _unique_stems(clips: dict[str, str]) -> dict[str, str]:
    stems: dict[str, list[str]] = {}
    for key, path in clips.items():
        stems.setdefault(Path(key).name, []).append(path)
    return {s: ps[0] for s, ps in stems.items() if len(ps) == 1}


def change(a: dict, b: dict) -> dict:
    """B - A for each numeric METRICS key both have (None where either lacks it)."""
    out = {}
    for key, _, _ in METRICS:
        x, y = a.get(key), b.get(key)
        out[key] = None if x is None or y is None else round(float(y) - float(x), 6)
    return out
