"""`rigedit import` and `rigedit bake`: mocap, glTF and USD characters in, baked BVH out.

    rigedit import FILE.bvh|.glb|.gltf|.usd|.usda|.usdc -o PRESET.json [--scale S] [--up x|y|z|-x|-y|-z|auto] [--fps N] [--skin NAME]
                   [--animation NAME|INDEX] [--force]
    rigedit import FILE.glb --list-animations      name, duration and channels of each animation
    rigedit bake PRESET.json [--clip CLIP.bvh|.glb] -o OUT.bvh [--fps N] [--animation NAME|INDEX] [--force]

`import` saves the file's clip with the preset, in PRESET.clip.npz beside it (io/clip_file.py),
as the editor's File > Save does, so the preset opens with its animation. `bake` bakes that
stored clip, written as the imported BVH file was laid out (hierarchy, channels, units,
axes; a glTF or USD clip in metres); --clip bakes another file instead, read against the
preset's skeleton (joints by name; the unit and up axis found by matching the file's offsets
to the rig's, see io/clip_match.py), so a clip cannot come in at another size than the rig
it animates. Which files are read, and how, is io/formats.py's table. Both keep an existing
output (and the files written beside it) unless --force (io/overwrite.py).
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from rigedit.cli_errors import fail
from rigedit.io import formats  # the table only: no numpy behind it

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


def _takes(option: str) -> str:
    """'glTF' or 'BVH, USD': the formats an import option is for, as its help says."""
    return ", ".join(f.name for f in formats.IMPORTS if option in f.options)


ANIMATION_HELP = "glTF: the animation to import, by name or index from 0 (default: the first; --list-animations shows them)"


def _list_animations(path: str) -> int:
    fmt = formats.of(path, formats.IMPORTS)
    if fmt is None or not fmt.animations:
        multi = [f for f in formats.IMPORTS if f.animations]
        print(f"{path}: --list-animations reads {formats.listing(multi)} files", file=sys.stderr)
        return 1
    try:
        anims = fmt.animation_lister()(path)
    except ValueError as e:
        return fail(e, path)
    if not anims:
        print(f"{path}: no animations")
        return 0
    w = max(len(a.label) for a in anims)
    print(f"{'index':>5}  {'name':<{w}}  {'seconds':>7}  {'channels':>8}")
    for a in anims:
        print(f"{a.index:>5}  {a.label:<{w}}  {a.duration:7.3f}  {a.channels:>8}")
    return 0


def load_character(path: str, *, scale=None, up=None, fps=None, skin=None, animation=None):
    """(skeleton, clip or None, summary lines) of a file rigedit imports (io/formats.py), read
    with `rigedit import`'s options (None: the reader's default)."""
    from rigedit.io.loaded import load

    imp = load(path, scale=scale, up=up or "auto", fps=fps, skin=skin, animation=animation)
    lines = [f"{path}: {imp.summary}"] + [f"  warning: {w}" for w in imp.warnings]
    return imp.skeleton, imp.clip, lines


def imported_rig(path: str, **options):
    """(rig, proposals, summary lines): the rig `rigedit import` makes of a file it reads,
    its clip under IK chains proposed from its first frame, each goal following the clip.
    options: load_character's. ValueError (BvhError, GltfError) for a file that cannot be read."""
    from rigedit.core.autochains import propose_chains
    from rigedit.core.clip_goals import follow_kwargs
    from rigedit.core.rig import Rig

    skeleton, clip, lines = load_character(path, **options)
    pose = skeleton.rest_pose() if clip is None else clip.frame(0)
    proposals = propose_chains(skeleton, pose)
    rig = Rig(skeleton, clip=clip, name=Path(path).stem)
    for c in proposals:
        rig.add_chain(c.name, c.joints, solver=c.solver, target=c.target, pole=c.pole, **follow_kwargs(clip))
    return rig, proposals, lines


def cmd_import(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit import",
        description=f"Import a {formats.names(formats.IMPORTS)} character as a rig preset with IK chains proposed from its joint names.",
    )
    p.add_argument("file", metavar="FILE", help=formats.listing(formats.IMPORTS, "or"))
    p.add_argument("-o", "--output", metavar="PRESET.json", help="the preset to write (required unless --list-animations)")
    p.add_argument("--scale", help=f"{_takes('scale')}: metres per file unit, or m, cm, mm, in, cmu (default: BVH guesses it from the "
                   "figure's size, USD reads metersPerUnit)")
    p.add_argument("--up", "--up-axis", dest="up", type=_up, default=None, metavar="{x,y,z,-x,-y,-z,auto}",
                   help="the file's up axis, turned to rigedit's +Y (default: auto, guessed from where head and "
                   "feet joints are and turned when that is clearly +Z or -Z; otherwise +Y, as BVH and glTF define)")
    p.add_argument("--fps", type=_fps, help=f"{_takes('fps')}: resample the animation at this rate, {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g} "
                   "(default: the keys' spacing, else 30)")
    p.add_argument("--skin", help=f"{_takes('skin')}: import only this skin (default: all)")
    p.add_argument("--animation", metavar="NAME|INDEX", help=ANIMATION_HELP)
    p.add_argument("--list-animations", action="store_true", help="glTF: list the file's animations and exit")
    p.add_argument("--force", action="store_true", help="overwrite the preset (and its clip file) if they exist")
    args = p.parse_args(argv)
    if args.list_animations:
        return _list_animations(args.file)
    if not args.output:
        p.error("the following arguments are required: -o/--output")
    from rigedit.io.overwrite import check_output
    from rigedit.io.preset import save_preset

    try:
        check_output(args.output, force=args.force, fmt=formats.PRESET)
        rig, proposals, lines = imported_rig(
            args.file, scale=args.scale, up=args.up, fps=args.fps, skin=args.skin, animation=args.animation
        )
        clip = rig.clip
        save_preset(rig, args.output)
    except (ValueError, OSError) as e:  # BvhError, GltfError, PresetError and bad options are all ValueErrors
        return fail(e, args.file, args.output)
    for line in lines:
        print(line)
    if proposals:
        w = max(len(c.name) for c in proposals)
        print(f"{len(proposals)} chain{'' if len(proposals) == 1 else 's'}:")
        for c in proposals:
            print(f"  {c.name:<{w}}  {c.solver:<8}  {' > '.join(c.joints)}")
    else:
        print("no chains proposed (add them in the editor)")
    if clip is None:
        print(f"wrote {args.output} (the file has no animation)")
        return 0
    from rigedit.io.clip_file import sidecar_name

    sidecar = Path(args.output).with_name(sidecar_name(args.output))
    print(f"wrote {args.output} and its clip {sidecar} (keep the two together): {clip.describe()}")
    baked = f"{Path(args.output).with_suffix('')}_baked{formats.BVH.suffixes[0]}"
    print(f"bake it with: rigedit bake {args.output} -o {baked}")
    return 0


def cmd_bake(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit bake",
        description="Apply a preset's IK (weights and targets from its timeline) to every frame of its clip "
        "(or of the one given with --clip) and write BVH.",
    )
    p.add_argument("preset", metavar="PRESET.json")
    p.add_argument("--clip", metavar="CLIP", help=f"{formats.listing(formats.CLIPS, 'or')} with the preset's joints (default: the clip saved with the preset)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.bvh")
    p.add_argument("--fps", type=_fps, help=f"glTF clip: resample at this rate, {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g} (default: the keys' spacing)")
    p.add_argument("--animation", metavar="NAME|INDEX", help="glTF clip: " + ANIMATION_HELP.removeprefix("glTF: "))
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    from rigedit.io.clip_source import bvh_layout
    from rigedit.io.overwrite import check_output
    from rigedit.io.preset import load_preset
    from rigedit.progress import progress_bar

    try:
        if not formats.BVH.matches(args.output):
            raise ValueError(f"{args.output}: rigedit bake writes {formats.listing([formats.BVH])}")
        check_output(args.output, force=args.force)
        rig = load_preset(args.preset)
        layout = bvh_layout(rig.clip.source) if rig.clip is not None else None  # as its file was
        if args.clip is not None:
            layout = put_clip_under(rig, args.clip, fps=args.fps, animation=args.animation)
        elif args.animation is not None:
            raise ValueError("--animation picks an animation of the glTF clip given with --clip; the preset's own clip is one take")
        elif rig.clip is None:
            raise ValueError(f"{args.preset}: no clip is saved with this preset; name one with --clip CLIP")
        elif args.fps is not None:
            raise ValueError("--fps resamples a glTF clip given with --clip; the preset's own clip is baked at its own rate")
        with progress_bar("baking", args.quiet) as step:
            result = bake_to_bvh(rig, layout, args.output, progress=step)
    except (ValueError, OSError) as e:
        return fail(e, args.clip, args.preset, args.output)
    print(result.summary())
    print(f"wrote {args.output}")
    return 0


def put_clip_under(rig, path: str, *, fps=None, animation=None):
    """Replace the rig's clip with the one in `path` (a clip format of io/formats.py), read against the rig's
    skeleton (io/clip_match.py), as `rigedit bake --clip` does; returns the BVH layout to
    write the bake in. ValueError naming the file when it does not fit the skeleton."""
    from rigedit.io.clip_match import read_clip_for

    formats.check_animation(path, animation)
    matched = read_clip_for(rig.skeleton, path, fps=fps, animation=0 if animation is None else animation)
    rig.clip = matched.clip
    return matched.layout


def bake_to_bvh(rig, layout, output: str, *, progress=None):
    """Bake the rig's IK over its clip (core/bake.py) and write the result to `output` as BVH
    in `layout` (atomically); returns the BakeResult."""
    from rigedit.core.bake import bake
    from rigedit.io.bvh import write_bvh

    formats.BVH.check_fits(output, rig.skeleton)  # before the bake's work
    result = bake(rig, progress=progress)
    write_bvh(output, rig.skeleton, result.clip, layout)
    return result
