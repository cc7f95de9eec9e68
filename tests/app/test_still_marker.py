"""The report's stills mark the joint at fault: a self-penetration's still the limb joint
nearest the deepest point (of the bone capsules, or the skinned mesh's deepest vertex), a
jerk spike's the joint that jerks (rigedit/report/
still_frames.py chooses, rigedit/app/stills.py draws with the viewport). Made-up clips whose
joint at fault is known by construction, at random frames; the marker is looked for in the
drawn still, in the marker's colour around the joint's place on screen."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rigedit.app.capture import image_array
from rigedit.app.stills import MARK, StillStage
from rigedit.core.clip import Clip
from rigedit.core.quality import measure_clip
from rigedit.core.quality.body import body_of
from rigedit.core.rig import Rig
from rigedit.core.skeleton import Pose
from rigedit.core.transforms import quat_from_axis_angle
from rigedit.io.bvh import write_bvh
from rigedit.io.export import export_rig
from rigedit.io.loaded import ExportSource, read_gltf_source
from rigedit.report.measure import measure_file
from rigedit.report.still_frames import still_frames
from tests.core.quality_clips import forearm_into_chest, hand_into_chest, humanoid, set_world_rotation, standing

N = 90
SKINNED = Path("/work/shared/data/CesiumMan.glb")
NEAR_PX = 9  # the marker is drawn 13 px across, centred on the joint


def _below(skeleton, joint: int) -> set[str]:
    out, todo = set(), [joint]
    while todo:
        j = todo.pop()
        out.add(skeleton.names[j])
        todo += skeleton.children(j)
    return out


def _stills(skeleton, clip):
    q = measure_clip(skeleton, clip)
    feet = {side: [skeleton.names[j] for j in pts] for side, pts in q.body.feet.items()}
    return still_frames(q.summary(), q.tracks(), feet)


def test_a_self_penetration_still_names_a_joint_of_the_limb_inside():
    sk = humanoid()
    rng = np.random.default_rng()
    a = int(rng.integers(5, N - 20))
    clip = hand_into_chest(sk, standing(sk, N), range(a, a + 10), side="Left")
    shot = next(s for s in _stills(sk, clip) if "self-penetration" in s.why)
    assert a <= shot.frame < a + 10
    assert len(shot.joints) == 1 and shot.joints[0] in _below(sk, sk.index("LeftForeArm")), shot.joints


def test_a_jerk_spike_still_names_the_joint_that_jerks():
    sk = humanoid()
    rng = np.random.default_rng()
    f = int(rng.integers(20, N - 20))
    # An arm or the head: a glitch in a leg moves a foot, and the still is the skate's too.
    joint = sk.index(str(rng.choice(["RightForeArm", "LeftArm", "Head"])))
    glitch = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), 0.6)
    clip = set_world_rotation(sk, standing(sk, N), [f], joint, glitch)
    shot = next(s for s in _stills(sk, clip) if "jerk spike" in s.why)
    assert abs(shot.frame - f) <= 2
    assert shot.joints and set(shot.joints) <= _below(sk, joint), (sk.names[joint], shot.joints)


def _marked(stage: StillStage, path: Path, shot) -> tuple[int, int]:
    """Marker-coloured pixels around the still's first joint, drawn without and with the mark."""
    shown = stage.show_clip(str(path))
    rig = stage.document.rig
    where = rig.skeleton.fk(Pose(shown.rotations[shot.frame], shown.translations[shot.frame]))[0][
        rig.skeleton.index(shot.joints[0])]
    plain = stage.render(shown, shot.frame, [], "no mark")
    marked = stage.render(shown, shot.frame, list(shot.joints), shot.why)
    return _marker_pixels(plain, stage, where), _marker_pixels(marked, stage, where)


def _marker_pixels(img, stage, xyz) -> int:
    """Pixels of the marker's colour within NEAR_PX of where `xyz` is drawn."""
    a = image_array(img).astype(int)
    vp = stage.viewport
    k = img.width() / vp.width()  # device pixels per logical pixel
    p = vp.world_to_screen(xyz)
    x, y = int(round(p.x() * k)), int(round(p.y() * k))
    r = int(NEAR_PX * k)
    box = a[max(0, y - r): y + r + 1, max(0, x - r): x + r + 1].reshape(-1, 3)
    want = np.array([round(255 * c) for c in MARK[:3]])
    return int((np.abs(box - want).max(axis=1) < 40).sum())


def test_the_joint_at_fault_is_marked_on_the_still(qtbot, tmp_path):
    """The self-penetration clip written as a file and drawn as the report draws it: around
    the named joint's place on screen there are marker-coloured pixels, and none when the
    same frame is drawn without the mark."""
    sk = humanoid()
    rng = np.random.default_rng()
    a = int(rng.integers(5, N - 20))
    clip = hand_into_chest(sk, standing(sk, N), range(a, a + 10), side="Left")
    shot = next(s for s in _stills(sk, clip) if "self-penetration" in s.why)
    path = tmp_path / "hand_in_chest.bvh"
    write_bvh(path, sk, clip)
    _assert_marked(path, shot)


@pytest.mark.skipif(not SKINNED.is_file(), reason="needs the shared CesiumMan.glb")
def test_the_joint_nearest_the_deepest_mesh_vertex_is_marked_on_the_still(qtbot, tmp_path):
    """A skinned character's made-up clip (its first frame held) with one forearm turned
    into the chest on a few random frames, written as a .glb with the character's mesh,
    measured and drawn as the report does: the mesh self-penetration's still is one of those
    frames and names a joint of that forearm or hand (the elbow and below), and around its
    place on screen there are marker-coloured pixels (none when drawn without the mark)."""
    imp, gltf = read_gltf_source(SKINNED)
    sk, first = imp.skeleton, imp.clip.frame(0)
    n = 30
    held = Clip(np.repeat(first.rotations[None], n, 0), np.repeat(first.translations[None], n, 0), imp.clip.frame_time)
    body = body_of(sk, held)
    rng = np.random.default_rng()
    side = str(rng.choice(sorted(body.arms)))
    a = int(rng.integers(3, n - 6))
    arm, chest = body.arms[side], body.spine[len(body.spine) // 2]
    path = tmp_path / "forearm_in_chest.glb"
    clip = forearm_into_chest(sk, held, range(a, a + 3), arm, chest)
    export_rig(Rig(sk, clip=clip, name="forearm_in_chest"), path, ExportSource(str(SKINNED), gltf=gltf), only_result=True)
    summary, tracks, about = measure_file(str(path))
    shot = next(s for s in still_frames(summary, tracks, about["feet"]) if "self-penetration of the mesh" in s.why)
    assert a <= shot.frame < a + 3, (a, shot.frame)
    assert len(shot.joints) == 1 and shot.joints[0] in _below(sk, arm[-2]), (side, shot.joints)
    _assert_marked(path, shot)


def _assert_marked(path, shot) -> None:
    """Marker-coloured pixels around the shot's joint on its still, none without the mark."""
    stage = StillStage((480, 360))
    try:
        without, with_mark = _marked(stage, path, shot)
    finally:
        stage.close()
    assert without == 0
    assert with_mark >= 20, with_mark
