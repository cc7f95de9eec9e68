"""The Draco and meshopt variants of CesiumMan (tests/data, made with gltf-transform: see
tests/data/README.md) load the same skeleton and draw the same mesh as the original.

Both variants may renumber and split vertices (Draco does), so vertices are matched by place:
each variant vertex, skinned at the rest pose, to the nearest original vertex. Triangles are
compared as a multiset of triples of matched places (each turned to start at its smallest,
keeping its winding), joints and weights per matched vertex.

Tolerances follow gltf-transform's quantisation (its defaults, which made the files):
- positions: 14 bits across the mesh's bounding box; a rest vertex moves by at most a grid
  step along each axis (sqrt(3) steps; gltf-transform's meshopt grid is a normalised int16
  snapped to 14 bits, so a whole step is allowed, not half), times the binds' largest stretch;
- weights: 8 bits (meshopt; Draco's generic attributes keep 12), each rounded by half a step
  and the largest moved to make the sum whole: at most 2/255 apart;
- a posed vertex is then off by the position term plus, for each joint of either mesh, its
  weight's difference times how far that joint alone would carry the vertex from where the
  blend puts it (the weights sum to 1 in both, so a weight moved is a pull between joints);
- the meshopt variant also stores its keys quantised: rotations with the QUATERNION filter
  (16 bits, under 1e-4 rad), translations with the EXPONENTIAL filter (12-bit mantissas, a
  vector's error under 2^-10 of its largest component); each joint is off by at most those
  errors summed down its chain, each rotation error times the figure's size.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pygltflib
import pytest
from scipy.spatial import cKDTree

from rigedit.io.export import export_rig
from rigedit.io.gltf import read_gltf
from rigedit.io.gltf_data import GltfDocument
from rigedit.io.gltf_draco import PrimitiveArrays
from rigedit.io.gltf_mesh import read_gltf_mesh
from tests.io.export_checks import Result
from tests.io.test_export_usd import usd_skinned_points
from tests.io.test_gltf_mesh import posed, size_of
from tests.js_readers import readers

pytest.importorskip("DracoPy", reason="DracoPy is not installed (pip install 'rigedit[draco]')")
pytest.importorskip("meshopt", reason="meshopt is not installed (pip install 'rigedit[meshopt]')")

ORIGINAL = Path("/work/shared/data/CesiumMan.glb")
HERE = Path(__file__).parent.parent / "data"
VARIANTS = ["CesiumMan_draco.glb", "CesiumMan_meshopt.glb"]
POSITION_BITS = 14
WEIGHT_TOL = 2 / 255
ROTATION_TOL = 1e-4  # radians, a 16-bit QUATERNION-filtered key
TRANSLATION_REL = 2.0**-10  # of a key's largest component, a 12-bit EXPONENTIAL-filtered key


def _read(path):
    imp = read_gltf(path)
    got = read_gltf_mesh(path, imp)
    assert got.warnings == [], got.warnings
    return imp, got.mesh


def _joint_frames(imp, pose) -> np.ndarray:
    """Each skeleton joint's world frame as a 4x4 matrix."""
    pos, rot = imp.skeleton.fk_matrices(pose)
    m = np.zeros((len(pos), 4, 4))
    m[:, :3, :3], m[:, :3, 3], m[:, 3, 3] = rot, pos, 1.0
    return m


def _carried(imp, mesh, pose) -> np.ndarray:
    """(vertices, joints, 3): where each joint alone would carry each vertex."""
    binds = np.concatenate([mesh.binds, np.broadcast_to([[[0, 0, 0, 1.0]]], (len(mesh.binds), 1, 4))], axis=1)
    per_bind = _joint_frames(imp, pose)[mesh.bind_joints] @ binds  # bind_joints: -1 never for a skin
    by_joint = np.zeros((len(imp.skeleton), 4, 4))
    by_joint[mesh.bind_joints] = per_bind  # one skin: one bind per joint
    rest = np.concatenate([mesh.rest, np.ones((len(mesh.rest), 1))], axis=1)
    return np.einsum("jab,vb->vja", by_joint[:, :3], rest)


def _weights_by_joint(mesh, n_joints: int) -> np.ndarray:
    out = np.zeros((len(mesh.rest), n_joints))
    rows = np.repeat(np.arange(len(mesh.rest)), mesh.influences.shape[1])
    np.add.at(out, (rows, mesh.bind_joints[mesh.influences].ravel()), mesh.weights.ravel())
    return out


def _match(plain_imp, plain, got_imp, got, tol) -> np.ndarray:
    """Each variant vertex's nearest original vertex, at the rest pose."""
    a, _ = posed(plain_imp, plain, plain_imp.skeleton.rest_pose())
    b, _ = posed(got_imp, got, got_imp.skeleton.rest_pose())
    dist, index = cKDTree(a).query(b)
    assert dist.max() <= tol, f"a variant vertex lies {dist.max()} from every original one (> {tol})"
    return index


def _triangles(faces: np.ndarray, place: np.ndarray) -> np.ndarray:
    tri = place[faces]
    first = np.argmin(tri, axis=1)
    turned = np.stack([tri[np.arange(len(tri)), (first + k) % 3] for k in range(3)], axis=1)
    return turned[np.lexsort(turned.T[::-1])]


def position_tol(mesh) -> float:
    step = float(np.ptp(mesh.rest, axis=0).max()) / (2**POSITION_BITS - 1)
    stretch = max(np.linalg.svd(mesh.binds[:, :, :3], compute_uv=False).max(), 1.0)
    return np.sqrt(3) * step * stretch


@pytest.fixture(scope="module")
def original():
    return _read(ORIGINAL)


@pytest.mark.parametrize("name", VARIANTS)
def test_the_variant_loads_the_same_skeleton(name, original):
    plain_imp, _ = original
    imp, _ = _read(HERE / name)
    assert imp.skeleton.names == plain_imp.skeleton.names
    np.testing.assert_array_equal(imp.skeleton.parents, plain_imp.skeleton.parents)
    h = size_of(plain_imp.skeleton.fk(plain_imp.skeleton.rest_pose())[0])
    a, b = plain_imp.skeleton.fk(plain_imp.skeleton.rest_pose())[0], imp.skeleton.fk(imp.skeleton.rest_pose())[0]
    np.testing.assert_allclose(b, a, atol=1e-6 * h)  # node transforms are JSON numbers, float32 at worst
    assert imp.clip.n_frames == plain_imp.clip.n_frames


@pytest.mark.parametrize("name", VARIANTS)
def test_the_variant_plays_the_same_clip(name, original):
    plain_imp, _ = original
    imp, _ = _read(HERE / name)
    clip, plain_clip = imp.clip, plain_imp.clip
    depth = np.zeros(len(plain_imp.skeleton), dtype=int)
    for j, p in enumerate(plain_imp.skeleton.parents):
        depth[j] = 0 if p < 0 else depth[p] + 1
    pos0 = plain_imp.skeleton.fk(plain_imp.skeleton.rest_pose())[0]
    reach = size_of(pos0) * 2  # no joint is further than this from any ancestor
    t_err = TRANSLATION_REL * np.abs(plain_clip.translations).max()
    tol = (depth + 1) * (t_err + ROTATION_TOL * reach)
    for k in np.random.default_rng().choice(clip.n_frames, 5, replace=False):
        a = plain_imp.skeleton.fk(plain_clip.frame(int(k)))[0]
        b = imp.skeleton.fk(clip.frame(int(k)))[0]
        err = np.linalg.norm(a - b, axis=1)
        assert np.all(err <= tol), f"frame {k}: joint {int(np.argmax(err - tol))} off by {err.max()}"


@pytest.mark.parametrize("name", VARIANTS)
def test_the_variant_draws_the_same_mesh(name, original):
    plain_imp, plain = original
    imp, got = _read(HERE / name)
    tol = position_tol(plain)
    index = _match(plain_imp, plain, imp, got, tol)
    # The same triangles, each over the same places.
    _, place = np.unique(plain.rest, axis=0, return_inverse=True)
    place = place.ravel()
    np.testing.assert_array_equal(_triangles(got.faces, place[index]), _triangles(plain.faces, place))
    # The same joints and weights.
    n = len(plain_imp.skeleton)
    w_plain, w_got = _weights_by_joint(plain, n)[index], _weights_by_joint(got, n)
    assert np.abs(w_got - w_plain).max() <= WEIGHT_TOL
    # Skinned at a few random frames of the original's clip, within the quantisation's reach.
    for k in np.random.default_rng().choice(plain_imp.clip.n_frames, 4, replace=False):
        pose = plain_imp.clip.frame(int(k))
        a, _ = posed(plain_imp, plain, pose)
        b, _ = posed(plain_imp, got, pose)
        pull = np.linalg.norm(_carried(plain_imp, plain, pose)[index] - a[index][:, None], axis=2)
        bound = tol + (np.abs(w_got - w_plain) * pull).sum(axis=1)
        err = np.linalg.norm(b - a[index], axis=1)
        assert np.all(err <= bound + 1e-9 * size_of(a)), f"frame {k}: {err.max()} (bound {bound[np.argmax(err - bound)]})"


def test_the_variants_are_small_and_compressed():
    """What the files are for: geometry stored compressed, so the readers above decode it."""
    sizes = {n: (HERE / n).stat().st_size for n in VARIANTS}
    assert all(s < 100_000 for s in sizes.values()), sizes
    draco = pygltflib.GLTF2().load(str(HERE / VARIANTS[0]))
    meshopt = pygltflib.GLTF2().load(str(HERE / VARIANTS[1]))
    assert "KHR_draco_mesh_compression" in draco.extensionsRequired
    assert "EXT_meshopt_compression" in meshopt.extensionsRequired
    assert all(v.extensions.get("EXT_meshopt_compression") for v in meshopt.bufferViews[1:])



def test_a_gltf_export_of_the_meshopt_variant_writes_its_views_decoded(tmp_path):
    """Export merges the source's buffers into one, which would move the views away from the
    offsets meshopt's extension keeps: they are written decoded, and the file reads back (in
    rigedit and in the Khronos validator) with the mesh it had."""
    result = Result(HERE / VARIANTS[1])
    out = tmp_path / "out.glb"
    export_rig(result.rig, out, result.source)
    g = pygltflib.GLTF2().load(str(out))
    assert "EXT_meshopt_compression" not in (g.extensionsUsed or []) and len(g.buffers) == 1
    src_imp, src = _read(HERE / VARIANTS[1])
    imp, got = _read(out)
    np.testing.assert_array_equal(got.faces, src.faces)
    a, _ = posed(src_imp, src, src_imp.skeleton.rest_pose())
    b, _ = posed(imp, got, imp.skeleton.rest_pose())
    np.testing.assert_allclose(b, a, atol=1e-6 * size_of(a))
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    report = js.validate(out)
    assert report["numErrors"] == 0, report["errors"]


@pytest.mark.parametrize("name", VARIANTS)
def test_the_variant_keeps_the_normals(name, original):
    """The viewport shades from the faces, so this reads NORMAL directly: meshopt stores it with
    the OCTAHEDRAL filter (8 bits a component in gltf-transform's default), Draco with 10 bits.
    An octahedral grid of 2^8 steps over [-1, 1] places a unit vector within about
    pi / 2^7 rad; the test allows 0.05 rad, far under a normal gone wrong."""
    plain_imp, plain = original
    imp, got = _read(HERE / name)
    index = _match(plain_imp, plain, imp, got, position_tol(plain))
    normals = []
    for path in (ORIGINAL, HERE / name):
        g = pygltflib.GLTF2().load(str(path))
        normals.append(PrimitiveArrays(GltfDocument(path), "meshes[0].primitives[0]", g.meshes[0].primitives[0]).attribute("NORMAL"))
    a, b = normals[0][index], normals[1]
    # Where the original has several vertices at one place (a seam), the matched one may have
    # another's normal: compare each with the nearest normal among those at its place.
    _, place = np.unique(plain.rest, axis=0, return_inverse=True)
    place = place.ravel()
    by_place: dict[int, list[int]] = {}
    for i, p in enumerate(place):
        by_place.setdefault(int(p), []).append(i)
    unit = b / np.linalg.norm(b, axis=1, keepdims=True)
    best = np.array([max(normals[0][by_place[int(place[j])]] @ unit[k]) for k, j in enumerate(index)])
    angle = np.arccos(np.clip(best / np.linalg.norm(a, axis=1), -1, 1))
    assert angle.max() < 0.05, angle.max()


@pytest.mark.parametrize("name", VARIANTS)
def test_a_usd_export_binds_the_decoded_mesh(name, tmp_path):
    """pxr skins the USD export's mesh where rigedit skins the variant (the same decoded data,
    so to float32's precision, not the quantisation's)."""
    pytest.importorskip("pxr", reason="usd-core is not installed (pip install 'rigedit[usd]')")
    result = Result(HERE / name)
    export_rig(result.rig, tmp_path / "out.usdc", result.source)
    imp, got = _read(HERE / name)
    for k in np.random.default_rng().choice(result.clip.n_frames, 3, replace=False):
        (usd,) = usd_skinned_points(tmp_path / "out.usdc", int(k))
        want, _ = posed(imp, got, imp.clip.frame(int(k)))
        np.testing.assert_allclose(usd, want, atol=1e-5 * size_of(want), err_msg=f"frame {k}")
