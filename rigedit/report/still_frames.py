"""Which frames of a measured clip the report shows as stills, and why: the deepest
self-penetration (the skinned mesh's where the file has one, else the bone capsules'), the
worst foot skate, the biggest jerk spike and, while there is room, the deepest ground
penetration; at most MAX_STILLS, one per frame. A clip with none of these shows one frame of
its middle, saying so. Plain data from the report's summary and tracks: no Qt here (the
drawing is rigedit/app/stills.py's). Each still names the joints to mark: the feet of a skate or
ground penetration, the limb joint nearest the deepest point (capsules) or vertex (mesh) of a
self-penetration, the joint whose jerk spikes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_STILLS = 3


@dataclass(frozen=True)
class StillFrame:
    frame: int
    why: str  # what is worst there, with its number
    joints: tuple[str, ...] = ()  # the measured joints, marked on the still

    def caption(self, fps: float) -> str:
        return f"frame {self.frame} ({self.frame / fps:.2f} s): {self.why}"


def still_frames(summary: dict, tracks: dict, feet: dict[str, list[str]]) -> list[StillFrame]:
    """Up to MAX_STILLS frames worth looking at, worst kinds first."""
    h_mm = 1000.0 * summary["height_m"]
    picks = [_self_penetration(summary, h_mm), _skate(summary, tracks, feet), _jerk(tracks),
             _ground(summary, h_mm, feet)]
    out: list[StillFrame] = []
    for p in picks:
        if p is None or len(out) == MAX_STILLS:
            continue
        same = next((i for i, q in enumerate(out) if q.frame == p.frame), None)
        if same is None:
            out.append(p)
        else:  # one still says both
            q = out[same]
            out[same] = StillFrame(q.frame, f"{q.why}; {p.why}", tuple(dict.fromkeys(q.joints + p.joints)))
    if not out:
        first = int(summary.get("first_frame") or 0)
        out.append(StillFrame((first + summary["frames"] - 1) // 2, "the middle frame (no skate, penetration or jerk spike found)"))
    return out


def _self_penetration(s: dict, h_mm: float) -> StillFrame | None:
    if s.get("mesh_penetration_frame") is not None and (s.get("mesh_penetration_max_height") or 0) > 0:
        depth = s["mesh_penetration_max_height"] * h_mm
        joint = s.get("mesh_penetration_joint")
        return StillFrame(int(s["mesh_penetration_frame"]), f"deepest self-penetration of the mesh, a limb vertex {_mm(depth)} mm inside the body",
                          (joint,) if joint else ())
    if s.get("self_penetration_frame") is not None and (s.get("self_penetration_max_height") or 0) > 0:
        depth = s["self_penetration_max_height"] * h_mm
        joint = s.get("self_penetration_joint")
        return StillFrame(int(s["self_penetration_frame"]), f"deepest self-penetration, a limb point {_mm(depth)} mm inside the body's capsules",
                          (joint,) if joint else ())
    return None


def _skate(s: dict, tracks: dict, feet: dict[str, list[str]]) -> StillFrame | None:
    """The skating frame where the lower foot moves fastest."""
    skating = np.asarray(tracks.get("skating") or [], dtype=bool)
    per_foot = tracks.get("feet") or {}
    if not skating.any() or not per_foot:
        return None
    sides = list(per_foot)
    height = np.array([per_foot[k]["height"] for k in sides])  # (feet, frames), figure heights
    speed = np.array([per_foot[k]["speed"] for k in sides])  # figure heights per second
    lower = height.argmin(axis=0)
    score = np.where(skating, speed[lower, np.arange(len(lower))], -1.0)
    f = int(score.argmax())
    side = sides[int(lower[f])]
    m_s = speed[lower[f], f] * s["height_m"]
    return StillFrame(f, f"worst foot skate, the {side} foot sliding at {m_s:.2f} m/s", tuple(feet.get(side, ())))


def _jerk(tracks: dict) -> StillFrame | None:
    spikes = tracks.get("spikes") or []
    if not spikes:
        return None
    jerk = tracks["jerk"]
    k = max(range(len(spikes)), key=lambda i: jerk[spikes[i]])
    f = spikes[k]
    joints = tracks.get("spike_joints") or []
    return StillFrame(int(f), f"biggest jerk spike, {jerk[f]:.4g} heights/s³ (spike threshold {tracks['jerk_threshold']:.4g})",
                      (joints[k],) if k < len(joints) else ())


def _ground(s: dict, h_mm: float, feet: dict[str, list[str]]) -> StillFrame | None:
    if s.get("ground_penetration_frame") is None or not (s.get("ground_penetration_max_height") or 0) > 0:
        return None
    joints = tuple(j for side in feet.values() for j in side)
    return StillFrame(int(s["ground_penetration_frame"]),
                      f"deepest ground penetration, a foot {_mm(s['ground_penetration_max_mm'])} mm below y = 0", joints)


def _mm(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"
