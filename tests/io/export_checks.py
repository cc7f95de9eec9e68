"""Shared pieces of the export tests: the sources, rigedit's pose of a result, and two small
BVH readers written from the two conventions other tools follow (not rigedit's reader)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from rigedit.io.bvh_format import parse_bvh
from rigedit.io.bvh_names import restore_names
from rigedit.io.export import load_for_export, result_clip
from rigedit.io.figure import figure_size, world_positions

DATA = Path("/work/shared/data")
SHARED = sorted(p.name for p in DATA.glob("*") if p.suffix.lower() in (".bvh", ".glb", ".gltf"))
# The tolerances, relative to the figure's size (io/figure.py).
READER_RTOL = 1e-5  # another tool's reading of an export vs rigedit's pose
ROUND_TRIP_RTOL = 1e-6  # export then import vs the rig's result


class Result:
    """A shared file loaded as `rigedit export` loads it, and its result pose."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rig, self.source = load_for_export(path)
        self.clip = result_clip(self.rig)
        self.positions = world_positions(self.rig.skeleton, self.clip)  # (frames, joints, 3), metres
        self.size = figure_size(self.rig.skeleton, self.clip)
        self.names = self.rig.skeleton.names

    @property
    def animation_name(self) -> str:
        return f"{self.rig.name} (rigedit)"


def exported_bvh(path: Path):
    """An exported BVH as parsed, its joints named as in the rig (the names the writer made
    safe for other readers put back from the mapping beside the file)."""
    return restore_names(parse_bvh(Path(path).read_text()), path)


def bvh_name_map(path: Path) -> dict[str, str]:
    """Each joint name as written in an exported BVH -> the rig's name for it (End Sites left out)."""
    written = parse_bvh(Path(path).read_text()).joints
    return {w.name: r.name for w, r in zip(written, exported_bvh(path).joints) if not w.end_site}


def bvh_positions(path: Path, *, add_offsets: bool) -> tuple[list[str], np.ndarray]:
    """World positions (frames, joints, 3) in file units and axes, by one of the two readings
    of position channels: added to the OFFSET (three.js's BVHLoader) or in its place
    (Blender's importer). Rotation channels: intrinsic, in the order listed, degrees."""
    raw = exported_bvh(path)
    frames = raw.motion.shape[0]
    names, out = [], np.zeros((frames, len(raw.joints), 3))
    world_r = [None] * len(raw.joints)
    for j, (joint, cols) in enumerate(zip(raw.joints, raw.channel_columns())):
        names.append(joint.name)
        local_t = np.broadcast_to(np.array(joint.offset, dtype=np.float64), (frames, 3)).copy()
        pos_cols = {c: col for c, col in zip(joint.channels, cols) if c.endswith("position")}
        if pos_cols:
            moved = np.stack([raw.motion[:, pos_cols[a]] if a in pos_cols else np.zeros(frames)
                              for a in ("Xposition", "Yposition", "Zposition")], axis=1)
            local_t = local_t + moved if add_offsets else moved
        rot_cols = [(c[0], col) for c, col in zip(joint.channels, cols) if c.endswith("rotation")]
        if rot_cols:
            order = "".join(a for a, _ in rot_cols)
            local_r = Rotation.from_euler(order, raw.motion[:, [c for _, c in rot_cols]], degrees=True)
        else:
            local_r = Rotation.identity(frames)
        if joint.parent < 0:
            out[:, j], world_r[j] = local_t, local_r
        else:
            p = joint.parent
            out[:, j] = out[:, p] + world_r[p].apply(local_t)
            world_r[j] = world_r[p] * local_r
    return names, out
