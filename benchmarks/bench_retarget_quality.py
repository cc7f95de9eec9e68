"""Retarget quality, as the report measures it: `.venv/bin/python benchmarks/bench_retarget_quality.py`.

Takes from every skeleton family in the shared data (CMU, Bandai Namco walk and kick, LaFAN1,
the pybvh Z-up fixture, the COLLADA2GLTF figures CesiumMan and RiggedFigure, Mixamo's Xbot
walk) retargeted with `retarget_file` (the command's function, default options) onto the
bundled humanoid (written as .bvh) and onto the Xbot character (written as .glb with its
mesh), each output read back from its file and measured by `rigedit report`'s job
(report/measure.py), beside its source. The bounds are issue 27's:

    foot skate       retarget <= source + 0.01 (share of frames)
    limb directions  mean cosine >= 0.97 over the limbs' bones and the torso (fidelity.py),
                     each bone's world direction against the source's turned to the target's facing
    self-penetration retarget <= source + 0.01 (share of frames: one point)

Prints a markdown table, one row a take and target, each measure source -> retarget with met or
MISSED, and the count met. Also: feet below the ground (share of frames) and the slide over
locked contacts (mm), which have no bound but say where a miss comes from.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = Path("/work/shared/data")
TAKES = (  # (label, file, animation)
    ("CMU walk", "cmu_12_01_walk.bvh", None),
    ("Bandai walk", "dataset-1_walk-right_normal_001.bvh", None),
    ("Bandai kick", "dataset-1_kick_normal_001.bvh", None),
    ("LaFAN1 push", "lafan1_push1_subject2.bvh", None),
    ("pybvh (Z-up)", "pybvh_bvh_test1.bvh", None),
    ("CesiumMan walk", "CesiumMan.glb", None),
    ("RiggedFigure", "RiggedFigure.glb", None),
    ("Xbot walk", "threejs_Xbot.glb", "walk"),
)
TARGETS = (("humanoid", "humanoid", ".bvh"), ("Xbot", str(DATA / "threejs_Xbot.glb"), ".glb"))
SKATE_MARGIN = 0.01
MIN_COSINE = 0.97
SELF_MARGIN = 0.01


def cosines(src: str, animation, out: str) -> dict[str, float]:
    """Per bone, the mean direction cosine of the output file's clip to the source's."""
    from rigedit.core.retarget.fidelity import bones_of, direction_cosines
    from rigedit.core.retarget.roles import find_roles
    from rigedit.core.retarget.transfer import facing_turn
    from rigedit.lint_cli import load_clip

    a, b = load_clip(src, animation), load_clip(out)
    s = find_roles(a.skeleton, a.clip.frame(0), src)
    t = find_roles(b.skeleton, b.clip.frame(0), out)
    return direction_cosines(a.skeleton, a.clip, b.skeleton, b.clip, bones_of(t, s), facing_turn(t, s))


def row(label: str, src: str, animation, target: str, out: str) -> dict:
    from rigedit.report.measure import measure_file
    from rigedit.retarget_cli import retarget_file

    t0 = time.perf_counter()
    retarget_file(src, target, out, animation=animation, force=True)
    seconds = time.perf_counter() - t0
    a, _, _ = measure_file(src, animation=animation)
    b, _, _ = measure_file(out)
    cos = cosines(src, animation, out)
    return {"take": label, "a": a, "b": b, "cos": cos, "seconds": seconds}


def verdicts(r: dict) -> dict[str, bool]:
    a, b = r["a"], r["b"]
    return {
        "skate": b["foot_skate_share"] <= a["foot_skate_share"] + SKATE_MARGIN,
        "directions": float(np.mean(list(r["cos"].values()))) >= MIN_COSINE,
        "self": b["self_penetration_frame_share"] <= a["self_penetration_frame_share"] + SELF_MARGIN,
    }


def table(rows: list[tuple[str, dict]]) -> str:
    head = ("| take | onto | foot skate | limb directions (mean cos, worst bone) | self-penetration "
            "| below ground | locked slide (mm) | retarget s |\n|---|---|---|---|---|---|---|---|")
    lines = [head]
    for onto, r in rows:
        a, b, v = r["a"], r["b"], verdicts(r)
        mean = float(np.mean(list(r["cos"].values())))
        worst = min(r["cos"], key=r["cos"].get)

        def mark(ok: bool) -> str:
            return "met" if ok else "**MISSED**"

        lines.append(
            f"| {r['take']} | {onto} | {a['foot_skate_share']:.3f} -> {b['foot_skate_share']:.3f} {mark(v['skate'])} "
            f"| {mean:.3f} ({worst} {r['cos'][worst]:.3f}) {mark(v['directions'])} "
            f"| {a['self_penetration_frame_share']:.3f} -> {b['self_penetration_frame_share']:.3f} {mark(v['self'])} "
            f"| {a['ground_penetration_share']:.2f} -> {b['ground_penetration_share']:.2f} "
            f"| {a['slide_mm']:.0f} -> {b['slide_mm']:.0f} | {r['seconds']:.2f} |")
    met = sum(all(verdicts(r).values()) for _, r in rows)
    lines.append(f"\n{met} of {len(rows)} retargets meet all three bounds; "
                 f"{sum(verdicts(r)['skate'] for _, r in rows)} the skate bound, "
                 f"{sum(verdicts(r)['directions'] for _, r in rows)} the directions bound, "
                 f"{sum(verdicts(r)['self'] for _, r in rows)} the self-penetration bound.")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--take", action="append", help="only takes whose label contains this (repeatable)")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, animation in TAKES:
            if args.take and not any(k.lower() in label.lower() for k in args.take):
                continue
            for onto, target, suffix in TARGETS:
                out = str(Path(tmp) / f"{Path(name).stem}_{animation or ''}_{onto}{suffix}")
                rows.append((onto, row(label, str(DATA / name), animation, target, out)))
                print(f"  {label} onto {onto}: done", file=sys.stderr)
    print(table(rows))


if __name__ == "__main__":
    main()
