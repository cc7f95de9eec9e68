"""Import a glTF 2.0 skin (.glb or .gltf) as a Skeleton, and one of its animations as a Clip.

What is imported:
- The joints of every skin (or of the one named by `skin`); several skins sharing joints give
  one skeleton. Nodes between two joints that no skin lists are kept as joints too, so the
  hierarchy stays connected, and so are empty leaf nodes under a leaf joint (the end of its
  bone, as FBX converters write it). The rest pose is the nodes' own transforms (translation,
  rotation, scale or `matrix`), not the inverse bind matrices.
- Ancestors above the top joints (a Z-up conversion node, a scaled or rotated armature) are
  baked into the root joints, so the skeleton stands in the scene's world frame, Y-up as glTF
  defines it, in metres.
- Scale: a Skeleton is rigid (translation and rotation per joint), so a scale anywhere, uniform
  or not, is folded into the offsets of the joints below it: world positions are exact in every
  frame, and each joint keeps the rotation part of its world matrix (the nearest rotation, by
  polar decomposition; with non-uniform scale the axes are no longer orthogonal and that is the
  closest rigid frame). A mesh skinned to the result would need the scale back; rigedit poses
  joints, not meshes.
- The first animation (or the one `animation` names, by name or index; list_animations says
  what a file holds) becomes a Clip: translation, rotation and scale channels, LINEAR, STEP
  and CUBICSPLINE, resampled at `fps`, or by default at the keys' own spacing when they are
  evenly spaced (30 fps otherwise), from the first key to the last.
  Morph-target weights are ignored.
- A file that requires an extension rigedit cannot read (gltf_codecs.not_understood) is
  refused, naming it: its nodes or keys may mean something else than they say. Compressed
  views (EXT_meshopt_compression) read as plain ones, through GltfDocument.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_matrix, quat_normalize, quat_slerp, quat_to_matrix

from .bvh import AUTO_TURNS
from .bvh_axes import UP_TO_Y, parse_up, turned
from .bvh_format import MAX_JOINTS
from .bvh_units import guess_up_axis
from .gltf_animations import AnimationInfo, list_animations, pick_animation
from .gltf_codecs import not_understood
from .gltf_data import GltfDocument, GltfError

__all__ = ["AnimationInfo", "GltfError", "GltfImport", "list_animations", "read_gltf"]

DEFAULT_FPS = 30.0
# Resampling rates accepted (frames per second): slower than 1 fps is no animation, faster
# than 1 kHz is more than any mocap system records and only costs memory.
FPS_RANGE = (1.0, 1000.0)
# The resampled clip may hold this many node-frames (a 4x4 matrix each, several copies while
# converting), or one per 16 bytes of the file when that is more: a file justifies the frames
# it stores keys for, not an hour-long resampling of two keys.
MIN_NODE_FRAMES = 500_000
BYTES_PER_NODE_FRAME = 16
# Key times are float32: 1/24 s keys come back 1e-7 s apart from exact. Spacings this close
# (relative) count as even, so the keys themselves become the frames.
EVEN_SPACING_RTOL = 1e-3


@dataclass
class GltfImport:
    path: str
    skeleton: Skeleton
    clip: Clip | None
    skins: list[str]
    nodes: list[int]  # the glTF node index of each skeleton joint
    animation: str | None  # name (or "animations[i]") of the imported animation
    warnings: list[str] = field(default_factory=list)
    animation_index: int | None = None  # its index in the file's animations
    # The quaternion the file's world was turned by to stand Y-up (up_axis), identity when not:
    # joint world transforms are turn * W * turn^-1 (bvh_axes.turned); gltf_mesh needs it.
    turn: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))

    def summary(self) -> str:
        anim = "no animation" if self.clip is None else (
            f"{self.clip.n_frames} frames at {self.clip.frame_rate:.4g} fps from {self.animation}"
        )
        return f"{len(self.skeleton)} joints from skin(s) {', '.join(self.skins)}; {anim}"


def read_gltf(
    path: str | os.PathLike,
    *,
    skin: str | int | None = None,
    animation: int | str | None = 0,
    fps: float | None = None,
    up_axis: str | None = None,
) -> GltfImport:
    """Read a .glb or .gltf file. Raises GltfError (a ValueError) naming the file, field and problem.

    up_axis: None trusts the file (glTF is +Y up by definition); an axis ("z", "-x", ...)
    declares the file's up and turns it to +Y; "auto" guesses it from head and feet, as for BVH.
    animation: an index, or a name (or digits, as a command line gives an index); None
    imports no clip. An unknown one is a GltfError that lists the file's animations.
    """
    doc = GltfDocument(path)
    try:
        up = None if up_axis is None else parse_up(up_axis)
    except ValueError as e:
        raise doc.error(None, f"up_axis: {e}") from None
    try:
        # Overflow in a composed transform is caught and named by _finite_world; numpy's
        # warning about it would only be noise on the console.
        with np.errstate(over="ignore", invalid="ignore"):
            imp = _read(doc, skin, animation, fps)
            return imp if up is None else _upright(imp, up)
    except GltfError:
        raise
    except (TypeError, AttributeError, KeyError, IndexError, OverflowError, ValueError, np.linalg.LinAlgError) as e:
        # The checks above name the field for everything they know of; a JSON value of a
        # type nobody expected (a string where a list belongs) still names the file here
        # rather than escaping as a traceback.
        raise doc.error(None, f"malformed glTF data ({type(e).__name__}: {e})") from None


def _read(doc: GltfDocument, skin, animation, fps) -> GltfImport:
    g = doc.gltf
    if fps is not None:
        try:
            fps = float(fps)
        except (TypeError, ValueError):
            raise doc.error(None, f"fps must be a number, got {fps!r}") from None
        if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:
            raise doc.error(None, f"fps must be between {FPS_RANGE[0]:g} and {FPS_RANGE[1]:g}, got {fps!r}")
    unknown = not_understood(g)
    if unknown:
        raise doc.error("extensionsRequired", f"needs {', '.join(unknown)}, which rigedit cannot read")
    index = pick_animation(doc, animation)  # before the work: a mistyped name fails at once
    skins = _pick_skins(doc, skin)
    parent_of = _node_parents(doc)
    order, parents = _skeleton_nodes(doc, skins, parent_of)
    names = _unique_names(doc, order)
    warnings: list[str] = []

    rest_local = {n: _node_matrix(doc, n)[None] for n in _with_ancestors(order, parent_of)}
    rot, trans = _local_rigid(_finite_world(doc, rest_local, order, parent_of), order, parents)
    skeleton = Skeleton(names, parents, trans[0], rot[0])

    clip, anim_name = None, None
    if index is not None:
        anim_name = g.animations[index].name or f"animations[{index}]"
        local, frame_time = _sample_animation(doc, index, rest_local, fps, warnings)
        if local is not None:
            rot, trans = _local_rigid(_finite_world(doc, local, order, parent_of), order, parents)
            clip = Clip(rot, trans, frame_time)
    skin_names = [g.skins[s].name or f"skins[{s}]" for s in skins]
    return GltfImport(doc.path, skeleton, clip, skin_names, order, anim_name, warnings, index)


def _upright(imp: GltfImport, up: str) -> GltfImport:
    pose = imp.skeleton.rest_pose() if imp.clip is None else imp.clip.frame(0)
    guess, reason = guess_up_axis(imp.skeleton, pose)
    axis = guess if up == "auto" else up
    if up == "auto" and guess not in AUTO_TURNS:
        axis = "+y"
    if axis != "+y":
        imp.skeleton, imp.clip = turned(imp.skeleton, imp.clip, UP_TO_Y[axis])
        imp.turn = np.asarray(UP_TO_Y[axis], dtype=np.float64)
        imp.warnings.append(f"turned from {axis} up to +Y up ({'given' if up != 'auto' else reason})")
    return imp


def _finite_world(doc: GltfDocument, local, order, parent_of) -> dict[int, np.ndarray]:
    world = compose_world(local, order, parent_of)
    for n in order:
        if not np.all(np.isfinite(world[n])):
            raise doc.error(f"nodes[{n}]", "its transform, composed with its ancestors' and animation, is not finite (overflow)")
    return world


def _pick_skins(doc: GltfDocument, skin) -> list[int]:
    skins = doc.gltf.skins
    if not skins:
        raise doc.error("skins", "the file has no skin, so no joints to import")
    if skin is None:
        return list(range(len(skins)))
    if isinstance(skin, int):
        if not 0 <= skin < len(skins):
            raise doc.error("skins", f"has no skin {skin} (the file has {len(skins)})")
        return [skin]
    found = [i for i, s in enumerate(skins) if s.name == skin]
    if not found:
        raise doc.error("skins", f"no skin named {skin!r}; skins are {[s.name for s in skins]}")
    return found[:1]


def _node_parents(doc: GltfDocument) -> dict[int, int]:
    parent_of: dict[int, int] = {}
    n = len(doc.gltf.nodes)
    for i, node in enumerate(doc.gltf.nodes):
        for c in node.children or []:
            if not 0 <= c < n:
                raise doc.error(f"nodes[{i}].children", f"names node {c}, which does not exist")
            if c in parent_of:
                raise doc.error(f"nodes[{i}].children", f"node {c} already has parent {parent_of[c]}")
            parent_of[c] = i
    # A cycle would send the ancestor walks below round forever. Each walk up stops at a
    # node an earlier walk cleared, so the check is linear even for a chain of many nodes.
    walked: dict[int, int] = {}
    for i in range(n):
        j = i
        while j not in walked:
            walked[j] = i
            if j not in parent_of:
                break
            j = parent_of[j]
        else:
            if walked[j] == i:
                raise doc.error(f"nodes[{j}]", "is part of a cycle in the node hierarchy")
    return parent_of


def _skeleton_nodes(doc: GltfDocument, skins: list[int], parent_of: dict[int, int]) -> tuple[list[int], list[int]]:
    """Skeleton nodes parents-first, and each one's parent as a skeleton index (-1 for a root)."""
    joints = _skin_joints(doc, skins)
    keep, no_joint_above = _connected(joints, parent_of)
    _keep_bone_ends(doc, joints, keep, parent_of)
    order, parent_node = _depth_first_kept(keep, parent_of, no_joint_above)
    if len(order) > MAX_JOINTS:
        raise doc.error(f"skins[{skins[0]}].joints", f"makes a skeleton of {len(order)} joints; rigedit reads up to {MAX_JOINTS}")
    index = {n: i for i, n in enumerate(order)}
    parents = [index.get(parent_node[n], -1) for n in order]
    return order, parents


def _skin_joints(doc: GltfDocument, skins: list[int]) -> set[int]:
    """Every node the skins list as a joint; a GltfError for none, too many or a missing node."""
    joints: set[int] = set()
    for s in skins:
        for k, j in enumerate(doc.gltf.skins[s].joints or []):
            if not 0 <= j < len(doc.gltf.nodes):
                raise doc.error(f"skins[{s}].joints[{k}]", f"names node {j}, which does not exist")
            joints.add(j)
    if not joints:
        raise doc.error(f"skins[{skins[0]}].joints", "is empty")
    if len(joints) > MAX_JOINTS:
        raise doc.error(f"skins[{skins[0]}].joints", f"lists {len(joints)} joints; rigedit reads up to {MAX_JOINTS}")
    return joints


def _connected(joints: set[int], parent_of: dict[int, int]) -> tuple[set[int], set[int]]:
    """(kept, no joint above): the joints with the nodes between two of them, which keep the
    hierarchy connected, and the nodes known to have no joint above them."""
    # Every walk up stops at a node already known (kept, or known to have no joint above),
    # so the whole pass is linear in the nodes however deep the hierarchy is.
    keep = set(joints)
    no_joint_above: set[int] = set()
    for j in joints:
        path, a = [], j
        while a in parent_of:
            a = parent_of[a]
            if a in keep:  # a joint, or a node on the way to one
                keep.update(path)
                break
            if a in no_joint_above:
                no_joint_above.update(path)
                break
            path.append(a)
        else:
            no_joint_above.update(path)
    return keep, no_joint_above


def _keep_bone_ends(doc: GltfDocument, joints: set[int], keep: set[int], parent_of: dict[int, int]) -> None:
    """A leaf joint's empty child node added to `keep`. A leaf joint's bone has no end in the
    skin; converters from FBX keep it as an empty child node (RobotExpressive's LowerLegL_end
    at the ankle). Kept as a joint, it gives that last bone its length, so a leg reaches the
    foot."""
    has_kept_child = {parent_of[k] for k in keep if k in parent_of}
    for j in joints:
        if j in has_kept_child:
            continue
        for c in doc.gltf.nodes[j].children or []:
            node = doc.gltf.nodes[c]
            if not node.children and node.mesh is None and node.skin is None and node.camera is None:
                keep.add(c)


def _depth_first_kept(keep: set[int], parent_of: dict[int, int], no_joint_above: set[int]) -> tuple[list[int], dict]:
    """The kept nodes depth first (parents first, children in node order) and each one's
    nearest kept ancestor (-1: none)."""

    def kept_parent(n: int) -> int:
        while n in parent_of:
            n = parent_of[n]
            if n in keep:
                return n
            if n in no_joint_above:
                return -1
        return -1

    parent_node = {n: kept_parent(n) for n in keep}
    kids: dict[int, list[int]] = {}
    for n in sorted(keep):
        kids.setdefault(parent_node[n], []).append(n)
    order: list[int] = []
    stack = list(reversed(kids.get(-1, [])))
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(kids.get(n, [])))
    return order, parent_node


def _unique_names(doc: GltfDocument, order: list[int]) -> list[str]:
    names, taken = [], set()
    next_suffix: dict[str, int] = {}  # per base name, so a thousand "Bone"s stay linear
    for n in order:
        base = doc.gltf.nodes[n].name
        base = base if isinstance(base, str) and base else f"node{n}"
        name, k = base, next_suffix.get(base, 2)
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        next_suffix[base] = k
        taken.add(name)
        names.append(name)
    return names


def _with_ancestors(order: list[int], parent_of: dict[int, int]) -> list[int]:
    out = set(order)
    for n in order:
        while n in parent_of and parent_of[n] not in out:
            n = parent_of[n]
            out.add(n)
    return sorted(out)


def _node_matrix(doc: GltfDocument, n: int) -> np.ndarray:
    node = doc.gltf.nodes[n]
    if node.matrix is not None:
        m = np.asarray(node.matrix, dtype=np.float64)
        if m.shape != (16,) or not np.all(np.isfinite(m)):
            raise doc.error(f"nodes[{n}].matrix", "must be 16 finite numbers")
        return m.reshape(4, 4).T  # glTF stores matrices column by column
    t = _vector(doc, n, "translation", node.translation, [0.0, 0.0, 0.0])
    r = _vector(doc, n, "rotation", node.rotation, [0.0, 0.0, 0.0, 1.0])
    s = _vector(doc, n, "scale", node.scale, [1.0, 1.0, 1.0])
    return _trs(t[None], r[None], s[None])[0]


def _vector(doc, n, name, value, default) -> np.ndarray:
    if value is None:
        return np.array(default)
    v = np.asarray(value, dtype=np.float64)
    if v.shape != (len(default),) or not np.all(np.isfinite(v)):
        raise doc.error(f"nodes[{n}].{name}", f"must be {len(default)} finite numbers, got {value!r}")
    return v


def _trs(t: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """4x4 matrices T @ R @ S for (frames, 3), (frames, 4), (frames, 3)."""
    m = np.zeros(t.shape[:-1] + (4, 4))
    m[..., :3, :3] = quat_to_matrix(quat_normalize(r)) * s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def compose_world(local: dict[int, np.ndarray], order, parent_of: dict[int, int]) -> dict[int, np.ndarray]:
    """World matrices of the nodes in `order` (and their ancestors) from their local ones, each
    (4, 4) or (frames, 4, 4), given each node's parent."""
    world: dict[int, np.ndarray] = {}
    for n in order:
        # Walk up to a node already done (or a scene root), then compose down: a loop, as
        # skeletons nest deeper than Python's recursion limit allows.
        path = []
        while n not in world:
            path.append(n)
            if n not in parent_of:
                break
            n = parent_of[n]
        for m in reversed(path):
            p = parent_of.get(m)
            world[m] = local[m] if p is None else world[p] @ local[m]
    return world


def _nearest_rotation(m: np.ndarray) -> np.ndarray:
    u, _, vt = np.linalg.svd(m)
    d = np.sign(np.linalg.det(u @ vt))
    u[..., :, 2] *= d[..., None]  # a mirroring scale: keep a proper rotation
    return u @ vt


def _local_rigid(world: dict[int, np.ndarray], order: list[int], parents: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Local rotations (frames, n, 4) and translations (frames, n, 3) that give the world positions exactly."""
    pos = np.stack([world[n][:, :3, 3] for n in order], axis=1)
    rot = _nearest_rotation(np.stack([world[n][:, :3, :3] for n in order], axis=1))
    par = np.array(parents)
    has_parent = par >= 0
    prot = np.where(has_parent[:, None, None], rot[:, np.maximum(par, 0)], np.eye(3))
    ppos = np.where(has_parent[:, None], pos[:, np.maximum(par, 0)], 0.0)
    prot_t = np.swapaxes(prot, -1, -2)
    local_rot = prot_t @ rot
    local_pos = (prot_t @ (pos - ppos)[..., None])[..., 0]
    return quat_from_matrix(local_rot), local_pos


def _sample_animation(doc: GltfDocument, a: int, rest_local: dict[int, np.ndarray], fps, warnings: list[str]):
    """Per node local matrices (frames, 4, 4) over the animation, and the frame time."""
    anim = doc.gltf.animations[a]
    channels = []
    for c, ch in enumerate(anim.channels or []):
        where = f"animations[{a}].channels[{c}]"
        node, path = ch.target.node, ch.target.path
        if path == "weights" or node not in rest_local:
            continue  # morph weights, or a node outside the skeleton and its ancestors
        if path not in ("translation", "rotation", "scale"):
            raise doc.error(f"{where}.target.path", f"unknown path {path!r}")
        if not 0 <= ch.sampler < len(anim.samplers):
            raise doc.error(f"{where}.sampler", f"no sampler {ch.sampler}")
        s = anim.samplers[ch.sampler]
        interp = s.interpolation or "LINEAR"
        if interp not in ("LINEAR", "STEP", "CUBICSPLINE"):
            raise doc.error(f"animations[{a}].samplers[{ch.sampler}].interpolation", f"unknown interpolation {interp!r}")
        times = doc.accessor(s.input)[:, 0]
        values = doc.accessor(s.output)
        width = 4 if path == "rotation" else 3
        per_key = 3 if interp == "CUBICSPLINE" else 1
        if values.shape[1] != width or len(values) != per_key * len(times) or len(times) == 0:
            raise doc.error(f"animations[{a}].samplers[{ch.sampler}]", f"has {len(times)} key times but {len(values)} {path} values")
        if np.any(np.diff(times) <= 0):
            raise doc.error(f"animations[{a}].samplers[{ch.sampler}].input", "key times must increase")
        channels.append((node, path, interp, times, values.reshape(len(times), per_key, width)))
    if not channels:
        warnings.append(f"animation {a} moves no joint; no clip imported")
        return None, None
    frame_times, frame_time = _frame_times(doc, [c[3] for c in channels], fps, len(rest_local), f"animations[{a}]")
    frames = len(frame_times)
    trs: dict[int, list[np.ndarray]] = {}
    for node, path, interp, times, values in channels:
        if node not in trs:
            trs[node] = [np.broadcast_to(x, (frames, len(x))).copy() for x in _rest_trs(doc, node)]
            if doc.gltf.nodes[node].matrix is not None:
                warnings.append(f"node {node} has a matrix and is animated (glTF forbids it); the matrix was split into TRS")
        trs[node][("translation", "rotation", "scale").index(path)] = _sample(times, values, interp, frame_times, path == "rotation")
    local = {n: _trs(*trs[n]) if n in trs else np.broadcast_to(rest_local[n], (frames, 4, 4)) for n in rest_local}
    return local, frame_time


def _rest_trs(doc: GltfDocument, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    node = doc.gltf.nodes[n]
    if node.matrix is None:
        return (
            _vector(doc, n, "translation", node.translation, [0.0, 0.0, 0.0]),
            _vector(doc, n, "rotation", node.rotation, [0.0, 0.0, 0.0, 1.0]),
            _vector(doc, n, "scale", node.scale, [1.0, 1.0, 1.0]),
        )
    m = _node_matrix(doc, n)
    return m[:3, 3].copy(), quat_from_matrix(_nearest_rotation(m[:3, :3])), np.linalg.norm(m[:3, :3], axis=0)


def _frame_times(doc: GltfDocument, key_times: list[np.ndarray], fps, nodes: int, where: str) -> tuple[np.ndarray, float]:
    t0 = min(t[0] for t in key_times)
    t1 = max(t[-1] for t in key_times)
    if fps is not None:
        dt = 1.0 / fps
    else:
        keys = np.unique(np.concatenate(key_times)).astype(np.float64)
        steps = np.diff(keys)
        dt = 1.0 / DEFAULT_FPS
        if len(steps) and np.ptp(steps) <= EVEN_SPACING_RTOL * steps.mean():
            # The keys are the frames, read at their own stored times: t0 + k * dt lands up to
            # a float32 rounding (4e-6 s at 80 s) beside a key, and interpolating there moves a
            # fast joint by micrometres, more than a round trip's 1e-6 of the figure allows.
            return keys, float(t1 - t0) / len(steps)
    count = int(np.floor((t1 - t0) / dt + 1e-6)) + 1
    budget = max(MIN_NODE_FRAMES, doc.size // BYTES_PER_NODE_FRAME)
    if count * nodes > budget:
        raise doc.error(
            where,
            f"resampling {float(t1 - t0):.6g} s at {1.0 / dt:.6g} fps gives {count} frames of {nodes} nodes, "
            f"more than the file's size justifies ({budget} node-frames); give a lower fps",
        )
    return t0 + dt * np.arange(count), dt


def _sample(times: np.ndarray, values: np.ndarray, interp: str, at: np.ndarray, is_rotation: bool) -> np.ndarray:
    """Values (len(at), width) of one channel; held at the first and last key."""
    k = len(times)
    if k == 1:
        return np.broadcast_to(values[0, 1 if interp == "CUBICSPLINE" else 0], (len(at), values.shape[-1])).copy()
    i = np.clip(np.searchsorted(times, at, side="right") - 1, 0, k - 2)
    span = times[i + 1] - times[i]
    u = np.clip((at - times[i]) / span, 0.0, 1.0)
    if interp == "STEP":
        j = np.where(u >= 1.0, i + 1, i)
        return values[j, 0].copy()
    if interp == "LINEAR":
        a, b = values[i, 0], values[i + 1, 0]
        if is_rotation:
            return quat_slerp(quat_normalize(a), quat_normalize(b), u)
        return a + u[:, None] * (b - a)
    # CUBICSPLINE: per key (in-tangent, value, out-tangent), Hermite between keys (glTF spec, Appendix C).
    u2, u3 = u * u, u * u * u
    h = [2 * u3 - 3 * u2 + 1, (u3 - 2 * u2 + u) * span, -2 * u3 + 3 * u2, (u3 - u2) * span]
    out = h[0][:, None] * values[i, 1] + h[1][:, None] * values[i, 2] + h[2][:, None] * values[i + 1, 1] + h[3][:, None] * values[i + 1, 0]
    return quat_normalize(out) if is_rotation else out
