"""A hand-only take (a data glove's) is sized as a hand from its own shape, not read in the
unit that would make it a person (issue 26: a hand alone is a hand). The hand is the
hand_alone layout of tests/core/skeletons/families (Mixamo's documented finger names:
RightHandThumb1 .. RightHandPinky4), written as BVH in each unit."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rigedit.core.skeleton import Skeleton
from rigedit.io.bvh import BvhLayout, read_bvh, write_bvh
from rigedit.io.bvh_units import UNITS
from rigedit.io.figure import figure_size

FAMILIES = Path(__file__).resolve().parents[1] / "core" / "skeletons" / "families"


def hand_layout(layout: str) -> Skeleton:
    joints = json.loads((FAMILIES / f"{layout}.json").read_text())["joints"]
    return Skeleton([j["name"] for j in joints], [j["parent"] for j in joints],
                    np.array([j["offset"] for j in joints]), np.tile([0.0, 0.0, 0.0, 1.0], (len(joints), 1)))


@pytest.mark.parametrize("layout", ["hand_alone", "hand_with_forearm"])
@pytest.mark.parametrize("unit", ["m", "cm", "mm", "in"])
def test_a_hand_alone_is_read_at_a_hands_size(layout, unit, tmp_path):
    path = tmp_path / "glove.bvh"
    write_bvh(path, hand_layout(layout), layout=BvhLayout(scale=UNITS[unit]))  # the file's numbers in `unit`
    imp = read_bvh(path)
    assert imp.scale == pytest.approx(UNITS[unit], rel=1e-12), imp.scale_reason
    assert "a hand alone" in imp.scale_reason
    size = figure_size(imp.skeleton, imp.clip)
    assert 0.1 < size < 0.6  # a hand (and forearm), not a 1.5 m person


def test_a_person_is_still_sized_as_a_person():
    imp = read_bvh("/work/shared/data/cmu_12_01_walk.bvh")
    assert "hand" not in imp.scale_reason and 1.2 < imp.skeleton.height() < 2.2
