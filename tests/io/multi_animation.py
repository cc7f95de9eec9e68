"""A glTF with several animations, made from CesiumMan (which has one) for the tests.

CesiumMan's walk is kept as "Walk", and copied twice with its key times stretched: "Slow"
(twice as long) and an unnamed one (half as long). The copies share the walk's output values
but not its input accessor, so the three differ in duration and nothing else.
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pygltflib

DATA = Path("/work/shared/data")
SOURCE = DATA / "CesiumMan.glb"
# (name, stretch of the key times); None: unnamed
ANIMATIONS = (("Walk", 1.0), ("Slow", 2.0), (None, 0.5))


def source_duration() -> float:
    """CesiumMan's walk, first key to last, read plainly from its input accessors."""
    g = pygltflib.GLTF2().load(str(SOURCE))
    blob = g.binary_blob()
    times = [_floats(g, blob, s.input) for s in g.animations[0].samplers]
    return float(max(t.max() for t in times) - min(t.min() for t in times))


def durations() -> dict[str | None, float]:
    d = source_duration()
    return {name: d * stretch for name, stretch in ANIMATIONS}


def write_multi_animation(path: Path) -> Path:
    g = pygltflib.GLTF2().load(str(SOURCE))
    blob = bytearray(g.binary_blob())
    walk = g.animations[0]
    inputs = sorted({s.input for s in walk.samplers})
    animations = []
    for name, stretch in ANIMATIONS:
        remap = {}
        for acc in inputs:
            times = _floats(g, bytes(blob), acc) * stretch
            remap[acc] = _append_floats(g, blob, times)
        samplers = [pygltflib.AnimationSampler(input=remap[s.input], output=s.output, interpolation=s.interpolation)
                    for s in walk.samplers]
        channels = [pygltflib.AnimationChannel(sampler=c.sampler, target=pygltflib.AnimationChannelTarget(node=c.target.node, path=c.target.path))
                    for c in walk.channels]
        animations.append(pygltflib.Animation(name=name, samplers=samplers, channels=channels))
    g.animations = animations
    g.buffers[0].byteLength = len(blob)
    g.set_binary_blob(bytes(blob))
    g.save_binary(str(path))
    return path


def _floats(g, blob: bytes, index: int) -> np.ndarray:
    acc = g.accessors[index]
    view = g.bufferViews[acc.bufferView]
    start = (view.byteOffset or 0) + (acc.byteOffset or 0)
    return np.frombuffer(blob, dtype="<f4", count=acc.count, offset=start).astype(np.float64)


def _append_floats(g, blob: bytearray, values: np.ndarray) -> int:
    while len(blob) % 4:
        blob.append(0)
    offset = len(blob)
    blob += struct.pack(f"<{len(values)}f", *values)
    g.bufferViews.append(pygltflib.BufferView(buffer=0, byteOffset=offset, byteLength=4 * len(values)))
    g.accessors.append(pygltflib.Accessor(
        bufferView=len(g.bufferViews) - 1, componentType=pygltflib.FLOAT, count=len(values), type="SCALAR",
        min=[float(values.min())], max=[float(values.max())],
    ))
    return len(g.accessors) - 1
