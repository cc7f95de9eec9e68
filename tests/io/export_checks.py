"""Shared pieces of the export tests: the sources (the shared files and the skeleton-family
layouts, moving), rigedit's pose of a result, each export written once per session, and two
small BVH readers written from the two conventions other tools follow (not rigedit's reader)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from rigedit.core.clip import Clip
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_conj, quat_from_axis_angle, quat_mul, quat_rotate
from rigedit.io.bvh_format import parse_bvh
from rigedit.io.bvh_names import restore_names
from rigedit.io.export import ExportSource, export_rig, load_for_export, result_clip
from rigedit.io.figure import figure_size, world_positions

DATA = Path("/work/shared/data")
SHARED = sorted(p.name for p in DATA.glob("*") if p.suffix.lower() in (".bvh", ".glb", ".gltf"))
# Skeleton-family layouts (tests/core/skeletons: names and hierarchies of families with no
# file in ../shared/data), exported with a random motion put on them.
SKELETONS = Path(__file__).parent.parent / "core" / "skeletons"
LAYOUTS = sorted([f"families/{p.name}" for p in (SKELETONS / "families").glob("*.json")]
                 + [p.name for p in SKELETONS.glob("*.json")])
# The motion's seed: random each run, said in every message that depends on it; set
# RIGEDIT_TEST_SEED to run one again.
SEED = int(os.environ.get("RIGEDIT_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))
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

    @property
    def nodes(self) -> list[int]:
        """The glTF node each joint is in an export: the source document's, else joint order."""
        gltf = self.source.gltf
        return list(gltf.nodes) if gltf is not None else list(range(len(self.names)))

    def in_gltf_frame(self) -> np.ndarray:
        """rigedit's pose in a glTF export's frame: a turn the import made is not in the file."""
        turn = self.source.gltf.turn if self.source.gltf else None
        return self.positions if turn is None else quat_rotate(quat_conj(np.array(turn)), self.positions)

    def in_bvh_units(self, names: list[str]) -> tuple[np.ndarray, float]:
        """rigedit's pose (frames, joints, 3) in a BVH export's units and axes, in `names` order,
        and the figure's size in those units."""
        from rigedit.io.bvh import BvhLayout

        layout = self.source.bvh_layout or BvhLayout()
        pos = quat_rotate(quat_conj(layout.turn), self.positions) / layout.scale
        index = {n: i for i, n in enumerate(self.names)}
        return pos[:, [index[n] for n in names]], self.size / layout.scale


def read_layout(path: Path) -> Skeleton:
    joints = json.loads(path.read_text())["joints"]
    return Skeleton([j["name"] for j in joints], [j["parent"] for j in joints],
                    np.array([j["offset"] for j in joints]), np.array([j["rotation"] for j in joints]))


def moving(skeleton: Skeleton, rng: np.random.Generator, frames: int = 24) -> Clip:
    """A smooth random motion on `skeleton`: every joint swinging up to ~23 degrees about its
    own random axis (under 10 degrees a frame: motion, not a fault lint would report), the
    roots walking; at 30 fps."""
    n = len(skeleton)
    t = np.linspace(0.0, 1.0, frames)[:, None]
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = 0.4 * np.sin(2 * np.pi * (t * rng.uniform(0.5, 1.0, n) + rng.uniform(0, 1, n)))
    turn = quat_from_axis_angle(np.broadcast_to(axes, (frames, n, 3)), angles)
    rotations = quat_mul(np.broadcast_to(skeleton.rest_rotations, (frames, n, 4)), turn)
    translations = np.broadcast_to(skeleton.offsets, (frames, n, 3)).copy()
    roots = skeleton.parents < 0
    translations[:, roots] += t[:, :, None] * rng.uniform(-0.5, 0.5, (1, int(roots.sum()), 3))
    return Clip(np.ascontiguousarray(rotations), translations, 1 / 30)


class LayoutResult(Result):
    """A skeleton-family layout with `moving` on it, as an export of a rig sees it."""

    def __init__(self, name: str, seed: int = SEED) -> None:
        self.path = SKELETONS / name
        skeleton = read_layout(self.path)
        clip = moving(skeleton, np.random.default_rng([seed, sum(map(ord, name))]))
        self.rig, self.source = Rig(skeleton, clip=clip, name=self.path.stem), ExportSource()
        self.clip = result_clip(self.rig)
        self.positions = world_positions(skeleton, self.clip)
        self.size = figure_size(skeleton, self.clip)
        self.names = skeleton.names


def result_of(name: str) -> Result:
    """A shared file's result, or a layout's (a name in LAYOUTS)."""
    return LayoutResult(name) if name in LAYOUTS else Result(DATA / name)


class Exports:
    """Each source's result and each export of it, made once per test session (the export tests
    of every format and reader share them: exporting Xbot takes seconds)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._results: dict[str, Result] = {}
        self._files: dict[tuple, Path] = {}

    def result(self, name: str) -> Result:
        if name not in self._results:
            self._results[name] = result_of(name)
        return self._results[name]

    def file(self, name: str, suffix: str, *, only_result: bool = False) -> Path:
        key = (name, suffix, only_result)
        if key not in self._files:
            result = self.result(name)
            folder = self.folder / f"{len(self._files)}"
            folder.mkdir()
            out = folder / f"{result.path.stem}{suffix}"
            export_rig(result.rig, out, result.source, only_result=only_result)
            self._files[key] = out
        return self._files[key]


def usd_world(path, frames=None) -> tuple[list[str], np.ndarray]:
    """Joint paths and world matrices (frames, joints, 4, 4) as pxr's UsdSkel computes them
    (row-vector convention: translation in the last row), at `frames` (default: every one)."""
    from pxr import Usd, UsdGeom, UsdSkel

    stage = Usd.Stage.Open(str(path))
    skel_prim = next(p for p in stage.Traverse() if p.IsA(UsdSkel.Skeleton))
    cache = UsdSkel.Cache()
    cache.Populate(UsdSkel.Root(stage.GetDefaultPrim()), Usd.PrimDefaultPredicate)
    query = cache.GetSkelQuery(UsdSkel.Skeleton(skel_prim))
    start, end = int(stage.GetStartTimeCode()), int(stage.GetEndTimeCode())
    times = range(start, end + 1) if frames is None else [start + f for f in frames]
    world = [np.array(query.ComputeJointWorldTransforms(UsdGeom.XformCache(Usd.TimeCode(t)))) for t in times]
    return [str(j) for j in query.GetJointOrder()], np.array(world)


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
