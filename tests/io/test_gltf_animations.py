"""Choosing a glTF's animation by name or index, and listing a file's animations."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rigedit.io.gltf import GltfError, list_animations, read_gltf
from rigedit.io.gltf_animations import pick_animation

from .multi_animation import DATA, durations, write_multi_animation

# Key times are float32 in the file: a duration read back is within a few float32 ulps of
# the stretched one.
DURATION_ATOL = 1e-5
# World positions of the same pose read twice, relative to the figure's height.
POSE_RTOL = 1e-6


def positions(imp, pose):
    return imp.skeleton.fk(pose)[0]


@pytest.fixture(scope="module")
def multi(tmp_path_factory):
    return write_multi_animation(tmp_path_factory.mktemp("gltf") / "multi.glb")


def test_list_gives_names_durations_and_channels_in_file_order(multi):
    anims = list_animations(multi)
    expected = durations()
    assert [a.name for a in anims] == ["Walk", "Slow", ""]
    assert [a.index for a in anims] == [0, 1, 2]
    assert [a.label for a in anims] == ["Walk", "Slow", "animations[2]"]
    for a, name in zip(anims, ["Walk", "Slow", None]):
        assert a.duration == pytest.approx(expected[name], abs=DURATION_ATOL)
    assert len({a.channels for a in anims}) == 1 and anims[0].channels > 0


def test_a_file_with_one_or_no_animation(tmp_path):
    assert len(list_animations(DATA / "RiggedSimple.glb")) == 1
    imp = read_gltf(DATA / "RiggedSimple.glb")
    assert imp.clip is not None and imp.animation_index == 0


@pytest.mark.parametrize("choice, name", [("Slow", "Slow"), (1, "Slow"), ("1", "Slow"), (2, None), ("Walk", "Walk"), (0, "Walk")])
def test_an_animation_by_name_or_index(multi, choice, name):
    imp = read_gltf(multi, animation=choice)
    assert imp.clip.duration == pytest.approx(durations()[name], abs=DURATION_ATOL)
    assert imp.animation == (name or "animations[2]")


def test_the_default_is_the_first_animation(multi):
    imp = read_gltf(multi)
    assert imp.animation == "Walk" and imp.animation_index == 0
    assert imp.clip.duration == pytest.approx(durations()["Walk"], abs=DURATION_ATOL)


def test_the_chosen_animation_is_the_one_sampled(multi):
    # "Slow" is the walk at half speed: its pose at 2t is the walk's at t.
    walk, slow = read_gltf(multi, animation="Walk"), read_gltf(multi, animation="Slow")
    height = np.ptp(positions(walk, walk.clip.frame(0))[:, 1])
    for t in np.linspace(0.0, walk.clip.duration, 7):
        a = positions(walk, walk.clip.pose_at(t))
        b = positions(slow, slow.clip.pose_at(2 * t))
        np.testing.assert_allclose(b, a, atol=POSE_RTOL * height)
    # and they differ between those times, so the check above could fail
    a = positions(walk, walk.clip.pose_at(walk.clip.duration / 3))
    b = positions(slow, slow.clip.pose_at(walk.clip.duration / 3))
    assert np.abs(a - b).max() > 100 * POSE_RTOL * height


def test_no_animation_asked_for_gives_no_clip(multi):
    imp = read_gltf(multi, animation=None)
    assert imp.clip is None and imp.animation is None


@pytest.mark.parametrize("choice, words", [
    ("Run", "no animation named 'Run'"),
    (3, "has no animation 3"),
    ("7", "has no animation 7"),
    ("-1", "no animation named '-1'"),
])
def test_an_unknown_animation_names_the_file_and_lists_its_animations(multi, choice, words):
    with pytest.raises(GltfError) as e:
        read_gltf(multi, animation=choice)
    text = str(e.value)
    assert text.startswith(str(multi)), text
    assert words in text
    assert "'Walk', 'Slow', animations[2] (unnamed)" in text


def test_a_name_in_a_file_without_that_many_animations(tmp_path):
    with pytest.raises(GltfError, match="animation named 'Walk'.*1 animation: animations\\[0\\] \\(unnamed\\)"):
        read_gltf(DATA / "CesiumMan.glb", animation="Walk")


@pytest.mark.parametrize("bad", [1.5, True, [0]])
def test_an_animation_that_is_neither_name_nor_index(multi, bad):
    with pytest.raises(GltfError, match="name or an index"):
        read_gltf(multi, animation=bad)


class _FakeDoc:
    """Just what pick_animation reads of a GltfDocument."""

    def __init__(self, names):
        self.path = "fake.glb"
        self.gltf = SimpleNamespace(animations=[SimpleNamespace(name=n) for n in names])

    def error(self, field, problem):
        return GltfError(self.path, field, problem)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(st.one_of(st.none(), st.text(max_size=6), st.sampled_from(["0", "1", "Walk"])), max_size=5),
    choice=st.one_of(st.integers(-2, 6), st.text(max_size=6), st.sampled_from(["0", "1", " 2", "Walk", "²", "٣"])),
)
def test_pick_is_the_first_of_that_name_else_the_index_else_an_error_listing_all(names, choice):
    doc = _FakeDoc(names)
    if isinstance(choice, str) and choice in names:
        expected = names.index(choice)
    elif isinstance(choice, int) or (choice.strip().isascii() and choice.strip().isdigit()):
        number = int(choice) if isinstance(choice, int) else int(choice.strip())
        expected = number if 0 <= number < len(names) else ("none" if number == 0 and not names else "error")
    else:
        expected = "error"
    if expected == "error":
        with pytest.raises(GltfError) as e:
            pick_animation(doc, choice)
        text = str(e.value)
        assert text.startswith("fake.glb")
        for i, n in enumerate(names):
            assert (repr(n) if n else f"animations[{i}] (unnamed)") in text
    else:
        assert pick_animation(doc, choice) == (None if expected == "none" else expected)
