"""A BVH file holds one skeleton (issue 26, item 4): a rig with several (a glTF whose skins
share no joint) is refused for BVH by every command that writes one, before any work, with
the skeletons' roots named and nothing written; each skeleton imported alone exports."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from rigedit.cli import main
from rigedit.core.rig import Rig
from rigedit.io.bvh import write_bvh
from rigedit.io.export import export_rig, load_for_export
from rigedit.io.figure import figure_size, world_positions
from rigedit.io.loaded import load

from ..js_readers import readers

ROOTS = ("LeftCreature_root", "RightCreature_root")
SKINS = ("left_one", "right_one")


def two_skeletons(path: Path, frames: int = 5) -> Path:
    """A .gltf with two skins that share no joint (root -> middle -> tip each, a metre apart),
    each middle joint turning about Z over `frames` keys: the Khronos multi-skin samples' shape."""
    times = np.arange(frames, dtype=np.float32) / 30
    angles = np.linspace(0.0, 1.2, frames)
    quats = np.stack([np.zeros(frames), np.zeros(frames), np.sin(angles / 2), np.cos(angles / 2)], axis=1).astype(np.float32)
    blob = times.tobytes() + quats.tobytes()
    nodes, skins, channels = [], [], []
    for k, (root, skin) in enumerate(zip(ROOTS, SKINS)):
        base = len(nodes)
        stem = root.removesuffix("_root")
        nodes += [{"name": root, "translation": [2.0 * k - 1.0, 0.5, 0.0], "children": [base + 1]},
                  {"name": f"{stem}_middle", "translation": [0.0, 0.4, 0.0], "children": [base + 2]},
                  {"name": f"{stem}_tip", "translation": [0.0, 0.3, 0.0]}]
        skins.append({"name": skin, "joints": [base, base + 1, base + 2]})
        channels.append({"sampler": 0, "target": {"node": base + 1, "path": "rotation"}})
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0, 3]}], "nodes": nodes, "skins": skins,
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": times.nbytes},
                        {"buffer": 0, "byteOffset": times.nbytes, "byteLength": quats.nbytes}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": frames, "type": "SCALAR",
                       "min": [float(times.min())], "max": [float(times.max())]},
                      {"bufferView": 1, "componentType": 5126, "count": frames, "type": "VEC4"}],
        "animations": [{"name": "wave", "samplers": [{"input": 0, "output": 1}], "channels": channels}],
    }
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def source(tmp_path) -> Path:
    return two_skeletons(tmp_path / "pair.gltf")


def refused(text: str, out: Path) -> None:
    """The message names the output, says why, names both roots and the ways out; nothing written."""
    assert f"{out}: a BVH file holds one skeleton and this rig has 2" in text
    for root in ROOTS:
        assert repr(root) in text
    assert "--skin NAME" in text and ".glb" in text
    assert "Traceback" not in text
    assert not out.exists() and not Path(f"{out}.names.json").exists()
    assert not list(out.parent.glob(".*tmp*"))


def test_the_two_skins_make_one_rig_with_two_roots(source):
    imp = load(source)
    roots = [imp.skeleton.names[i] for i, p in enumerate(imp.skeleton.parents) if p < 0]
    assert sorted(roots) == sorted(ROOTS)


def test_export_refuses_and_other_formats_hold_both(source, tmp_path, capsys):
    out = tmp_path / "out.bvh"
    assert main(["export", str(source), "-o", str(out), "-q"]) == 1
    refused(capsys.readouterr().err, out)
    for suffix in (".glb", ".usda") if _has_pxr() else (".glb",):
        assert main(["export", str(source), "-o", str(tmp_path / f"out{suffix}"), "-q"]) == 0
        again = load(tmp_path / f"out{suffix}")
        assert sorted(n for n, p in zip(again.skeleton.names, again.skeleton.parents) if p < 0) == sorted(ROOTS)


def test_bake_refuses_before_baking(source, tmp_path, capsys):
    preset = tmp_path / "pair.json"
    assert main(["import", str(source), "-o", str(preset)]) == 0
    capsys.readouterr()
    out = tmp_path / "baked.bvh"
    assert main(["bake", str(preset), "-o", str(out), "-q"]) == 1
    refused(capsys.readouterr().err, out)


def test_retarget_onto_it_refuses_before_retargeting(source, tmp_path, capsys):
    out = tmp_path / "moved.bvh"
    code = main(["retarget", "/work/shared/data/pybvh_bvh_test1.bvh", "--onto", str(source), "-o", str(out)])
    assert code != 0
    refused(capsys.readouterr().err, out)


def test_batch_bake_reports_the_file_and_goes_on(source, tmp_path, capsys):
    clips = tmp_path / "clips"
    clips.mkdir()
    source.rename(clips / source.name)
    (clips / "walk.bvh").write_bytes(Path("/work/shared/data/pybvh_bvh_test1.bvh").read_bytes())
    outdir = tmp_path / "out"
    assert main(["batch", "bake", str(clips), "-o", str(outdir), "--workers", "1", "-q"]) == 1
    printed = capsys.readouterr()
    rows = {r["file"]: r for r in json.loads((outdir / "batch-bake.json").read_text())["files"]}
    pair = next(r for f, r in rows.items() if f.endswith("pair.gltf"))
    walk = next(r for f, r in rows.items() if f.endswith("walk.bvh"))
    assert pair["status"] != "ok" and "a BVH file holds one skeleton" in pair["error"]
    assert all(repr(root) in pair["error"] for root in ROOTS)
    assert walk["status"] == "ok" and (outdir / "walk.bvh").is_file()
    assert not (outdir / "pair.bvh").exists(), printed.out


def test_lint_fix_of_a_bvh_with_two_roots_refuses(tmp_path, capsys):
    two = tmp_path / "two.bvh"
    one = "ROOT {0}\n{{\n OFFSET {1} 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n" \
          " JOINT {0}_b\n {{\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n" \
          "  End Site\n  {{\n   OFFSET 0 10 0\n  }}\n }}\n}}\n"
    rows = "\n".join(" ".join(["0"] * 18) for _ in range(4))
    two.write_text("HIERARCHY\n" + one.format("A", -50) + one.format("B", 50) + f"MOTION\nFrames: 4\nFrame Time: 0.033\n{rows}\n")
    out = tmp_path / "fixed.bvh"
    assert main(["lint", str(two), "--fix", "-o", str(out)]) != 0
    text = capsys.readouterr().err
    assert f"{out}: a BVH file holds one skeleton and this rig has 2 (roots 'A', 'B')" in text
    assert not out.exists()


def test_every_writer_of_bvh_refuses_a_rig_with_two_skeletons(source, tmp_path):
    # export_rig is what File > Export, retarget and batch retarget write through; write_bvh
    # is the writer under all of them (bake, import's bake, lint --fix).
    rig, src = load_for_export(source)
    for write in (lambda out: export_rig(rig, out, src), lambda out: write_bvh(out, rig.skeleton, rig.clip)):
        out = tmp_path / "any.bvh"
        with pytest.raises(ValueError, match="holds one skeleton"):
            write(out)
        assert not out.exists()


@pytest.mark.parametrize("skin", range(2))
def test_each_skeleton_alone_exports_and_three_js_reads_it(source, skin, tmp_path, capsys):
    preset, out = tmp_path / f"{SKINS[skin]}.json", tmp_path / f"{SKINS[skin]}.bvh"
    assert main(["import", str(source), "--skin", SKINS[skin], "-o", str(preset)]) == 0
    assert main(["export", str(preset), "-o", str(out), "-q"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    rig, _ = load_for_export(preset)
    assert rig.skeleton.names[0] == ROOTS[skin]
    want = world_positions(rig.skeleton, rig.clip)
    js = readers()
    if isinstance(js, str):
        pytest.skip(js)
    seen = js.bvh_positions(out)
    assert seen["names"][:len(rig.skeleton)] == list(rig.skeleton.names)
    got = np.array(seen["frames"])[:, :len(rig.skeleton)]  # metres: a glTF rig's BVH keeps its unit
    np.testing.assert_allclose(got, want, atol=1e-5 * figure_size(rig.skeleton, rig.clip))


def _has_pxr() -> bool:
    try:
        import pxr  # noqa: F401
    except ImportError:
        return False
    return True


def test_a_single_skeleton_is_not_touched(tmp_path):
    rig = Rig(load(Path("/work/shared/data/RiggedSimple.glb")).skeleton)
    out = tmp_path / "one.bvh"
    export_rig(rig, out)
    assert out.read_text().count("ROOT") == 1
