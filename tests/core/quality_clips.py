"""Made-up clips for the quality tests, whose measures are known by construction: the bundled
humanoid (1.75 m, toe ends on y = 0) standing in its rest pose, with faults put in."""
from __future__ import annotations

import numpy as np

import rigedit
from rigedit.core.clip import Clip
from rigedit.core.skeleton import Pose, Skeleton
from rigedit.core.transforms import quat_between, quat_conj, quat_from_axis_angle, quat_mul, quat_normalize

FPS = 30.0


def humanoid() -> Skeleton:
    return rigedit.Rig.default().skeleton


def standing(skeleton: Skeleton, frames: int, fps: float = FPS) -> Clip:
    rp = skeleton.rest_pose()
    return Clip(np.repeat(rp.rotations[None], frames, 0), np.repeat(rp.translations[None], frames, 0), 1.0 / fps)


def scaled(skeleton: Skeleton, clip: Clip, k: float) -> tuple[Skeleton, Clip]:
    """The same figure and motion k times the size (k = 100: metres read as centimetres)."""
    sk = Skeleton(skeleton.names, skeleton.parents, skeleton.offsets * k, skeleton.rest_rotations)
    return sk, Clip(clip.rotations.copy(), clip.translations * k, clip.frame_time)


def move_root(clip: Clip, offsets: np.ndarray) -> Clip:
    """The root moved by offsets (frames, 3) on top of the clip."""
    out = Clip(clip.rotations.copy(), clip.translations.copy(), clip.frame_time)
    out.translations[:, 0] += offsets
    return out


def glide(frames: int, spans, speed: float, fps: float = FPS, direction=(1.0, 0.0, 0.0)) -> np.ndarray:
    """Root offsets (frames, 3): still, except moving at `speed` m/s along `direction` during
    each (start, end) span of frames (held where it got to after)."""
    v = np.zeros(frames)
    for a, b in spans:
        v[a + 1 : b + 1] = speed / fps  # the move from frame f-1 to f
    return np.cumsum(v)[:, None] * np.asarray(direction, float)


def set_world_rotation(skeleton: Skeleton, clip: Clip, frames, joint: int, turn) -> Clip:
    """`joint` turned by the world rotation `turn` (or turn(f, positions) per frame) on
    `frames` (its children follow)."""
    out = Clip(clip.rotations.copy(), clip.translations.copy(), clip.frame_time)
    pos, q = skeleton.fk(Pose(clip.rotations, clip.translations))
    parent = int(skeleton.parents[joint])
    for f in frames:
        world = quat_mul(turn(pos[f]) if callable(turn) else turn, q[f, joint])
        local = world if parent < 0 else quat_mul(quat_conj(q[f, parent]), world)
        out.rotations[f, joint] = quat_normalize(local)
    return out


def hand_into_chest(skeleton: Skeleton, clip: Clip, frames, side: str = "Left") -> Clip:
    """The arm swung across the body from the shoulder, through the chest, on `frames`."""
    pos, _ = skeleton.fk(skeleton.rest_pose())
    arm, fore = skeleton.index(f"{side}Arm"), skeleton.index(f"{side}ForeArm")
    target = pos[skeleton.index("Spine2")]
    turn = quat_between(pos[fore] - pos[arm], target - pos[arm])
    return set_world_rotation(skeleton, clip, frames, arm, turn)


def arm_into_chest(skeleton: Skeleton, clip: Clip, frames, arm: list[int], chest: int) -> Clip:
    """Any figure's arm (shoulder, elbow, ...) swung from the shoulder toward `chest` on
    `frames`, frame by frame: the forearm goes through the body."""
    def turn(p):
        return quat_between(p[arm[1]] - p[arm[0]], p[chest] - p[arm[0]])

    return set_world_rotation(skeleton, clip, frames, arm[0], turn)


def forearm_into_chest(skeleton: Skeleton, clip: Clip, frames, arm: list[int], chest: int) -> Clip:
    """Any figure's forearm turned at the elbow to point at `chest` on `frames`, frame by frame:
    the forearm and hand go into the body wherever the elbow hangs (swung from the shoulder,
    the upper arm would cross the chest and the forearm come out the other side)."""
    def turn(p):
        return quat_between(p[arm[2]] - p[arm[1]], p[chest] - p[arm[1]])

    return set_world_rotation(skeleton, clip, frames, arm[1], turn)


def bend_spine(skeleton: Skeleton, clip: Clip, frames, degrees: float) -> Clip:
    """Spine1 bent forward by `degrees` on `frames` (the bundled rig's cone allows 20)."""
    turn = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), np.radians(degrees))
    return set_world_rotation(skeleton, clip, frames, skeleton.index("Spine1"), turn)


def random_frames(rng: np.random.Generator, frames: int, count: int, gap: int = 0, margin: int = 3) -> list[int]:
    """`count` distinct frames in margin..frames-margin, at least `gap` apart."""
    while True:
        picked = np.sort(rng.choice(np.arange(margin, frames - margin), size=count, replace=False))
        if gap == 0 or np.all(np.diff(picked) >= gap):
            return [int(f) for f in picked]
