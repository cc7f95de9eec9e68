"""Self-penetration from the skinned mesh (core/quality/mesh_contact.py), on the real skinned
characters in /work/shared/data: a forearm turned into the chest at random frames shows on exactly
those frames, frames left alone measure as they did, and a file without a mesh has no such
numbers. The inside test is checked against ray parity through the body's own surface."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.core.quality import measure_clip
from rigedit.core.quality.body import body_of
from rigedit.core.quality.mesh_contact import MESH_INSIDE_TOLERANCE, _groups, _owner, _Surface
from rigedit.core.skeleton import Pose
from rigedit.core.skinning import Skinner
from rigedit.io.gltf_mesh import loaded_mesh
from rigedit.lint_cli import load_clip
from rigedit.report.measure import measure_file

from tests.core.quality_clips import forearm_into_chest, random_frames

DATA = Path("/work/shared/data")
SKINNED = ["threejs_Xbot.glb", "CesiumMan.glb"]


@pytest.fixture(scope="module", params=SKINNED)
def character(request):
    path = str(DATA / request.param)
    l = load_clip(path)
    mesh, _ = loaded_mesh(path, l)
    return l, mesh


def test_a_forearm_turned_into_the_chest_shows_on_exactly_its_frames(character):
    l, mesh = character
    body = body_of(l.skeleton, l.clip)
    rng = np.random.default_rng()
    frames = random_frames(rng, l.clip.n_frames, 3, gap=2)
    side = str(rng.choice(["left", "right"]))
    chest = body.spine[len(body.spine) // 2]
    clean = measure_clip(l.skeleton, l.clip, mesh=mesh).mesh_pen
    pushed = measure_clip(l.skeleton, forearm_into_chest(l.skeleton, l.clip, frames, body.arms[side], chest), mesh=mesh).mesh_pen
    for f in range(body.first, l.clip.n_frames):
        if f in frames:  # deeper than a hand pressed on a thigh by more than skin's give
            assert pushed.depth[f] > clean.depth[f] + MESH_INSIDE_TOLERANCE, (side, f)
        else:
            assert pushed.depth[f] == pytest.approx(clean.depth[f], abs=1e-12), (side, f)  # frames left alone
    assert pushed.vertex_share > clean.vertex_share
    assert pushed.frame_share >= clean.frame_share


def _ray_parity_inside(points, surface_pts, triangles, rng) -> np.ndarray:
    """Whether each point is inside the closed surface, by the majority of seven random rays'
    crossing counts (Moller-Trumbore)."""
    v0, v1, v2 = (surface_pts[triangles[:, k]] for k in range(3))
    e1, e2 = v1 - v0, v2 - v0
    dirs = rng.normal(size=(7, 3))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    votes = np.zeros(len(points), int)
    for d in dirs:
        h = np.cross(d, e2)
        a = (e1 * h).sum(1)
        ok = np.abs(a) > 1e-12
        inv = 1.0 / np.where(ok, a, 1.0)
        for i, p in enumerate(points):
            s = p - v0
            u = inv * (s * h).sum(1)
            q = np.cross(s, e1)
            v = inv * (q @ d)
            t = inv * (e2 * q).sum(1)
            votes[i] += int((ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-9)).sum()) % 2
    return votes >= 4


def test_what_counts_as_inside_is_inside_by_ray_parity():
    """Xbot's hands hang against its thighs and sink into them: every hand vertex the measure
    calls inside the thigh is inside the thigh's closed surface by ray parity."""
    path = str(DATA / "threejs_Xbot.glb")
    l = load_clip(path)
    mesh, _ = loaded_mesh(path, l)
    body = body_of(l.skeleton, l.clip)
    limbs, obstacles = _groups(body, _owner(mesh))
    rng = np.random.default_rng()
    pos, mats = l.skeleton.fk_matrices(Pose(l.clip.rotations, l.clip.translations))
    skinner = Skinner(mesh, len(l.skeleton))
    # The hands sink into the thighs on some frames of the clip, not all: visit frames and sides
    # in a random order and check the first that has a hand vertex inside.
    for f in rng.permutation(np.arange(body.first, l.clip.n_frames)):
        points, normals = skinner.pose(pos[f], mats[f])
        side = str(rng.choice(["left", "right"]))
        limb, thigh = limbs[f"{side}_arm"], obstacles[f"{side}_leg"]
        d = _Surface.of(mesh.faces, thigh).depths(points, normals, limb, np.inf) / body.height
        flagged = limb[d > MESH_INSIDE_TOLERANCE]
        if len(flagged):
            break
    assert len(flagged), "Xbot's hand never sinks into its thigh: pick another check"
    in_thigh = np.isin(mesh.faces, thigh).all(axis=1)
    surface = mesh.faces[in_thigh & (mesh.faces.min(axis=1) >= mesh.parts[-1][1])]  # the skin, not the joint caps
    sample = rng.choice(flagged, size=min(40, len(flagged)), replace=False)
    assert _ray_parity_inside(points[sample], points, surface, rng).all()


def test_the_report_measures_the_mesh_of_a_file_that_has_one():
    with_mesh, _, about = measure_file(str(DATA / "CesiumMan.glb"))
    assert 0.0 <= with_mesh["mesh_penetration_vertex_share"] <= 1.0
    assert with_mesh["mesh_limb_vertices"] > 0
    assert about["mesh"].endswith("vertices")
    without, _, _ = measure_file(str(DATA / "cmu_12_01_walk.bvh"))
    assert without["mesh_penetration_vertex_share"] is None
