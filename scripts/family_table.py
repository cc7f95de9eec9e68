"""The table of files by skeleton family and what each step gives (issue 26's closing note):
every file in /work/shared/data and every skeleton-family layout in tests/core/skeletons (moving,
as the export tests move them), one row each:

    file | family | joints | chains proposed (left arm; left leg), right against what the family
    tests expect | imports | plays (bake with the proposed chains gives the clip back, worst
    joint distance / figure) | screenshot (--screenshots) | lint errors/warnings | exports
    .glb .bvh .usda | three.js reads the .glb and .bvh back (worst distance / figure, random frames)

    PYTHONPATH=. python scripts/family_table.py [--screenshots DIR] [--only NAME ...]

--screenshots runs `rigedit --screenshot` on each file (under xvfb-run when there is no
display) and says whether a picture came out; a layout is screenshot from its .glb export.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rigedit.core.autochains import propose_chains
from rigedit.core.bake import bake
from rigedit.core.clip_goals import follow_kwargs
from rigedit.core.lint import lint_clip
from rigedit.core.rig import Rig
from rigedit.io.figure import figure_size, world_positions
from rigedit.io.loaded import load
from tests.core.test_autochains_families import HUMANOIDS, RENAMED, expected
from tests.io.export_checks import DATA, LAYOUTS, READER_RTOL, SEED, SHARED, Exports, bvh_name_map
from tests.js_readers import JsReaders, readers

FAMILY = {
    "CesiumMan.glb": "Khronos sample (COLLADA2GLTF)", "RiggedFigure.glb": "Khronos sample (COLLADA2GLTF)",
    "RiggedSimple.glb": "Khronos sample, 2 bones", "SimpleSkin.gltf": "Khronos sample, 2 bones",
    "threejs_SimpleSkinning.gltf": "three.js sample, 3 bones", "threejs_Xbot.glb": "Mixamo (mixamorig:, Blender export)",
    "cmu_12_01_walk.bvh": "CMU (cgspeed)", "dataset-1_kick_normal_001.bvh": "Bandai Namco",
    "dataset-1_walk-right_normal_001.bvh": "Bandai Namco", "lafan1_push1_subject2.bvh": "Ubisoft LAFAN1",
    "pybvh_bvh_test1.bvh": "pybvh fixture (Z up)",
    "families/mixamo_colon_big_hands.json": "Mixamo (mixamorig:)", "families/mixamo_underscore.json": "Mixamo (mixamorig_)",
    "families/mixamo_bare.json": "Mixamo (no prefix)", "families/cmu_daz.json": "CMU (Daz)", "families/sfu_inches.json": "SFU (inches)",
    "families/makehuman.json": "MakeHuman (twist bones)", "families/unreal_mannequin.json": "Unreal Mannequin",
    "families/vroid.json": "VRoid", "families/vrm_humanoid.json": "VRM humanoid", "families/guid_named.json": "GUID names",
    "families/unnamed.json": "unnamed joints", "families/hand_alone.json": "hand alone",
    "families/hand_with_forearm.json": "hand with forearm", "fox.json": "quadruped (Khronos Fox)",
    "robot_expressive.json": "robot (three.js RobotExpressive)",
}
FRAMES = 5


def short(joints) -> str:
    return ">".join(j if len(j) <= 30 else j[:8] + ".." + j[-4:] for j in joints)  # a GUID name shortened


def chains_cell(name: str, rig: Rig, proposals) -> str:
    """The left arm and leg proposed, and whether all four limbs and the spine are the ones the
    family tests expect (tests/core/test_autochains_families.py); other kinds by name."""
    found = {p.name: tuple(p.joints) for p in proposals}
    key = name.removeprefix("families/").removesuffix(".json")
    if key in HUMANOIDS or key in RENAMED:
        want = expected(key)
        wrong = [k for k in ("spine", "left_arm", "right_arm", "left_leg", "right_leg") if found.get(k) != want[k]]
        verdict = "right" if not wrong else "WRONG " + ",".join(wrong)
        return f"{short(found.get('left_arm', ()))}; {short(found.get('left_leg', ()))} ({verdict})"
    if "left_arm" in found and "left_leg" in found:
        return f"{short(found['left_arm'])}; {short(found['left_leg'])} (no family test)"
    return f"{', '.join(sorted(found)) if found else 'none'} (no family test)"


def rig_of(skeleton, clip, name, pose) -> tuple[Rig, list]:
    """The rig `rigedit import` makes (io/import_cli.imported_rig): chains proposed from `pose`
    (a file's first frame; a layout's rest pose, as the family tests take it), each goal
    following the clip."""
    proposals = propose_chains(skeleton, pose)
    rig = Rig(skeleton, clip=clip, name=Path(name).stem)
    for c in proposals:
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(clip))
    return rig, proposals


def screenshot(path: Path, out: Path) -> str:
    cmd = [sys.executable, "-m", "rigedit", "--screenshot", str(out), str(path)]
    if not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
        cmd = ["xvfb-run", "-a", *cmd]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timed out"
    if done.returncode == 0 and out.is_file() and out.stat().st_size > 0:
        return "ok"
    return "FAILED: " + (done.stderr.strip().splitlines() or ["no message"])[-1][:60]


def frames_of(n: int, rng) -> list[int]:
    picked = rng.choice(n - 1, size=min(FRAMES - 1, n - 1), replace=False) if n > 1 else []
    return sorted(int(f) for f in picked) + [n - 1]


def three_errors(js: JsReaders | str, exports: Exports, names: list[str], rng) -> dict[str, str]:
    """name -> 'glb e / bvh e': three.js's worst distance from rigedit's pose over its figure."""
    if isinstance(js, str):
        return {n: "no node" for n in names}
    jobs, meta = [], []
    for n in names:
        try:
            result = exports.result(n)
            frames = frames_of(result.clip.n_frames, rng)
            jobs += [{"mode": "gltf", "file": exports.file(n, ".glb"), "animation": result.animation_name, "frames": frames},
                     {"mode": "bvh", "file": exports.file(n, ".bvh"), "frames": frames}]
            meta.append((n, result, frames))
        except (ValueError, OSError) as e:
            meta.append((n, None, str(e)))
    seen = iter(js.batch(jobs))
    out = {}
    for n, result, frames in meta:
        if result is None:
            out[n] = f"export failed: {frames[:50]}"
            continue
        glb, bvh = next(seen), next(seen)
        errs = []
        if "error" in glb:
            errs.append("glb: " + glb["error"].splitlines()[0][:40])
        else:
            got = np.stack([np.array(glb["nodes"][str(k)]) for k in result.nodes], axis=1)
            errs.append(f"{np.abs(got - result.in_gltf_frame()[frames]).max() / result.size:.1e}")
        if "error" in bvh:
            errs.append("bvh: " + bvh["error"].splitlines()[0][:40])
        else:
            written = bvh_name_map(exports.file(n, ".bvh"))
            keep = [k for k, w in enumerate(bvh["names"]) if w in written]
            want, size = result.in_bvh_units([written[bvh["names"][k]] for k in keep])
            errs.append(f"{np.abs(np.array(bvh['frames'])[:, keep] - want[frames]).max() / size:.1e}")
        out[n] = " / ".join(errs)
    return out


def row(name: str, exports: Exports, shots: Path | None) -> list[str]:
    layout = name in LAYOUTS
    try:
        if layout:
            result = exports.result(name)
            skeleton, clip, imported = result.rig.skeleton, result.rig.clip, "layout"
        else:
            loaded = load(DATA / name)
            skeleton, clip, imported = loaded.skeleton, loaded.clip, "ok"
    except (ValueError, OSError) as e:
        return [name, FAMILY.get(name, "?"), "", "", f"FAILED: {str(e)[:60]}", "", "", "", "", ""]
    rig, proposals = rig_of(skeleton, clip, name, skeleton.rest_pose() if layout else clip.frame(0))
    size = figure_size(skeleton, clip)
    baked = bake(rig).clip
    plays = np.abs(world_positions(skeleton, baked) - world_positions(skeleton, clip)).max() / size
    report = lint_clip(skeleton, clip, None if not proposals else [(p.name, tuple(p.joints), p.solver) for p in proposals],
                       euler=None if layout else loaded.source.bvh_angles)
    severities = [f.severity for f in report.findings]
    kinds = sorted({f.kind for f in report.findings if f.severity in ("error", "warning")})
    lint = f"{severities.count('error')}/{severities.count('warning')}" + (f" ({', '.join(kinds)})" if kinds else "")
    written = []
    for suffix in (".glb", ".bvh", ".usda"):
        try:
            exports.file(name, suffix)
            written.append(suffix[1:])
        except (ValueError, OSError) as e:
            written.append(f"{suffix[1:]} FAILED ({str(e)[:40]})")
    shot = "-"
    if shots is not None:
        shot = screenshot(exports.file(name, ".glb") if layout else DATA / name, shots / f"{Path(name).stem}.png")
    return [name, FAMILY.get(name, "?"), str(len(skeleton)), chains_cell(name, rig, proposals), imported,
            f"{plays:.1e}", shot, lint, " ".join(written), ""]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--screenshots", metavar="DIR", help="screenshot every file into DIR (rigedit --screenshot)")
    p.add_argument("--only", nargs="*", help="these files only (names as in the table)")
    args = p.parse_args()
    names = [n for n in SHARED + LAYOUTS if not args.only or n in args.only]
    shots = Path(args.screenshots) if args.screenshots else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    exports = Exports(Path(tempfile.mkdtemp(prefix="rigedit-family-")))
    started = time.perf_counter()
    rows = [row(n, exports, shots) for n in names]
    errors = three_errors(readers(), exports, names, np.random.default_rng(SEED))
    for r in rows:
        r[-1] = errors.get(r[0], "")
    head = ["file", "family", "joints", "chains: left arm; left leg (vs the family tests)", "imports",
            "plays (bake err/fig)", "screenshot", "lint E/W", "exports", "three.js glb / bvh (err/fig)"]
    print(f"seed {SEED}; three.js at {FRAMES} random frames, the tests' bound {READER_RTOL:g} of the figure; "
          f"{time.perf_counter() - started:.0f} s")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
