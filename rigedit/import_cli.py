"""`rigedit import` and `rigedit bake`: mocap and glTF characters in, baked BVH out.

    rigedit import FILE.bvh|.glb|.gltf -o PRESET.json [--scale S] [--up x|y|z|-x|-y|-z|auto] [--fps N] [--skin NAME]
    rigedit bake PRESET.json --clip CLIP.bvh|.glb -o OUT.bvh [--fps N]

The clip is not copied into the preset: a mocap clip is large and already on disk. `bake`
names it with --clip and reads it against the preset's skeleton (joints by name; the unit
and up axis found by matching the file's offsets to the rig's, see io/clip_match.py), so a
clip cannot come in at another size than the rig it animates. The preset format has no
field for a clip path yet; when it has one, `import` will store the path relative to the
preset and --clip will default to it.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

# The same range the glTF reader accepts (rigedit/io/gltf.py FPS_RANGE), repeated here so
# that `rigedit import --help` loads no numpy.
FPS_RANGE = (1.0, 1000.0)
UP_CHOICES = ("x", "y", "z", "-x", "-y", "-z", "auto")


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of frames per second, got {text!r}") from None
    if not (math.isfinite(value) and FPS_RANGE[0] <= value <= FPS_RANGE[1]):
        raise argparse.ArgumentTypeError(f"must be between {FPS_RANGE[0]:g} and {FPS_RANGE[1]:g} frames per second, got {text}")
    return value


def _up(text: str) -> str:
    key = text.strip().lower().lstrip("+") if not text.strip().startswith("-") else text.strip().lower()
    if key not in UP_CHOICES:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(UP_CHOICES)}, got {text!r}")
    return key


def _named(message: str, *paths: str) -> str:
    """The message, led by the input file's name unless it already names one of `paths`."""
    return message if any(p and p in message for p in paths) else f"{paths[0]}: {message}"


def _load_character(args):
    """(skeleton, clip or None, summary line) of a BVH or glTF file."""
    ext = Path(args.file).suffix.lower()
    if ext == ".bvh":
        from rigedit.io.bvh import read_bvh

        scale = args.scale
        if scale is not None:
            try:
                scale = float(scale)
            except ValueError:
                pass  # a unit name: read_bvh knows them
        imp = read_bvh(args.file, scale=scale, up_axis=args.up or "auto")
        lines = [f"{args.file}: {imp.summary()}"] + [f"  warning: {w}" for w in imp.warnings]
        return imp.skeleton, imp.clip, lines
    if ext in (".glb", ".gltf"):
        from rigedit.io.gltf import read_gltf

        imp = read_gltf(args.file, skin=args.skin, fps=args.fps, up_axis=args.up or "auto")
        lines = [f"{args.file}: {imp.summary()}"] + [f"  warning: {w}" for w in imp.warnings]
        return imp.skeleton, imp.clip, lines
    raise ValueError(f"{args.file}: rigedit imports .bvh, .glb and .gltf files")


def cmd_import(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit import",
        description="Import a BVH or glTF character as a rig preset with IK chains proposed from its joint names.",
    )
    p.add_argument("file", metavar="FILE", help=".bvh, .glb or .gltf")
    p.add_argument("-o", "--output", required=True, metavar="PRESET.json")
    p.add_argument("--scale", help="BVH: metres per file unit, or m, cm, mm, in, cmu (default: guessed from the figure's size)")
    p.add_argument("--up", "--up-axis", dest="up", type=_up, default=None, metavar="{x,y,z,-x,-y,-z,auto}",
                   help="the file's up axis, turned to rigedit's +Y (default: auto, guessed from where head and "
                   "feet joints are and turned when that is clearly +Z or -Z; otherwise +Y, as BVH and glTF define)")
    p.add_argument("--fps", type=_fps, help=f"glTF: resample the animation at this rate, {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g} "
                   "(default: the keys' spacing, else 30)")
    p.add_argument("--skin", help="glTF: import only this skin (default: all)")
    args = p.parse_args(argv)
    from rigedit.core.autochains import propose_chains
    from rigedit.core.clip_goals import follow_kwargs
    from rigedit.core.rig import Rig
    from rigedit.io.preset import save_preset

    try:
        skeleton, clip, lines = _load_character(args)
        pose = skeleton.rest_pose() if clip is None else clip.frame(0)
        proposals = propose_chains(skeleton, pose)
        rig = Rig(skeleton, name=Path(args.file).stem)
        for c in proposals:
            rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(clip))
        save_preset(rig, args.output)
    except ValueError as e:  # BvhError, GltfError, PresetError and bad options are all ValueErrors
        print(_named(str(e), args.file, args.output), file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    if proposals:
        w = max(len(c.name) for c in proposals)
        print(f"{len(proposals)} chain{'' if len(proposals) == 1 else 's'}:")
        for c in proposals:
            print(f"  {c.name:<{w}}  {c.solver:<8}  {' > '.join(c.joints)}")
    else:
        print("no chains proposed (add them in the editor)")
    print(f"wrote {args.output}")
    if clip is not None:
        baked = f"{Path(args.output).with_suffix('')}_baked.bvh"
        print(f"the clip is not copied into the preset; bake it with: rigedit bake {args.output} --clip {args.file} -o {baked}")
    return 0


def cmd_bake(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit bake",
        description="Apply a preset's IK (weights and targets from its timeline) to every frame of a clip and write BVH.",
    )
    p.add_argument("preset", metavar="PRESET.json")
    p.add_argument("--clip", required=True, metavar="CLIP", help=".bvh, .glb or .gltf with the preset's joints")
    p.add_argument("-o", "--output", required=True, metavar="OUT.bvh")
    p.add_argument("--fps", type=_fps, help=f"glTF clip: resample at this rate, {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g} (default: the keys' spacing)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    from rigedit.core.bake import bake
    from rigedit.io.bvh import write_bvh
    from rigedit.io.clip_match import read_clip_for
    from rigedit.io.preset import load_preset

    bar = None if args.quiet else ProgressBar(sys.stderr)
    try:
        rig = load_preset(args.preset)
        matched = read_clip_for(rig.skeleton, args.clip, fps=args.fps)
        rig.clip = matched.clip
        result = bake(rig, progress=bar)
        if bar is not None:
            bar.finish()
        write_bvh(args.output, rig.skeleton, result.clip, matched.layout)
    except ValueError as e:
        if bar is not None:
            bar.finish()
        print(_named(str(e), args.clip, args.preset, args.output), file=sys.stderr)
        return 1
    except OSError as e:
        if bar is not None:
            bar.finish()
        print(f"{e.filename or args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(result.summary())
    print(f"wrote {args.output}")
    return 0


class ProgressBar:
    """`baking [##########----------]  50%` on one line, redrawn only when it changes."""

    WIDTH = 30

    def __init__(self, stream) -> None:
        self.stream = stream
        self.shown = -1

    def __call__(self, done: int, total: int) -> bool:
        percent = 100 if total <= 0 else int(100 * done / total)
        if percent != self.shown:
            self.shown = percent
            filled = self.WIDTH * percent // 100
            self.stream.write(f"\rbaking [{'#' * filled}{'-' * (self.WIDTH - filled)}] {percent:3d}%")
            self.stream.flush()
        return True

    def finish(self) -> None:
        if self.shown >= 0:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = -1
