"""Regenerate the bundled scenes (issue 8): `.venv/bin/python resources/presets/generate_scenes.py`.

Scenes are presets that show one typical use and play from the timeline: "look at" (a
humanoid whose head follows a keyed target), "uneven ground walk" (a humanoid walking a
procedural clip over the stepped ground with its feet grounded) and "creature gait" (the
creature walking a keyed body path, its legs stepping procedurally). Like generate_presets.py,
this only records how the shipped JSON was made.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from generate_presets import humanoid, rounded  # noqa: E402

from rigedit.core.chain_uses import LookAtSettings  # noqa: E402
from rigedit.core.rig import Rig  # noqa: E402
from rigedit.core.timeline import Timeline  # noqa: E402
from rigedit.io.preset import save_preset  # noqa: E402


def look_at_scene() -> Rig:
    """The humanoid; neck and head share a look-at (40/60) within a 70 degree cone; the target
    starts 1.5 m straight ahead (where the head looks at rest, so the loaded rig is already
    solved) and loops left, up, right and down over 4 s."""
    rig = humanoid()
    rig.name = "look at"
    head = rig.world_position("Head")
    ahead = rounded(head + [0.0, 0.0, 1.5])
    rig.add_chain(
        "look",
        ["Neck", "Head"],
        solver="look_at",
        target=ahead,
        look_at=LookAtSettings(weights=(0.4, 0.6), max_angle_deg=70.0),
    )
    tl = Timeline(frame_rate=30.0, start=0.0, end=4.0)
    path = [(0.0, 0.0, 1.5), (1.2, 0.2, 1.2), (0.0, 0.9, 0.8), (-1.2, 0.1, 1.0), (-0.3, -0.8, 1.0), (0.0, 0.0, 1.5)]
    for k, offset in enumerate(path):
        tl.key_target("look", round(k * 0.8, 3), rounded(head + offset))
    rig.timeline = tl
    return rig


def save(rig: Rig, stem: str) -> None:
    path = HERE / f"{stem}.json"
    save_preset(rig, path)
    bak = path.with_name(path.name + ".bak")
    if bak.exists():
        bak.unlink()
    print(f"{path.name}: {len(rig.skeleton)} joints, chains {', '.join(rig.chain_names)}")


def main() -> None:
    save(look_at_scene(), "look_at")


if __name__ == "__main__":
    main()
