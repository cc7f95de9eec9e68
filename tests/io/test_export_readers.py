"""Exports every reader reads (issue 26, item 4): every shared file and every skeleton-family
layout (moving), exported to .glb, .gltf, .bvh and .usda, read back by the independent readers:
three.js's GLTFLoader and BVHLoader, pygltflib (FK evaluated from the glTF specification in
gltf_fk.py), usd-core's UsdSkel; every joint's world position within 1e-5 of the figure of
rigedit's at random frames. The three.js reads of the whole matrix run in one node process
(tests/js_readers.py's batch), the Khronos validator's in the same one."""
from __future__ import annotations

import numpy as np
import pytest

from ..js_readers import readers
from .export_checks import LAYOUTS, READER_RTOL, SEED, SHARED, bvh_name_map, usd_world
from .gltf_fk import node_positions

SOURCES = SHARED + LAYOUTS
FRAMES = 5  # random frames read per export, the last one among them (a clip's end is where loops go wrong)


def frames_of(n: int, name: str) -> list[int]:
    rng = np.random.default_rng([SEED, sum(map(ord, name)), 7])
    picked = rng.choice(n - 1, size=min(FRAMES - 1, n - 1), replace=False) if n > 1 else []
    return sorted(int(f) for f in picked) + [n - 1]


def where(name: str, frames: list[int]) -> str:
    return f"{name} at frames {frames} (RIGEDIT_TEST_SEED={SEED})"


@pytest.fixture(scope="module")
def three(exports) -> dict:
    """(source, suffix) -> what three.js (or the validator, suffix + " validator") read, for the
    whole matrix in one node process."""
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    jobs, keys = [], []
    for name in SOURCES:
        result = exports.result(name)
        frames = frames_of(result.clip.n_frames, name)
        for suffix in (".glb", ".gltf"):
            out = exports.file(name, suffix)
            jobs += [{"mode": "gltf", "file": out, "animation": result.animation_name, "frames": frames},
                     {"mode": "validate", "file": out}]
            keys += [(name, suffix), (name, suffix + " validator")]
        jobs.append({"mode": "bvh", "file": exports.file(name, ".bvh"), "frames": frames})
        keys.append((name, ".bvh"))
    return dict(zip(keys, js.batch(jobs)))


def worst(got: np.ndarray, want: np.ndarray) -> float:
    assert got.shape == want.shape
    return float(np.abs(got - want).max())


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
@pytest.mark.parametrize("name", SOURCES)
def test_three_js_gltf_loader(name, suffix, three, exports):
    seen, result = three[(name, suffix)], exports.result(name)
    assert "error" not in seen, seen.get("error")
    frames = frames_of(result.clip.n_frames, name)
    assert seen["frames"] == frames and len(seen["times"]) == result.clip.n_frames
    want = result.in_gltf_frame()[frames]
    got = np.stack([np.array(seen["nodes"][str(n)]) for n in result.nodes], axis=1)
    assert worst(got, want) <= READER_RTOL * result.size, where(name, frames)


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
@pytest.mark.parametrize("name", SOURCES)
def test_khronos_validator(name, suffix, three):
    report = three[(name, suffix + " validator")]
    assert "error" not in report, report.get("error")
    assert report["numErrors"] == 0, report["errors"]


@pytest.mark.parametrize("suffix", [".glb"])  # the JSON form is three.js's above; pygltflib parses slowly
@pytest.mark.parametrize("name", SOURCES)
def test_pygltflib(name, suffix, exports):
    result = exports.result(name)
    frames = frames_of(result.clip.n_frames, name)
    seen = node_positions(exports.file(name, suffix), result.animation_name, frames)
    got = np.stack([seen[n] for n in result.nodes], axis=1)
    assert worst(got, result.in_gltf_frame()[frames]) <= READER_RTOL * result.size, where(name, frames)


@pytest.mark.parametrize("name", SOURCES)
def test_three_js_bvh_loader(name, three, exports):
    seen, result = three[(name, ".bvh")], exports.result(name)
    assert "error" not in seen, seen.get("error")
    frames = frames_of(result.clip.n_frames, name)
    assert seen["at"] == frames and len(seen["times"]) == result.clip.n_frames
    # BVHLoader names End Sites "ENDSITE": joints only, every one, by the rig's names for the
    # names written in the file (io/bvh_names.py).
    rig_name = bvh_name_map(exports.file(name, ".bvh"))
    keep = [k for k, n in enumerate(seen["names"]) if n in rig_name]
    assert len(keep) == len(rig_name)
    want, size = result.in_bvh_units([rig_name[seen["names"][k]] for k in keep])
    got = np.array(seen["frames"])[:, keep]
    assert worst(got, want[frames]) <= READER_RTOL * size, where(name, frames)


@pytest.mark.parametrize("name", SOURCES)
def test_usd_core(name, exports):
    pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    result = exports.result(name)
    frames = frames_of(result.clip.n_frames, name)
    joints, world = usd_world(exports.file(name, ".usda"), frames)
    assert len(joints) == len(result.names)
    assert worst(world[..., 3, :3], result.positions[frames]) <= READER_RTOL * result.size, where(name, frames)
