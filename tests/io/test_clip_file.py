"""A rig's clip is saved with it (NAME.clip.npz beside NAME.json) and opens with it.

Each shared BVH and glTF file: import -> play sampled frames -> save -> move the pair -> open
-> play, with the pose equal to the clip, and a reopened rig playing as the saved one would.
A missing, damaged or mismatched clip file is a PresetError naming both files.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigedit.core.autochains import propose_chains
from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.rig import BUNDLED_PRESETS, Rig
from rigedit.io.clip_source import remember_source
from rigedit.io import preset as preset_io
from rigedit.io import preset_clip
from rigedit.io.bvh import read_bvh
from rigedit.io.gltf import read_gltf
from rigedit.io.preset import PresetError, load_preset, loads_preset, preset_schema, save_preset

DATA = Path("/work/shared/data")
FILES = ["cmu_12_01_walk.bvh", "dataset-1_walk-right_normal_001.bvh", "pybvh_bvh_test1.bvh", "CesiumMan.glb", "RiggedSimple.glb"]
# The figure's pose after a round trip: 1e-6 of its height (issue 14), and the stored clip
# itself to 1e-9 m at every frame (it is float64 in and out).
POSE_REL = 1e-6
CLIP_ATOL = 1e-9


def imported(name: str) -> Rig:
    """What File > Import and `rigedit import` make of a file: the clip under proposed chains."""
    path = DATA / name
    imp = read_bvh(path) if path.suffix == ".bvh" else read_gltf(path, up_axis="auto")
    remember_source(imp)
    rig = Rig(imp.skeleton, clip=imp.clip, name=path.stem)
    for c in propose_chains(imp.skeleton, imp.clip.frame(0)):
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(imp.clip))
    return rig


def sample_times(clip) -> list[float]:
    # Frames across the clip and one time between two frames (a slerped pose).
    return [float(t) for t in np.linspace(0.0, clip.duration, 6)] + [clip.frame_time * 2.37]


def height(rig: Rig) -> float:
    pos = rig.skeleton.fk_matrices(rig.clip.frame(0))[0]
    return float(np.ptp(pos, axis=0).max())


def clip_world(rig: Rig, clip, t: float) -> np.ndarray:
    return rig.skeleton.fk_matrices(clip.pose_at(t))[0]


def play(rig: Rig, times) -> list[np.ndarray]:
    out = []
    for t in times:
        rig.time = t
        rig.solve()
        out.append(rig.world_positions())
    return out


def all_frames_world(skeleton, clip) -> np.ndarray:
    from rigedit.core.skeleton import Pose

    return skeleton.fk_matrices(Pose(clip.rotations, clip.translations))[0]


@pytest.mark.parametrize("name", FILES)
def test_import_play_save_move_open_play(name, tmp_path):
    rig = imported(name)
    original = rig.clip
    times = sample_times(original)
    tol = POSE_REL * height(rig)
    # At weight 1: the imported goals follow the clip, so playing shows it as recorded.
    assert all(ch.weight == 1.0 and ch.follow_clip for ch in rig.chains)
    for t, pos in zip(times, play(rig, times)):
        np.testing.assert_allclose(pos, clip_world(rig, original, t), atol=tol)
    rig.time = times[3]
    rig.solve()
    (tmp_path / "a").mkdir()
    save_preset(rig, tmp_path / "a" / "take.json")
    assert sorted(os.listdir(tmp_path / "a")) == ["take.clip.npz", "take.json"]
    doc = json.loads((tmp_path / "a" / "take.json").read_text())
    assert "clip" not in doc and doc["clip_file"]["file"] == "take.clip.npz"
    assert doc["clip_file"]["source"]["file"] == name
    # The pair moves to another folder (and the old one goes): it still opens.
    shutil.move(tmp_path / "a", tmp_path / "moved")
    opened = load_preset(tmp_path / "moved" / "take.json")
    assert opened.time == pytest.approx(times[3], abs=1e-12)
    np.testing.assert_allclose(opened.world_positions(), rig.world_positions(), atol=tol)
    assert opened.clip.n_frames == original.n_frames
    assert opened.clip.frame_time == pytest.approx(original.frame_time, rel=1e-12)
    np.testing.assert_allclose(
        all_frames_world(opened.skeleton, opened.clip), all_frames_world(rig.skeleton, original), atol=CLIP_ATOL
    )
    assert opened.clip.source == original.source
    for t, pos in zip(times, play(opened, times)):
        np.testing.assert_allclose(pos, clip_world(opened, original, t), atol=tol)


@pytest.mark.parametrize("name", ["cmu_12_01_walk.bvh", "CesiumMan.glb"])
def test_a_reopened_rig_plays_as_the_saved_one_at_full_weight(name, tmp_path):
    """Whatever the goals do over the clip, the rig opened from the pair plays what the rig
    that was saved plays from there."""
    rig = imported(name)
    times = sample_times(rig.clip)
    play(rig, times[:3])
    save_preset(rig, tmp_path / "take.json")
    saved = rig.copy()
    opened = load_preset(tmp_path / "take.json")
    tol = POSE_REL * height(rig)
    np.testing.assert_allclose(opened.world_positions(), saved.world_positions(), atol=tol)
    for a, b in zip(play(opened, times), play(saved, times)):
        np.testing.assert_allclose(a, b, atol=tol)


def test_the_source_and_time_are_remembered(tmp_path):
    rig = imported("pybvh_bvh_test1.bvh")
    rig.time = 1.25
    save_preset(rig, tmp_path / "z.json")
    opened = load_preset(tmp_path / "z.json")
    src = opened.clip.source
    assert (src.file, src.up_axis, src.animation) == ("pybvh_bvh_test1.bvh", "+z", None)
    assert src.scale == pytest.approx(0.0254)
    assert "pybvh_bvh_test1.bvh" in opened.clip.describe() and "up +z" in opened.clip.describe()
    assert opened.time == 1.25
    gltf = imported("CesiumMan.glb")
    save_preset(gltf, tmp_path / "c.json")
    assert load_preset(tmp_path / "c.json").clip.source.animation == gltf.clip.source.animation is not None


def test_time_is_saved_for_a_rig_without_chains(tmp_path):
    imp = read_bvh(DATA / "dataset-1_walk-right_normal_001.bvh")
    rig = Rig(imp.skeleton, clip=imp.clip)
    rig.time = 2.0
    save_preset(rig, tmp_path / "bare.json")
    opened = load_preset(tmp_path / "bare.json")
    assert opened.time == 2.0
    np.testing.assert_allclose(opened.world_positions(), clip_world(opened, imp.clip, 2.0), atol=1e-9)


def test_an_unchanged_clip_file_is_not_written_again(tmp_path):
    rig = imported("pybvh_bvh_test1.bvh")
    save_preset(rig, tmp_path / "z.json")
    before = os.stat(tmp_path / "z.clip.npz")
    rig.chains[0].weight = 0.5
    save_preset(rig, tmp_path / "z.json")
    after = os.stat(tmp_path / "z.clip.npz")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not (tmp_path / "z.clip.npz.bak").exists()
    # Save As elsewhere writes that preset's own clip file.
    save_preset(rig, tmp_path / "other.json")
    assert json.loads((tmp_path / "other.json").read_text())["clip_file"]["file"] == "other.clip.npz"
    assert (tmp_path / "other.clip.npz").exists()


def test_a_failed_preset_write_leaves_the_old_pair_opening(tmp_path, monkeypatch):
    first = imported("pybvh_bvh_test1.bvh")
    save_preset(first, tmp_path / "z.json")
    old_bytes = (tmp_path / "z.clip.npz").read_bytes()
    second = imported("pybvh_bvh_test1.bvh")
    second.clip.translations[:, 0] += 1.0  # a body moved: another clip file
    second.clip = second.clip

    def full_disk(path, text, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(preset_clip, "atomic_write_text", full_disk)
    with pytest.raises(PresetError, match="No space left"):
        save_preset(second, tmp_path / "z.json")
    monkeypatch.undo()
    assert (tmp_path / "z.clip.npz").read_bytes() == old_bytes
    opened = load_preset(tmp_path / "z.json")
    np.testing.assert_allclose(opened.clip.translations, first.clip.translations, atol=CLIP_ATOL)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    # With no pair before, a failed save leaves no clip file behind either.
    monkeypatch.setattr(preset_clip, "atomic_write_text", full_disk)
    with pytest.raises(PresetError):
        save_preset(second, tmp_path / "new.json")
    assert not (tmp_path / "new.clip.npz").exists() and not (tmp_path / "new.json").exists()


def test_bundled_scenes_keep_their_clip_in_the_preset(tmp_path):
    for stem in ("creature_gait", "uneven_ground_walk"):
        rig = load_preset(BUNDLED_PRESETS / f"{stem}.json")
        assert rig.clip is not None
        save_preset(rig, tmp_path / f"{stem}.json")
        assert not (tmp_path / f"{stem}.clip.npz").exists()
        assert "clip" in json.loads((tmp_path / f"{stem}.json").read_text())
        # A version 2 file (before clip files) opens the same.
        doc = json.loads((BUNDLED_PRESETS / f"{stem}.json").read_text())
        doc["version"] = 2
        old = loads_preset(json.dumps(doc), f"{stem}.json")
        np.testing.assert_allclose(old.clip.rotations, rig.clip.rotations, atol=1e-12)


def test_the_schema_describes_the_clip_file():
    schema = preset_schema()
    assert "clip_file" in schema["properties"]
    model = schema["$defs"]["ClipFileModel"]
    assert set(model["required"]) == {"file", "frames", "frame_time", "sha256"}
    assert model["properties"]["sha256"]["pattern"] == "^[0-9a-f]{64}$"
    assert schema["properties"]["version"]["const"] == preset_io.VERSION >= 3


# --- a missing, damaged or mismatched clip file -------------------------------------------


@pytest.fixture
def pair(tmp_path):
    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    rig = Rig(imp.skeleton, clip=imp.clip, name="z")
    save_preset(rig, tmp_path / "z.json")
    return tmp_path / "z.json", tmp_path / "z.clip.npz"


def members(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def rewrite(path: Path, **changes) -> None:
    arrays = members(path)
    arrays.update(changes)
    for k in [k for k, v in changes.items() if v is None]:
        del arrays[k]
    with open(path, "wb") as f:
        np.savez(f, **arrays, allow_pickle=True)


def refused(preset: Path, sidecar: Path) -> str:
    with pytest.raises(PresetError) as e:
        load_preset(preset)
    text = str(e.value)
    assert str(preset) in text and str(sidecar) in text and "clip_file" in text, text
    return text


def test_a_missing_clip_file_names_both_files(pair):
    preset, sidecar = pair
    sidecar.unlink()
    assert "missing" in refused(preset, sidecar)


def rot_nan(a):
    a = a["rotations"].copy()
    a[3, 2, 1] = np.nan
    return {"rotations": a}


def trans_moved(a):
    t = a["translations"].copy()
    t[10, 0, 1] += 1e-3
    return {"translations": t}


def renamed(a):
    j = a["joints"].copy()
    j[4] = "Elsewhere"
    return {"joints": j}


CORRUPTIONS = [
    (lambda a: {"rotations": a["rotations"][:-1]}, "rotations: must have shape"),
    (rot_nan, "rotations: must be finite"),
    (lambda a: {"rotations": a["rotations"] * 2.0}, "not a unit quaternion"),
    (renamed, "joints[4]: is 'Elsewhere'"),
    (lambda a: {"frame_time": np.array(0.05)}, "frame_time: is 0.05 s"),
    (lambda a: {"rotations": a["rotations"].astype(np.float32)}, "rotations: must be float64"),
    (lambda a: {"translations": np.array([object()] * 3, dtype=object)}, "Python objects"),
    (lambda a: {"format": np.array("something.else")}, "not a rigedit clip file"),
    (lambda a: {"version": np.array(99)}, "newer rigedit"),
    (lambda a: {"translations": None}, "translations: missing from the archive"),
    (trans_moved, "checksum differs"),
]


@pytest.mark.parametrize("corrupt, problem", CORRUPTIONS, ids=[p for _, p in CORRUPTIONS])
def test_a_damaged_clip_file_names_the_field(pair, corrupt, problem):
    preset, sidecar = pair
    rewrite(sidecar, **corrupt(members(sidecar)))
    assert problem in refused(preset, sidecar)


def test_bytes_that_are_no_clip_file(pair):
    preset, sidecar = pair
    good = sidecar.read_bytes()
    sidecar.write_bytes(good[: len(good) // 2])
    assert "not an .npz" in refused(preset, sidecar) or "damaged" in refused(preset, sidecar)
    sidecar.write_bytes(b"PK\x03\x04 not really a zip")
    refused(preset, sidecar)
    sidecar.write_bytes(b"")
    refused(preset, sidecar)


def test_a_header_promising_a_huge_array_is_refused_before_reading(pair):
    preset, sidecar = pair
    arrays = members(sidecar)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in arrays.items():
            npy = io.BytesIO()
            if k == "rotations":
                # A header for a billion frames over a few bytes of data (deflate bombs
                # look like this after inflating): refused from the header alone.
                np.lib.format.write_array_header_1_0(npy, {"descr": "<f8", "fortran_order": False, "shape": (10**9, 29, 4)})
                npy.write(b"\0" * 64)
            else:
                np.lib.format.write_array(npy, v)
            z.writestr(k + ".npy", npy.getvalue())
    sidecar.write_bytes(buf.getvalue())
    assert "rotations: must have shape" in refused(preset, sidecar)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_is_refused_or_harmless(pair, data):
    """Flipped bytes or a cut file: either the very clip comes back (the damage hit zip
    metadata that does not matter) or a PresetError naming both files; nothing else."""
    preset, sidecar = pair
    good = getattr(test_any_damage_is_refused_or_harmless, "_good", None)
    if good is None or good[0] != preset:
        good = (preset, sidecar.read_bytes(), load_preset(preset).clip)
        test_any_damage_is_refused_or_harmless._good = good
    raw = bytearray(good[1])
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    sidecar.write_bytes(bytes(raw))
    try:
        rig = load_preset(preset)
    except PresetError as e:
        assert str(preset) in str(e) and str(sidecar) in str(e)
        return
    np.testing.assert_array_equal(rig.clip.rotations, good[2].rotations)
    np.testing.assert_array_equal(rig.clip.translations, good[2].translations)


def test_a_preset_with_both_clips_or_a_bad_reference_is_refused(pair):
    preset, sidecar = pair
    doc = json.loads(preset.read_text())
    both = dict(doc, clip={"frame_time": 0.1, "root_translations": [[0.0, 0.0, 0.0]]})
    with pytest.raises(PresetError, match="clip_file: a preset has one clip"):
        loads_preset(json.dumps(both), str(preset))
    bad = json.loads(json.dumps(doc))
    bad["clip_file"]["sha256"] = "not hex"
    with pytest.raises(PresetError, match=r"clip_file\.sha256"):
        loads_preset(json.dumps(bad), str(preset))
    more = json.loads(json.dumps(doc))
    more["clip_file"]["frames"] += 1
    with pytest.raises(PresetError, match="rotations: must have shape"):
        loads_preset(json.dumps(more), str(preset))


def test_a_preset_clip_that_moves_more_than_the_root_goes_beside_it(tmp_path):
    rig = load_preset(BUNDLED_PRESETS / "uneven_ground_walk.json")
    clip = rig.clip
    clip.translations[:, 1, 0] += np.linspace(0.0, 0.05, clip.n_frames)  # the sparse form cannot say this
    rig.clip = clip
    rig.clip_in_preset = True
    save_preset(rig, tmp_path / "u.json")
    assert (tmp_path / "u.clip.npz").exists()
    opened = load_preset(tmp_path / "u.json")
    np.testing.assert_allclose(all_frames_world(opened.skeleton, opened.clip), all_frames_world(rig.skeleton, clip), atol=CLIP_ATOL)


def test_a_clip_that_would_not_open_is_not_saved(tmp_path):
    imp = read_bvh(DATA / "pybvh_bvh_test1.bvh")
    rig = Rig(imp.skeleton, clip=imp.clip)
    rig.clip.rotations[5, 3] = [0.0, 0.0, 0.0, 2.0]
    with pytest.raises(PresetError, match=r"clip_file\.rotations: cannot save: frame 5, joint .*not a unit quaternion"):
        save_preset(rig, tmp_path / "z.json")
    rig.clip.rotations[5, 3] = [0.0, 0.0, 0.0, 1.0]
    rig.clip.translations[7, 0, 2] = np.inf
    with pytest.raises(PresetError, match=r"clip_file\.translations: cannot save: must be finite"):
        save_preset(rig, tmp_path / "z.json")
    assert os.listdir(tmp_path) == []


def test_a_save_cut_between_the_two_renames_still_opens_the_old_pair(tmp_path):
    """The clip file is renamed first: a power cut then leaves the new clip file beside the
    old preset. The old clip file is the .bak, and the preset's checksum finds it."""
    first = imported("pybvh_bvh_test1.bvh")
    save_preset(first, tmp_path / "z.json")
    old_preset = (tmp_path / "z.json").read_bytes()
    second = imported("pybvh_bvh_test1.bvh")
    second.clip.translations[:, 0] += 0.5
    second.clip = second.clip
    save_preset(second, tmp_path / "z.json")
    (tmp_path / "z.json").write_bytes(old_preset)  # as if the preset's rename never happened
    opened = load_preset(tmp_path / "z.json")
    np.testing.assert_allclose(opened.clip.translations, first.clip.translations, atol=CLIP_ATOL)
    # Without the backup it is refused, saying what happened.
    (tmp_path / "z.clip.npz.bak").unlink()
    assert "checksum differs" in refused(tmp_path / "z.json", tmp_path / "z.clip.npz")
