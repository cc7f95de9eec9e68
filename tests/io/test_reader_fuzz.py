"""Fuzzing the BVH and glTF readers with damaged copies of the shared sample files.

Whatever the damage (truncation, nesting thousands deep, huge or negative counts, NaN and
infinite numbers, values of the wrong type, missing fields, overflowing transforms, absurd
resampling rates), a reader either reads the file into finite numbers or raises its own error
type with the file's name in the message: never another exception (RecursionError,
MemoryError, a numpy ValueError without the name) and never an allocation out of proportion
to the file's bytes (the process's peak memory, reset before each read).

The huge counts and rates used are so large (terabytes) that a reader which tries to honour
them fails at once with MemoryError instead of swapping the shared machine. There is no
hypothesis deadline: a timing assertion would flake on a loaded machine; hangs are ruled out
by the bounded inputs instead. CI replays the same examples (tests/conftest.py's profile).
"""
from __future__ import annotations

import base64
import json
import struct
import tracemalloc
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.io.bvh import BvhError, read_bvh
from rigedit.io.gltf import GltfError, read_gltf

DATA = Path("/work/shared/data")
BVH_TEXT = (DATA / "pybvh_bvh_test1.bvh").read_text()
BVH_LINES = BVH_TEXT.splitlines()
GLTF_SOURCES = ["RiggedSimple.glb", "CesiumMan.glb"]
# Allowed traced memory: a generous constant for the reader's own working set (a 1500-joint
# forward-kinematics table is 18 MB) plus a multiple of the file's bytes.
BASE_BYTES = 160 * 2**20
PER_FILE_BYTE = 200

FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _gltf_parts(name):
    g = pygltflib.GLTF2().load(str(DATA / name))
    doc = json.loads(g.to_json())
    return doc, bytes(g.binary_blob())


GLTF_PARTS = {name: _gltf_parts(name) for name in GLTF_SOURCES}


def _glb(doc: dict, blob: bytes) -> bytes:
    """A GLB container: header, JSON chunk, BIN chunk (each padded to 4 bytes)."""
    js = json.dumps(doc, allow_nan=True).encode()
    js += b" " * (-len(js) % 4)
    blob = blob + b"\0" * (-len(blob) % 4)
    total = 12 + 8 + len(js) + 8 + len(blob)
    return (
        struct.pack("<4sII", b"glTF", 2, total)
        + struct.pack("<I4s", len(js), b"JSON") + js
        + struct.pack("<I4s", len(blob), b"BIN\0") + blob
    )


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


class _PeakMemory:
    """Growth of the process's peak memory while the block runs, in bytes.

    On Linux, writing 5 to /proc/self/clear_refs resets the peak resident size (VmHWM), so
    the peak counts every page touched: numpy buffers, calloc'd arrays once used, Python
    objects. Elsewhere tracemalloc (slower on Python-heavy code, same idea) stands in.
    """

    def __enter__(self):
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.start = _status_kb("VmRSS")
            self.proc = True
        except OSError:
            self.proc = False
            tracemalloc.start()
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.growth = max(0, _status_kb("VmHWM") - self.start) * 1024
        else:
            self.growth = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        return False


def _read_checked(read, path: Path, error_type):
    """Read, watching memory; the only allowed failure is `error_type` naming the file."""
    size = path.stat().st_size
    result = None
    with _PeakMemory() as memory:
        try:
            result = read(path)
        except error_type as e:
            assert str(path) in str(e), f"error does not name the file: {e}"
    assert memory.growth <= BASE_BYTES + PER_FILE_BYTE * size, (
        f"allocated {memory.growth / 2**20:.0f} MB for a {size / 1024:.0f} kB file"
    )
    if result is not None:
        assert np.all(np.isfinite(result.skeleton.offsets))
        assert np.all(np.isfinite(result.skeleton.rest_rotations))
        if result.clip is not None:
            assert np.all(np.isfinite(result.clip.rotations)) and np.all(np.isfinite(result.clip.translations))
    return result


# --- BVH ---------------------------------------------------------------------------------

BAD_WORDS = ["nan", "inf", "-inf", "1e999", "-1", "0", "99999999999", "x", "{", "}", "JOINT", "End", "Site",
             "CHANNELS", "OFFSET", "ROOT", "MOTION", "Frames:", "3", "7", ""]


def _deep_chain(depth: int, channels: int) -> list[str]:
    """`depth` nested joints (each with `channels` rotation channels) and their closing braces."""
    chans = ["", "", "", "CHANNELS 3 Zrotation Xrotation Yrotation"][channels]
    out = []
    for k in range(depth):
        out += [f"JOINT fuzz{k}", "{", "OFFSET 0 1 0"] + ([chans] if chans else [])
    return out + ["End Site", "{", "OFFSET 0 1 0", "}"] + ["}"] * depth


@st.composite
def damaged_bvh(draw) -> str:
    lines = list(BVH_LINES)
    motion = next(i for i, ln in enumerate(lines) if ln.strip() == "MOTION")
    kind = draw(st.sampled_from(["truncate", "tokens", "lines", "deep", "frames"]))
    if kind == "truncate":
        text = "\n".join(lines)
        return text[: draw(st.integers(0, len(text)))]
    if kind == "deep":
        # A chain inserted under the root, nested past Python's recursion limit; with 0
        # channels the motion rows still fit, with 3 they do not (or fit once extended).
        depth = draw(st.sampled_from([5, 1100, 5000]))
        channels = draw(st.sampled_from([0, 3]))
        at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("CHANNELS")) + 1
        lines[at:at] = _deep_chain(depth, channels)
        if channels and draw(st.booleans()):
            motion += len(_deep_chain(depth, channels))
            for r in range(motion + 3, len(lines)):
                lines[r] += " 0" * (3 * depth)
        return "\n".join(lines) + "\n"
    if kind == "frames":
        value = draw(st.sampled_from(["-1", "0", "99999999999999", "1e9", "x", "", "nan"]))
        which = draw(st.sampled_from(["Frames:", "Frame Time:"]))
        for i in range(motion, len(lines)):
            if lines[i].strip().startswith(which):
                lines[i] = f"{which} {value}"
                break
        return "\n".join(lines) + "\n"
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        words = lines[i].split()
        if kind == "lines":
            op = draw(st.sampled_from(["delete", "duplicate", "brace"]))
            if op == "delete":
                del lines[i]
            elif op == "duplicate":
                lines.insert(i, lines[i])
            else:
                lines.insert(i, draw(st.sampled_from(["{", "}"])))
        else:
            word = draw(st.sampled_from(BAD_WORDS))
            k = draw(st.integers(0, max(len(words) - 1, 0)))
            if words:
                words[k] = word
            else:
                words = [word]
            lines[i] = " ".join(words)
        if not lines:
            break
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def warm():
    """Compile the numba kernels once, outside the examples."""
    read_bvh(DATA / "pybvh_bvh_test1.bvh")
    read_gltf(DATA / "RiggedSimple.glb")


@FUZZ
@given(text=damaged_bvh())
def test_damaged_bvh_reads_or_names_the_file(text, tmp_path_factory, warm):
    path = tmp_path_factory.mktemp("bvh") / "damaged.bvh"
    path.write_text(text)
    _read_checked(read_bvh, path, BvhError)


@pytest.mark.parametrize("depth", [1100])
def test_bvh_nested_deeper_than_the_recursion_limit_reads(depth, tmp_path, warm):
    lines = list(BVH_LINES)
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("CHANNELS")) + 1
    lines[at:at] = _deep_chain(depth, 0)
    path = tmp_path / "deep.bvh"
    path.write_text("\n".join(lines) + "\n")
    imp = _read_checked(read_bvh, path, BvhError)
    assert imp is not None and len(imp.skeleton) == 29 + depth + 1


# --- glTF --------------------------------------------------------------------------------

BAD_VALUES = [-1, 0, 10**12, 2**40, float("nan"), float("inf"), -float("inf"), 1e300, "x", [], {}, None, True, [1, 2], [[[[[]]]]]]


def _fields(value, path=()):
    """Every (path, value) in a JSON tree."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _fields(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _fields(v, path + (i,))


def _damageable(doc) -> list:
    return [p for p, _ in _fields(doc) if p and p[0] not in ("asset", "images", "textures", "materials", "samplers")]


def _set(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def _delete(doc, path):
    for key in path[:-1]:
        doc = doc[key]
    del doc[path[-1]]


def _deep_nodes(doc: dict, depth: int) -> None:
    """Hang a chain of `depth` joint nodes under the skin's first joint, all listed as joints."""
    first = doc["skins"][0]["joints"][0]
    start = len(doc["nodes"])
    for k in range(depth):
        doc["nodes"].append({"name": f"fuzz{k}", "translation": [0, 0.01, 0]})
        parent = first if k == 0 else start + k - 1
        doc["nodes"][parent].setdefault("children", []).append(start + k)
    doc["skins"][0]["joints"] = doc["skins"][0]["joints"] + list(range(start, start + depth))
    doc["skins"][0].pop("inverseBindMatrices", None)


@st.composite
def damaged_gltf(draw):
    """(file bytes, suffix, fps) for a damaged copy of a shared glTF sample."""
    name = draw(st.sampled_from(GLTF_SOURCES))
    doc, blob = GLTF_PARTS[name]
    doc = json.loads(json.dumps(doc))
    blob = bytearray(blob)
    fps = draw(st.sampled_from([None, None, None, 24.0, 1e12, -1.0, 0.0, float("nan"), float("inf")]))
    kind = draw(st.sampled_from(["field", "field", "delete", "count", "matrix", "deep", "times", "truncate"]))
    fields = _damageable(doc)
    if kind == "field":
        for _ in range(draw(st.integers(1, 3))):
            # Drawn from the tree as damaged so far: an earlier damage may have replaced the
            # container a path from the undamaged tree walks through.
            _set(doc, draw(st.sampled_from(_damageable(doc))), draw(st.sampled_from(BAD_VALUES)))
    elif kind == "delete":
        _delete(doc, draw(st.sampled_from([p for p in fields if isinstance(p[-1], str)])))
    elif kind == "count":
        acc = doc["accessors"][draw(st.integers(0, len(doc["accessors"]) - 1))]
        acc["count"] = draw(st.sampled_from([-1, 0, 10**12, 2**40]))
        if draw(st.booleans()):
            acc.pop("bufferView", None)
    elif kind == "matrix":
        node = doc["nodes"][draw(st.integers(0, len(doc["nodes"]) - 1))]
        node["matrix"] = [draw(st.sampled_from([float("nan"), float("inf"), 1e300, 1e200, 1.0, 0.0])) for _ in range(16)]
    elif kind == "deep":
        _deep_nodes(doc, draw(st.sampled_from([50, 1100])))
    elif kind == "times":
        # Animation key times far apart: resampling them must stay within the file's means.
        sampler = doc["animations"][0]["samplers"][0]
        acc = doc["accessors"][sampler["input"]]
        view = doc["bufferViews"][acc["bufferView"]]
        at = view.get("byteOffset", 0) + acc.get("byteOffset", 0) + 4 * (acc["count"] - 1)
        struct.pack_into("<f", blob, at, draw(st.sampled_from([1e30, 3e38, float("nan"), -1e30])))
        acc.pop("max", None)
    if draw(st.booleans()):
        data, suffix = _glb(doc, bytes(blob)), ".glb"
    else:
        buffers = doc.get("buffers")
        if isinstance(buffers, list) and buffers and isinstance(buffers[0], dict):  # unless the damage was there
            buffers[0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()
        data, suffix = json.dumps(doc, allow_nan=True).encode(), ".gltf"
    if kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    return data, suffix, fps


@FUZZ
@given(case=damaged_gltf())
def test_damaged_gltf_reads_or_names_the_file(case, tmp_path_factory, warm):
    data, suffix, fps = case
    path = tmp_path_factory.mktemp("gltf") / f"damaged{suffix}"
    path.write_bytes(data)
    _read_checked(lambda p: read_gltf(p, fps=fps), path, GltfError)


# The failures the issue names, each as one fixed case so that none depends on the draw.
def _rigged(edit, tmp_path, suffix=".glb"):
    doc, blob = GLTF_PARTS["RiggedSimple.glb"]
    doc = json.loads(json.dumps(doc))
    edit(doc)
    path = tmp_path / f"case{suffix}"
    if suffix == ".glb":
        path.write_bytes(_glb(doc, blob))
    else:
        doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
        path.write_text(json.dumps(doc, allow_nan=True))
    return path


def _output_accessor(doc):
    return doc["accessors"][doc["animations"][0]["samplers"][0]["output"]]


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda d: (_output_accessor(d).update(count=10**12), _output_accessor(d).pop("bufferView")), ".count"),
        (lambda d: _output_accessor(d).update(count=-1), ".count"),
        (lambda d: (_output_accessor(d).update(count=-1), _output_accessor(d).pop("bufferView")), ".count"),
        (lambda d: d["nodes"][0].update(matrix=[float("nan")] * 16), "nodes[0].matrix"),
        (lambda d: [d["nodes"][i].update(matrix=[1e200] * 16) for i in (0, 1)], "not finite"),
        (lambda d: d["bufferViews"][_output_accessor(d)["bufferView"]].update(byteStride=-64), "byteStride"),
    ],
)
@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_known_glTF_failures_name_the_file_and_field(edit, field, suffix, tmp_path):
    path = _rigged(edit, tmp_path, suffix)
    with pytest.raises(GltfError) as err:
        _read_checked(read_gltf, path, ())
    assert str(path) in str(err.value) and field in str(err.value), str(err.value)


@pytest.mark.parametrize("fps", [1e12, 0.0, -30.0, float("nan")])
def test_absurd_resampling_rates_are_refused(fps):
    with pytest.raises(GltfError, match="fps"):
        read_gltf(DATA / "CesiumMan.glb", fps=fps)


def test_glTF_nested_deeper_than_the_recursion_limit_reads(tmp_path, warm):
    path = _rigged(lambda d: _deep_nodes(d, 1100), tmp_path)
    imp = _read_checked(read_gltf, path, GltfError)
    assert imp is not None and len(imp.skeleton) == 2 + 1100


def test_json_nested_far_too_deep_names_the_file(tmp_path):
    path = tmp_path / "deep.gltf"
    path.write_text('{"asset": {"version": "2.0"}, "extras": ' + "[" * 200_000 + "]" * 200_000 + "}")
    with pytest.raises(GltfError, match="deep.gltf"):
        _read_checked(read_gltf, path, ())
