"""Self-penetration read from the character's skinned mesh, where the file has one: the share
of limb vertices inside the body, as MeshRet (Ye et al. 2024) reports it for retargeted motion.

Which vertex belongs where comes from its strongest skin weight: a vertex follows the joint
whose influence on it is largest. Limb vertices are those of the forearm and hand (the arm
chain's elbow joint and everything below it) and of the shin and foot (the knee and below).
The body they must stay out of is the torso's vertices (the spine's joints) and each leg's
(the hip joint and below); as with the capsules (self_contact.py), an arm is tested against
the torso and both legs, a leg against the torso and the other leg, never against itself.

Inside, frame by frame: the point of the posed body surface (the triangles whose corners all
belong to the part, in each of the mesh's primitives on its own) closest to a limb vertex, and the surface's normal there, interpolated from
its vertex normals; the limb vertex is inside when it lies behind the surface by more than
MESH_INSIDE_TOLERANCE of the height. A point counts only when it lies mostly straight behind
its closest point (STRAIGHT_BEHIND: its depth at least half its distance): a part's surface is
cut open where it meets the next part, and a point beyond the cut has its closest point on the
rim, off to the side, not behind it.

Skin presses into skin where limbs touch: in Xbot's own clips a hand hanging against the thigh
sinks 1-2.5 cm into it. So a vertex counts as inside past MESH_INSIDE_TOLERANCE, twice the
capsules' (those are lean on purpose, the mesh is not).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from . import surface_depth_kernel

from ..clip import Clip
from ..mesh import Mesh
from ..skeleton import Pose
from ..skinning import Skinner
from .body import Body


MESH_INSIDE_TOLERANCE = 0.01  # of the height (17.5 mm on 1.75 m)
STRAIGHT_BEHIND = 0.5  # depth / distance to the nearest vertex: within 60 degrees of straight behind it


@dataclass
class MeshPenetration:
    vertex_share: float  # limb vertices inside / limb vertices, over the frames of motion
    frame_share: float  # frames with any limb vertex inside / frames of motion
    deepest: float  # height units (0 when none)
    deepest_frame: int | None
    depth: np.ndarray  # (frames,) the deepest limb vertex inside, height units (0 when none)
    limb_vertices: int
    body_vertices: int
    deepest_joint: int | None = None  # the limb joint nearest the deepest vertex, on deepest_frame (None when none)


def _below(parents: np.ndarray, top: int) -> set[int]:
    """`top` and every joint under it."""
    out, grew = {top}, True
    while grew:
        more = {j for j, p in enumerate(parents) if p in out and j not in out}
        grew = bool(more)
        out |= more
    return out


def _groups(body: Body, owner: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(limbs, obstacles): side-named vertex index arrays. Limbs "left_arm"..., obstacles
    "torso", "left_leg"... (a whole leg: a shin is also what the other leg must not enter)."""
    parents = body.skeleton.parents
    limbs = {name: np.flatnonzero(np.isin(owner, joints)) for name, joints in _limb_joints(body).items()}
    obstacles = {"torso": np.flatnonzero(np.isin(owner, body.spine))}
    for side, leg in body.legs.items():
        obstacles[f"{side}_leg"] = np.flatnonzero(np.isin(owner, sorted(_below(parents, leg[0]))))
    return limbs, obstacles


def _limb_joints(body: Body) -> dict[str, list[int]]:
    """Limb ("left_arm"...) -> its joints: the elbow or knee and every joint below it (their
    vertices are the limb's)."""
    parents = body.skeleton.parents
    tops = {f"{side}_arm": arm[-2] for side, arm in body.arms.items()}
    tops.update({f"{side}_leg": leg[-2] for side, leg in body.legs.items()})
    return {name: sorted(_below(parents, top)) for name, top in tops.items()}


def _owner(mesh: Mesh) -> np.ndarray:
    """Each vertex's joint: the bind of its largest weight (-1 for a vertex on no joint)."""
    strongest = mesh.influences[np.arange(len(mesh)), np.argmax(mesh.weights, axis=1)]
    return mesh.bind_joints[strongest] if len(mesh.bind_joints) else np.full(len(mesh), -1)


NEAREST = 6  # surface vertices whose triangles are searched for a point's closest point
# Of the height: no point of a human body lies deeper than this under its skin (a torso is
# ~0.15 of the height deep), so a limb vertex farther than this from every vertex of a part
# cannot be inside it and is not looked at.
REACH = 0.15


@dataclass
class _Surface:
    """A body part's closed-ish skin: its vertices (mesh indices) and triangles among them."""

    verts: np.ndarray  # (V,) mesh vertex indices
    tris: np.ndarray  # (T, 3) indices into verts
    start: np.ndarray  # (V + 1,) CSR: vertex v's triangles are incident[start[v]:start[v + 1]]
    incident: np.ndarray

    @classmethod
    def of(cls, faces: np.ndarray, verts: np.ndarray) -> "_Surface":
        local = np.full(max(int(faces.max(initial=-1)), int(verts.max(initial=-1))) + 1, -1)
        local[verts] = np.arange(len(verts))
        tris = local[faces[np.isin(faces, verts).all(axis=1)]]
        order = np.argsort(tris.ravel(), kind="stable")
        counts = np.bincount(tris.ravel(), minlength=len(verts))
        return cls(verts, tris, np.concatenate([[0], np.cumsum(counts)]), order // 3)

    def depths(self, points, normals, limb: np.ndarray, reach: float) -> np.ndarray:
        """How far each limb vertex lies behind this surface (negative or -inf: not inside);
        a vertex farther than `reach` from every surface vertex is not looked at (-inf)."""
        surface = np.ascontiguousarray(points[self.verts])
        k = min(NEAREST, len(surface))
        _, near = cKDTree(surface).query(points[limb], k=k, distance_upper_bound=reach)
        near = near.reshape(len(limb), k)
        close = near[:, 0] < len(surface)
        near = np.where(near < len(surface), near, near[:, :1])  # a short list repeats its nearest
        out = np.full(len(limb), -np.inf)
        out[close] = surface_depth_kernel.depths(np.ascontiguousarray(points[limb[close]]), surface,
                                                 np.ascontiguousarray(normals[self.verts]), self.tris,
                                                 np.ascontiguousarray(near[close], dtype=np.int64),
                                                 self.start, self.incident, STRAIGHT_BEHIND)
        return out


def mesh_self_penetration(body: Body, clip: Clip, mesh: Mesh) -> MeshPenetration | None:
    """The measure, or None when the mesh has no limb or no body vertices (a mesh on other
    joints than the roles found, or rigid props only)."""
    limbs, obstacles = _groups(body, _owner(mesh))
    limbs = {k: v for k, v in limbs.items() if len(v)}
    if not limbs or not any(len(v) for v in obstacles.values()):
        return None
    skel, n, s = body.skeleton, body.n_frames, body.first
    skinner = Skinner(mesh, len(skel))
    pos, mats = skel.fk_matrices(Pose(clip.rotations, clip.translations))
    # Per obstacle, the limb vertices that must stay out of it (all but its own leg's), and its
    # surface in each of the mesh's parts on its own: Xbot's joint caps sit inside its skin,
    # and a point between the two is inside the skin, whatever the nearer cap says.
    spans = [(a, e) for _, a, e in mesh.parts] or [(0, len(mesh))]
    tested = [(_Surface.of(mesh.faces, o[(o >= a) & (o < e)]), np.concatenate([v for k, v in limbs.items() if k != part]))
              for part, o in obstacles.items() if any(k != part for k in limbs) for a, e in spans]
    tested = [(surface, limb) for surface, limb in tested if len(surface.tris)]
    every = np.concatenate(list(limbs.values()))
    limb_of = np.repeat(np.arange(len(limbs)), [len(v) for v in limbs.values()])  # per slot, its limb
    slot = np.full(len(mesh), -1)
    slot[every] = np.arange(len(every))
    depth = np.zeros(n)
    inside_count, joint = 0, None
    for f in range(s, n):
        points, normals = skinner.pose(pos[f], mats[f])
        d = np.full(len(every), -np.inf)
        for surface, limb in tested:
            d[slot[limb]] = np.maximum(d[slot[limb]], surface.depths(points, normals, limb, REACH * body.height))
        d /= body.height
        inside = d > MESH_INSIDE_TOLERANCE
        inside_count += int(inside.sum())
        if inside.any():
            depth[f] = float(d[inside].max())
            if depth[f] > depth[:f].max(initial=0.0):  # the deepest so far (argmax's frame: the first)
                k = int(np.argmax(np.where(inside, d, -np.inf)))
                joint = _nearest_joint(body, list(limbs)[limb_of[k]], pos[f], points[every[k]])
    moving = max(n - s, 1)
    hit = depth > 0.0
    return MeshPenetration(inside_count / (len(every) * moving), float(hit.sum()) / moving, float(depth.max(initial=0.0)),
                           int(np.argmax(depth)) if hit.any() else None, depth, len(every),
                           len(np.unique(np.concatenate([v for v in obstacles.values()]))), joint)


def _nearest_joint(body: Body, limb: str, pos: np.ndarray, point: np.ndarray) -> int:
    """The joint of `limb` ("left_arm": the elbow and below) nearest `point` in the frame's
    joint positions `pos`: where the report's still marks a vertex inside."""
    joints = _limb_joints(body)[limb]
    return joints[int(np.linalg.norm(pos[joints] - point, axis=-1).argmin())]
