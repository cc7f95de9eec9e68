"""Export a rig's result to glTF 2.0 (.glb or .gltf).

With a glTF source (the file the rig was imported from), the source document is copied whole
(nodes, meshes, skins, materials, textures, its own animations unless `only_result`) and the
result is added as its first animation, so a viewer that plays the first one plays it, and
re-importing the file reads it. Without one (a BVH or a preset), the file is a skeleton: one
node a joint, with the animation.

The result is rigedit's world pose of every joint; the importer folded ancestors and scale
into a rigid skeleton (io/gltf.py), so each joint node's local translation and rotation are
worked back from the world pose under its glTF parent's world matrix (a static ancestor's
rest matrix, or the joint parent's new one), keeping the node's own scale: world positions
are exact, rotations exact wherever scales are uniform. A turn the import made to bring the
file to +Y up is taken back off, so the copied meshes stay where the source has them.
"""
from __future__ import annotations

import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pygltflib

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_conj, quat_from_matrix, quat_mul, quat_normalize, quat_rotate, quat_to_matrix

from . import formats
from .atomic import atomic_write_bytes
from .float32 import as_float32
from .gltf_blob import Blob, document_bytes
from .gltf import compose_world
from .gltf_codecs import CODECS, extension_of
from .gltf_data import GltfDocument
from .gltf_draco import compressed_accessors

GLTF_SUFFIXES = formats.GLTF.suffixes
GENERATOR = "rigedit"


@dataclass(frozen=True)
class GltfSource:
    """Where a rig came from, for writing its result back into that document."""

    path: str
    nodes: tuple[int, ...]  # the glTF node of each skeleton joint (GltfImport.nodes)
    turn: tuple[float, float, float, float] | None = None  # the quaternion the import turned the file by


def write_gltf(
    path: str | os.PathLike,
    skeleton: Skeleton,
    clip: Clip,
    *,
    source: GltfSource | None = None,
    only_result: bool = False,
    animation_name: str = "rigedit",
) -> None:
    """Write `clip` on `skeleton` as glTF, atomically; the suffix of `path` picks GLB or JSON."""
    suffix = Path(path).suffix.lower()
    if not formats.GLTF.matches(path):
        raise ValueError(f"{path}: a glTF file ends in {formats.listing([formats.GLTF], 'or')}")
    if clip.rotations.shape[1] != len(skeleton):
        raise ValueError(f"clip has {clip.rotations.shape[1]} joints, skeleton has {len(skeleton)}")
    path = os.fspath(path)
    if source is None:
        gltf, blob, nodes = _skeleton_document(skeleton, path)
        translations, rotations = clip.translations, clip.rotations
    else:
        if len(source.nodes) != len(skeleton):
            raise ValueError(f"{source.path}: the source has {len(source.nodes)} joints, the rig {len(skeleton)}")
        gltf, blob = _source_document(source, path)
        nodes = list(source.nodes)
        translations, rotations = _node_tracks(gltf, skeleton, clip, nodes, source.turn)
        if only_result:
            gltf.animations = []
    gltf.asset.generator = GENERATOR
    animation = _animation(blob, nodes, clip.frame_time, translations, rotations, animation_name)
    gltf.animations = [animation] + list(gltf.animations or [])
    atomic_write_bytes(path, document_bytes(gltf, blob, suffix == ".glb"), backup=False)  # .gltf: JSON with the buffer inline


def _skeleton_document(skeleton: Skeleton, path: str):
    gltf = pygltflib.GLTF2(asset=pygltflib.Asset(version="2.0"))
    offsets = as_float32(skeleton.offsets, path, "nodes[].translation", skeleton.names)
    for i, name in enumerate(skeleton.names):
        gltf.nodes.append(
            pygltflib.Node(
                name=name,
                translation=[float(v) for v in offsets[i]],
                rotation=[float(v) for v in quat_normalize(skeleton.rest_rotations[i])],
                children=skeleton.children(i) or None,
            )
        )
    roots = [i for i, p in enumerate(skeleton.parents) if p < 0]
    gltf.scenes = [pygltflib.Scene(name="rigedit", nodes=roots)]
    gltf.scene = 0
    blob = Blob(gltf, path)
    # A skin with no mesh: it names the nodes as joints, so importers (rigedit's, three.js's
    # bones) see a skeleton rather than empty transforms.
    pos, mats = skeleton.fk_matrices(skeleton.rest_pose())
    bind = np.zeros((len(skeleton), 4, 4))
    bind[:, :3, :3] = np.swapaxes(mats, -1, -2)
    bind[:, :3, 3] = -np.einsum("nij,nj->ni", bind[:, :3, :3], pos)
    bind[:, 3, 3] = 1.0
    inverse_bind = blob.accessor(np.swapaxes(bind, -1, -2).reshape(len(skeleton), 16),  # glTF: column-major
                                 "skins[0].inverseBindMatrices", skeleton.names)
    gltf.skins = [pygltflib.Skin(name="rigedit", joints=list(range(len(skeleton))), inverseBindMatrices=inverse_bind)]
    return gltf, blob, list(range(len(skeleton)))


_VIEW_CODECS = [c for c in CODECS.values() if c.level == "bufferView"]


def _codec_fallback(buffer) -> bool:
    """A buffer that only stands in for a codec's compressed views (no bytes of its own)."""
    return buffer.uri is None and any(extension_of(buffer, c.extension) is not None for c in _VIEW_CODECS)


def _source_document(source: GltfSource, path: str):
    """The source document, its buffers merged into one blob and external images embedded."""
    doc = GltfDocument(source.path)
    gltf = doc.gltf
    # Read through the source's own buffers and offsets, before the merge below rewrites them.
    _add_missing_bounds(doc)
    unstrided = {k: doc.packed_bytes(k) for k in _strided_animation_or_skin_accessors(gltf)}
    # Views stored compressed (EXT_meshopt_compression) are written decoded: the merge below
    # moves views, and the codec's offsets into its own buffers would no longer hold.
    decoded = {i: doc.view_bytes(f"bufferViews[{i}]", i) for i, bv in enumerate(gltf.bufferViews or [])
               if any(extension_of(bv, c.extension) is not None for c in _VIEW_CODECS)}
    blob = Blob(gltf, path)
    starts = [None if _codec_fallback(b) else blob.append_bytes(doc.buffer(i)) for i, b in enumerate(gltf.buffers or [])]
    for i, bv in enumerate(gltf.bufferViews or []):
        if i in decoded:
            bv.byteOffset = blob.append_bytes(decoded[i])
            bv.extensions = {k: v for k, v in bv.extensions.items() if k not in CODECS}
        else:
            bv.byteOffset = (bv.byteOffset or 0) + starts[bv.buffer]
        bv.buffer = 0
    if decoded:
        gone = {c.extension for c in _VIEW_CODECS}
        gltf.extensionsUsed = [e for e in gltf.extensionsUsed or [] if e not in gone]
        gltf.extensionsRequired = [e for e in gltf.extensionsRequired or [] if e not in gone] or None
    for k, data in unstrided.items():
        gltf.accessors[k].bufferView = blob.view(data)
        gltf.accessors[k].byteOffset = None
    for k, image in enumerate(gltf.images or []):
        if image.uri and not image.uri.startswith("data:"):
            file = Path(source.path).parent / image.uri
            try:
                data = file.read_bytes()
            except OSError as e:
                raise doc.error(f"images[{k}].uri", f"cannot read {file}: {e.strerror or e}") from None
            image.bufferView = blob.view(data)
            image.mimeType = image.mimeType or mimetypes.guess_type(image.uri)[0] or "image/png"
            image.uri = None
    gltf.buffers = []
    return gltf, blob


def _strided_animation_or_skin_accessors(g: pygltflib.GLTF2) -> list[int]:
    """Accessors of animation samplers and inverse bind matrices over a view with a byteStride.

    glTF forbids byteStride there (only vertex attributes may be strided) and the Khronos
    validator reports each as an error; some exporters wrote it anyway (three.js's
    SimpleSkinning.gltf, from an old COLLADA converter). The copy gives each its own tightly
    packed view; the old view stays for whatever else reads it.
    """
    used = {s.input for a in g.animations or [] for s in a.samplers or []}
    used |= {s.output for a in g.animations or [] for s in a.samplers or []}
    used |= {s.inverseBindMatrices for s in g.skins or [] if s.inverseBindMatrices is not None}
    views = g.bufferViews or []
    out = []
    for k in sorted(k for k in used if isinstance(k, int) and 0 <= k < len(g.accessors)):
        view = g.accessors[k].bufferView
        if isinstance(view, int) and 0 <= view < len(views) and views[view].byteStride is not None:
            out.append(k)
    return out


def _add_missing_bounds(doc: GltfDocument) -> None:
    """min and max where glTF requires them (animation inputs, POSITION) and a source left
    them out, so the copy passes the validator where the source would not."""
    g = doc.gltf
    needed = {s.input for a in g.animations or [] for s in a.samplers or []}
    needed |= {p.attributes.POSITION for m in g.meshes or [] for p in m.primitives or [] if p.attributes.POSITION is not None}
    for k in sorted(needed - compressed_accessors(doc)):  # a Draco blob's bounds are the encoder's to give
        acc = g.accessors[k]
        if not acc.min or not acc.max:  # pygltflib reads a missing one as []
            values = doc.accessor(k)
            if len(values):
                acc.min, acc.max = [float(v) for v in values.min(axis=0)], [float(v) for v in values.max(axis=0)]


def _node_tracks(gltf, skeleton: Skeleton, clip: Clip, nodes: list[int], turn):
    """Local translations (frames, n, 3) and rotations (frames, n, 4) of the joint nodes."""
    pos, world_q = skeleton.fk(Pose(clip.rotations, clip.translations))
    if turn is not None:
        back = quat_conj(np.asarray(turn, dtype=np.float64))
        pos, world_q = quat_rotate(back, pos), quat_mul(back, world_q)
    parent_of = {c: i for i, node in enumerate(gltf.nodes) for c in node.children or []}
    rest = rest_world(gltf)

    frames = clip.n_frames
    world = {}
    out_t = np.empty((frames, len(nodes), 3))
    out_q = np.empty((frames, len(nodes), 4))
    for j, n in enumerate(nodes):
        node = gltf.nodes[n]
        t_rest, q_rest, scale = _trs_of(node)
        if node.matrix is not None:  # glTF: an animated node has TRS, never a matrix
            node.matrix = None
            node.translation, node.rotation, node.scale = list(map(float, t_rest)), list(map(float, q_rest)), list(map(float, scale))
        p = parent_of.get(n)
        if p is None:
            parent = np.broadcast_to(np.eye(4), (frames, 4, 4))
        elif p in world:
            parent = world[p]
        else:
            parent = np.broadcast_to(rest[p], (frames, 4, 4))
        a, b = parent[:, :3, :3], parent[:, :3, 3]
        local_t = np.linalg.solve(a, (pos[:, j] - b)[..., None])[..., 0]
        local_r = np.swapaxes(_nearest_rotation(a), -1, -2) @ quat_to_matrix(world_q[:, j])
        local_q = quat_from_matrix(local_r)
        m = np.zeros((frames, 4, 4))
        m[:, :3, :3] = local_r * scale
        m[:, :3, 3] = local_t
        m[:, 3, 3] = 1.0
        world[n] = parent @ m
        out_t[:, j], out_q[:, j] = local_t, local_q
    return out_t, out_q


def _animation(blob: Blob, nodes, frame_time: float, translations, rotations, name: str) -> pygltflib.Animation:
    frames = translations.shape[0]
    times = blob.accessor(np.arange(frames, dtype=np.float64) * frame_time, f"animation {name!r}'s times", "frame", bounds=True)
    anim = pygltflib.Animation(name=name, samplers=[], channels=[])
    for j, n in enumerate(nodes):
        q = _continuous(quat_normalize(rotations[:, j]))
        joint = blob.gltf.nodes[n].name or f"node {n}"
        for path, values in (("translation", translations[:, j]), ("rotation", q)):
            field = f"animation {name!r}'s {path} of {joint!r} (nodes[{n}])"
            output = blob.accessor(values, field, "frame")
            anim.samplers.append(pygltflib.AnimationSampler(input=times, output=output, interpolation="LINEAR"))
            anim.channels.append(
                pygltflib.AnimationChannel(sampler=len(anim.samplers) - 1, target=pygltflib.AnimationChannelTarget(node=n, path=path))
            )
    return anim


def _continuous(q: np.ndarray) -> np.ndarray:
    """Each quaternion on the same side as the one before, so interpolation takes the short way."""
    q = q.copy()
    if len(q) > 1:
        flips = np.cumsum(np.sum(q[1:] * q[:-1], axis=-1) < 0) % 2
        q[1:][flips == 1] *= -1.0
    return q


def _trs_of(node) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if node.matrix is not None:
        m = np.asarray(node.matrix, dtype=np.float64).reshape(4, 4).T
        scale = np.linalg.norm(m[:3, :3], axis=0)
        return m[:3, 3].copy(), quat_from_matrix(_nearest_rotation(m[:3, :3])), scale
    t = np.array(node.translation if node.translation is not None else [0.0, 0.0, 0.0], dtype=np.float64)
    q = np.array(node.rotation if node.rotation is not None else [0.0, 0.0, 0.0, 1.0], dtype=np.float64)
    s = np.array(node.scale if node.scale is not None else [1.0, 1.0, 1.0], dtype=np.float64)
    return t, quat_normalize(q), s


def rest_world(g: pygltflib.GLTF2) -> dict[int, np.ndarray]:
    """Every node's world matrix (4, 4) in the document's rest transforms."""
    parent_of = {c: i for i, node in enumerate(g.nodes) for c in node.children or []}
    local = {n: _local_matrix(node) for n, node in enumerate(g.nodes)}
    return compose_world(local, range(len(g.nodes)), parent_of)


def _local_matrix(node) -> np.ndarray:
    if node.matrix is not None:
        return np.asarray(node.matrix, dtype=np.float64).reshape(4, 4).T  # glTF stores columns
    t, q, s = _trs_of(node)
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix(q) * s
    m[:3, 3] = t
    return m


def _nearest_rotation(m: np.ndarray) -> np.ndarray:
    u, _, vt = np.linalg.svd(m)
    d = np.sign(np.linalg.det(u @ vt))
    u[..., :, 2] *= d[..., None]
    return u @ vt
