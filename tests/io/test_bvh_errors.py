"""Malformed BVH files give a BvhError naming the file, the line and the problem; quirky but
valid files (tabs, CRLF, trailing spaces, `.0083333`) read the same as tidy ones."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.core.skeleton import Pose
from rigedit.io.bvh import BvhError, read_bvh, read_bvh_text

GOOD = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
  JOINT Leg
  {
    OFFSET 2 -9 0
    CHANNELS 6 Xposition Yposition Zposition Yrotation Zrotation Xrotation
    End Site
    {
      OFFSET 0 -8 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
1 90 2 10 20 30 5 6 7 2 -9 1 40 50 60
1.5 91 2 11 21 31 5 6 7 2 -9 1 40 50 60
"""
LINES = GOOD.splitlines()
ROW1 = LINES.index("MOTION") + 3  # 0-based index of the first motion row


def with_line(index: int, text: str) -> str:
    lines = list(LINES)
    lines[index] = text
    return "\n".join(lines) + "\n"


def without_line(index: int) -> str:
    lines = list(LINES)
    del lines[index]
    return "\n".join(lines) + "\n"


def world(text: str) -> np.ndarray:
    imp = read_bvh_text(text, scale=1.0)
    return imp.skeleton.fk_matrices(Pose(imp.clip.rotations, imp.clip.translations))[0]


def test_the_good_file_reads():
    imp = read_bvh_text(GOOD, scale=1.0)
    assert imp.skeleton.names == ["Hips", "Spine", "Spine_End", "Leg", "Leg_End"]
    assert imp.clip.n_frames == 2


@pytest.mark.parametrize(
    "text, line, words",
    [
        (with_line(4, "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Wrotation"), 5, ["unknown channel", "Wrotation"]),
        (with_line(4, "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Zrotation"), 5, ["twice", "Zrotation"]),
        (with_line(4, "  CHANNELS 7 Xposition Yposition Zposition Zrotation Xrotation Yrotation Xrotation"), 5, ["0 to 6"]),
        (with_line(4, "  CHANNELS 5 Xposition Yposition Zposition Zrotation Xrotation"), 5, ["2 rotation channels"]),
        (with_line(4, "  CHANNELS six Xposition"), 5, ["whole number", "six"]),
        (with_line(ROW1, "1 90 2 10 20 30 5 6 7 2 -9 1 40 50"), ROW1 + 1, ["14 values", "15 channels"]),
        (with_line(ROW1 + 1, "1.5 91 2 11 21 31 5 6 7 2 -9 1 40 50 60 70"), ROW1 + 2, ["16 values"]),
        (with_line(ROW1 + 1, "1.5 91 2 11 21 31 5 6 seven 2 -9 1 40 50 60"), ROW1 + 2, ["value 9", "not a number", "seven"]),
        (with_line(ROW1, "1 90 2 10 20 nan 5 6 7 2 -9 1 40 50 60"), ROW1 + 1, ["value 6", "not finite"]),
        (with_line(ROW1 + 1, "1.5 91 2 11 21 31 5 6 7 2 -9 1 inf 50 60"), ROW1 + 2, ["value 13", "not finite"]),
        (without_line(ROW1 + 1), ROW1 + 1, ["Frames says 2", "only 1 motion rows"]),
        (with_line(ROW1 - 2, "Frames: 3"), ROW1 + 2, ["Frames says 3", "only 2"]),
        (with_line(ROW1 - 2, "Frames: two"), ROW1 - 1, ["Frames", "whole number"]),
        (with_line(ROW1 - 1, "Frame Time: 0"), ROW1, ["Frame Time", "positive"]),
        (with_line(ROW1 - 1, "Frame Time: fast"), ROW1, ["Frame Time", "number"]),
        (with_line(ROW1 - 1, "Frametime 0.03"), ROW1, ["expected 'Frame Time:'"]),
        (without_line(12), 3, ["unbalanced braces", "Hips"]),  # an End Site loses its "}": Hips never closes
        (without_line(22), 3, ["unbalanced braces", "Hips"]),
        (with_line(22, "}\n}"), 25, ["unbalanced braces", "'}' without"]),
        (with_line(7, "    OFFSET 0 ten 0"), 8, ["OFFSET of 'Spine'", "number", "ten"]),
        (with_line(7, "    OFFSET 0 nan 0"), 8, ["OFFSET of 'Spine'", "finite"]),
        (with_line(5, "  JOINT Hips"), 6, ["used twice", "Hips"]),
        (with_line(5, "  JIONT Spine"), 6, ["expected JOINT", "JIONT"]),
        (with_line(0, "HIERARCHIE"), 1, ["start with HIERARCHY"]),
        (with_line(11, "      OFFSET 0 5 0 CHANNELS 3 Xrotation Yrotation Zrotation"), 12, ["End Site"]),
    ],
)
def test_malformed_files_name_the_line_and_the_problem(text, line, words, tmp_path):
    path = tmp_path / "broken.bvh"
    path.write_text(text)
    with pytest.raises(BvhError) as err:
        read_bvh(path)
    e = err.value
    assert isinstance(e, ValueError)
    assert e.line == line, str(e)
    msg = str(e)
    assert msg.startswith(f"{path}, line {line}: ")
    for w in words:
        assert w in msg


def test_missing_motion_and_missing_file(tmp_path):
    path = tmp_path / "nomotion.bvh"
    path.write_text(GOOD.split("MOTION")[0])
    with pytest.raises(BvhError, match="no MOTION section"):
        read_bvh(path)
    with pytest.raises(BvhError, match="cannot read the file"):
        read_bvh(tmp_path / "absent.bvh")


def test_extra_rows_are_ignored_with_a_warning():
    imp = read_bvh_text(GOOD + "2 92 2 11 21 31 5 6 7 2 -9 1 40 50 60\n", scale=1.0)
    assert imp.clip.n_frames == 2
    assert len(imp.warnings) == 1 and "extra rows" in imp.warnings[0]


def test_zero_frames_gives_no_clip():
    text = with_line(ROW1 - 2, "Frames: 0").split(LINES[ROW1])[0]
    imp = read_bvh_text(text, scale=1.0)
    assert imp.clip is None
    assert imp.skeleton.names[0] == "Hips"


def test_quirky_formatting_reads_the_same():
    tidy = world(GOOD)
    quirky = GOOD.replace("  ", "\t").replace("\n", " \r\n").replace("Frame Time: 0.0333333", "Frame Time:\t.0333333")
    np.testing.assert_array_equal(world(quirky), tidy)
    mixed = "\n".join(ln + ("\r" if i % 2 else "") for i, ln in enumerate(LINES)) + "\n"
    np.testing.assert_array_equal(world(mixed), tidy)
    glued = GOOD.replace("Hips\n{", "Hips {").replace("End Site\n    {", "End Site {")
    np.testing.assert_array_equal(world(glued), tidy)
    lower = GOOD.replace("Xrotation", "XROTATION").replace("End Site", "End site")
    np.testing.assert_array_equal(world(lower), tidy)


def test_joint_names_with_spaces():
    text = GOOD.replace("JOINT Leg", "JOINT Bip01 L Thigh")
    imp = read_bvh_text(text, scale=1.0)
    assert "Bip01 L Thigh" in imp.skeleton.names
    assert "Bip01 L Thigh_End" in imp.skeleton.names


def test_bad_options_are_value_errors():
    with pytest.raises(BvhError, match="up_axis"):
        read_bvh_text(GOOD, up_axis="w")
    with pytest.raises(BvhError, match="unknown unit"):
        read_bvh_text(GOOD, scale="furlong")
    with pytest.raises(BvhError, match="positive"):
        read_bvh_text(GOOD, scale=-1.0)


_edits = st.lists(
    st.tuples(
        st.integers(0, len(LINES) - 1),
        st.sampled_from(["delete_line", "delete_token", "garbage", "duplicate_line", "brace"]),
        st.integers(0, 20),
        st.sampled_from(["x", "{", "}", "nan", "1e999", "-", "JOINT", "End", "CHANNELS", "3", "", "OFFSET"]),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(_edits)
def test_damaged_files_never_crash(edits):
    lines = list(LINES)
    for index, kind, k, word in edits:
        index = index % len(lines) if lines else 0
        if not lines:
            break
        words = lines[index].split()
        if kind == "delete_line":
            del lines[index]
        elif kind == "delete_token" and words:
            del words[k % len(words)]
            lines[index] = " ".join(words)
        elif kind == "garbage":
            words.insert(k % (len(words) + 1), word)
            lines[index] = " ".join(words)
        elif kind == "duplicate_line":
            lines.insert(index, lines[index])
        elif kind == "brace":
            lines.insert(index, "{" if k % 2 else "}")
    text = "\n".join(lines) + "\n"
    try:
        imp = read_bvh_text(text, path="fuzz.bvh", scale=1.0)
    except BvhError as e:
        assert str(e).startswith("fuzz.bvh")
        return
    if imp.clip is not None:
        assert np.all(np.isfinite(imp.clip.rotations)) and np.all(np.isfinite(imp.clip.translations))
