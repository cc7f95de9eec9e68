"""BVH joint names (issue 26): written in letters, digits and '_' so every reader binds them,
the rig's own names kept beside the file and restored when rigedit reads it back."""
from __future__ import annotations

import json
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.clip import Clip
from rigedit.core.skeleton import Skeleton
from rigedit.core.transforms import quat_from_axis_angle
from rigedit.io.bvh import read_bvh, write_bvh
from rigedit.io.bvh_format import parse_bvh
from rigedit.io.bvh_names import mapping_path, safe_names

SAFE = re.compile(r"[A-Za-z0-9_]+")


def _chain(names: list[str]) -> tuple[Skeleton, Clip]:
    n = len(names)
    offsets = np.zeros((n, 3))
    offsets[1:, 1] = 0.2
    sk = Skeleton(names, list(range(-1, n - 1)), offsets, np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
    rng = np.random.default_rng(7)
    angles = rng.uniform(-1.0, 1.0, size=(5, n))
    axes = np.broadcast_to([0.0, 0.0, 1.0], (5, n, 3))
    rot = quat_from_axis_angle(axes, angles)
    return sk, Clip(rot, np.broadcast_to(offsets, (5, n, 3)).copy(), 1 / 30)


def test_mixamo_names_are_written_safe_and_read_back_as_they_were(tmp_path):
    names = ["mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine.001", "mixamorig_Spine_001", "Left Arm/Upper[0]"]
    sk, clip = _chain(names)
    out = tmp_path / "m.bvh"
    write_bvh(out, sk, clip)
    written = [j.name for j in parse_bvh(out.read_text()).joints if not j.end_site]
    assert all(SAFE.fullmatch(n) for n in written), written
    assert len(set(written)) == len(written)
    assert "mixamorig_Spine_001" in written  # an already safe name keeps itself
    back = read_bvh(out, scale=1.0, up_axis="y")
    assert back.skeleton.names == names
    assert back.warnings == []
    np.testing.assert_allclose(back.skeleton.offsets, sk.offsets, atol=1e-9)


def test_safe_names_need_no_mapping_and_a_stale_one_is_removed(tmp_path):
    out = tmp_path / "a.bvh"
    write_bvh(out, *_chain(["a:root", "a:b"]))
    assert mapping_path(out).exists()
    write_bvh(out, *_chain(["root", "b"]))
    assert not mapping_path(out).exists()
    assert read_bvh(out, scale=1.0, up_axis="y").skeleton.names == ["root", "b"]


def test_a_mapping_for_another_hierarchy_or_damaged_is_left_aside_with_a_warning(tmp_path):
    out = tmp_path / "a.bvh"
    write_bvh(out, *_chain(["a:root", "a:b"]))
    side = mapping_path(out)
    doc = json.loads(side.read_text())
    doc["joints"][1] = "other"
    side.write_text(json.dumps(doc))
    back = read_bvh(out, scale=1.0, up_axis="y")
    assert back.skeleton.names[:2] == ["a_root", "a_b"]
    assert any("another hierarchy" in w and str(side) in w for w in back.warnings)
    side.write_text("{not json")
    back = read_bvh(out, scale=1.0, up_axis="y")
    assert back.skeleton.names[:2] == ["a_root", "a_b"]
    assert any(str(side) in w for w in back.warnings)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=8, unique=True))
def test_safe_names_are_safe_and_distinct(names):
    out = safe_names(names)
    assert len(out) == len(names)
    assert all(SAFE.fullmatch(n) for n in out)
    assert len(set(out)) == len(out)
    assert all(o == n for o, n in zip(out, names) if SAFE.fullmatch(n))
