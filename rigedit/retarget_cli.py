"""`rigedit retarget`: a clip from one skeleton onto another, feet locked on their contacts.

    rigedit retarget SRC --onto PRESET|CHARACTER.glb -o OUT [--animation NAME] [--force]
        [--root scaled|kept|in_place] [--no-foot-lock] [--no-ground] [--no-arm-space] [--only-result]

SRC is a clip in any format io/formats.py reads clips from (.bvh, .glb/.gltf, .usd*); the
target a rig preset (.json), a bundled preset's name (humanoid) or a glTF character
(.glb/.gltf: its skin's skeleton in its rest pose); OUT's suffix picks what is written: .bvh,
.glb/.gltf, .usd/.usda/.usdc (the exporters), or .json, the preset with the clip saved beside
it (as `rigedit import` writes one). Onto a glTF character, a .glb/.gltf or USD output carries
the character's document (meshes, skins, materials) with the retarget as its first animation,
so it plays skinned. The options are core/retarget/options.py's, their flags made from that
list by rigedit/retarget_flags.py (as `rigedit batch retarget`'s are). `retarget_file` is the same
thing as a function (`rigedit batch retarget` calls it).
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

from rigedit.cli_errors import fail
from rigedit.io import formats  # the table only: no numpy behind it


@dataclass
class RetargetSummary:
    source: str
    target: str
    output: str
    frames: int
    frame_rate: float
    max_foot_slide: float  # metres: the furthest a foot strays over the ground during a contact
    chains: list[str]  # roles mapped from source to target
    leg_ratio: float
    contacts: int  # foot contacts locked
    warnings: list[str] = field(default_factory=list)
    root: str = "scaled"  # the root motion option (core/retarget/options.py)

    def summary(self) -> str:
        root = {"scaled": f"root motion x{self.leg_ratio:.3f} (leg ratio)", "kept": "root motion kept as is",
                "in_place": "root motion in place"}[self.root]
        return (f"wrote {self.output}: {self.frames} frames at {self.frame_rate:.4g} fps, "
                f"{len(self.chains)} chains mapped ({', '.join(self.chains)}), {root}, "
                f"{self.contacts} foot contacts locked, max foot slide {1000 * self.max_foot_slide:.2f} mm")


def onto_preset(onto: str):
    """The preset at `onto`, or the bundled preset of that name; and its path."""
    from rigedit.core.rig import BUNDLED_PRESETS
    from rigedit.io.preset import load_preset

    path = Path(onto)
    if not path.is_file() and not path.suffix:
        bundled = BUNDLED_PRESETS / f"{onto}{formats.PRESET.suffixes[0]}"
        if bundled.is_file():
            path = bundled
        else:
            names = sorted(p.stem for p in BUNDLED_PRESETS.iterdir() if formats.PRESET.matches(p))
            raise ValueError(f"{onto}: no such preset file, nor a bundled preset of that name (bundled: {', '.join(names)})")
    if not path.is_file():
        raise ValueError(f"{onto}: no such preset file")
    return load_preset(path), str(path)


def read_target(onto: str):
    """(skeleton, its reference pose or None, path, rig preset or None, ExportSource or None)
    of the target: a preset, a bundled preset's name, or a glTF character."""
    from rigedit.io.loaded import ExportSource, read_gltf_source

    if formats.GLTF.matches(onto):
        if not Path(onto).is_file():
            raise ValueError(f"{onto}: no such glTF character")
        imp, gltf = read_gltf_source(onto, animation=None)
        return imp.skeleton, None, onto, None, ExportSource(onto, gltf=gltf, warnings=list(imp.warnings))
    rig, path = onto_preset(onto)
    own = rig.clip.frame(0) if rig.clip is not None else None  # a rest pose may be no pose (Bandai's)
    return rig.skeleton, own, path, rig, None


def retarget_file(src, onto, out, *, animation=None, force=False, only_result=False, **options) -> RetargetSummary:
    """Retarget the clip in `src` (.bvh/.glb/.gltf/.usd*; `animation`: a glTF animation's name or
    index) onto `onto` (a preset path, a bundled preset's name, or a .glb/.gltf character)
    and write `out` atomically (.bvh, .glb/.gltf, .usd*, or .json: the preset with its clip;
    a glTF character's output keeps its meshes, and its own animations after the retarget's
    unless `only_result`). options: RetargetOptions' fields by name (core/retarget/options.py).
    An existing `out` is kept unless `force`. RetargetError (a ValueError) naming the file
    and the problem on bad input, an option included."""
    from rigedit.core.clip import ClipSource
    from rigedit.core.retarget import RetargetError, RetargetOptions, retarget_clip
    from rigedit.core.retarget.onto import play_on
    from rigedit.core.rig import Rig
    from rigedit.cli_errors import named
    from rigedit.io.export import export_rig, preset_source
    from rigedit.io.overwrite import check_output
    from rigedit.io.preset import save_preset
    from rigedit.lint_cli import load_clip

    src, onto, out = os.fspath(src), os.fspath(onto), os.fspath(out)
    suffix = Path(out).suffix.lower()
    as_preset = formats.PRESET.matches(out)
    options = RetargetOptions.of(**options)
    try:
        if not as_preset and formats.of(out, formats.EXPORTS) is None:
            written = formats.suffixes((formats.PRESET,) + formats.EXPORTS)
            raise ValueError(f"{out}: cannot tell what to write from {suffix or 'no suffix'!r}; use one of {', '.join(written)}")
        check_output(out, force=force, fmt=formats.PRESET if as_preset else None)
        loaded = load_clip(src, None if animation is None else str(animation), command="retarget")
        skeleton, own, target_path, rig, source = read_target(onto)
        if not as_preset:
            formats.for_export(out).check_fits(out, skeleton)  # before retargeting (a BVH holds one skeleton)
        if rig is None and as_preset:
            raise ValueError(f"{out}: a preset is written onto a preset; onto the glTF character {onto}, write "
                             f".glb/.gltf (its mesh kept), .usd* or .bvh (or `rigedit import` it to a preset first)")
        if only_result and source is None:
            raise ValueError(f"{onto}: only_result (--only-result) drops a glTF character's own animations; "
                             "a preset has none to drop")
        result = retarget_clip(loaded.skeleton, loaded.clip, skeleton, target_pose=own, source_label=src,
                               target_label=target_path, **options.as_dict())
        clip = result.clip
        clip.source = ClipSource(Path(src).name, animation=None if animation is None else str(animation))
        if rig is None:
            export_rig(Rig(skeleton, clip=clip, name=Path(onto).stem), out, source, only_result=only_result)
            warnings = list(source.warnings)
        elif as_preset:
            play_on(rig, clip)
            save_preset(rig, out)
            warnings = []
        else:
            source = preset_source(rig, target_path)
            warnings = list(source.warnings)
            export_rig(Rig(rig.skeleton, clip=clip, name=rig.name), out, source)
    except RetargetError:
        raise
    except ValueError as e:  # BvhError, GltfError, PresetError: each names its file and field
        raise RetargetError(named(str(e), src, onto, out)) from e
    return RetargetSummary(src, target_path, out, clip.n_frames, clip.frame_rate, result.max_slide, list(result.chains),
                           result.leg_ratio, sum(len(c) for c in result.contacts.values()), warnings, options.root)


def cmd_retarget(argv: list[str]) -> int:
    from rigedit.retarget_flags import add_file_flags, add_option_flags, file_values, option_values

    p = argparse.ArgumentParser(
        prog="rigedit retarget",
        description=f"Retarget a {formats.names(formats.CLIPS)} clip onto another skeleton (a preset): joints matched by role (hips, "
        "spine, head, legs, arms), rest poses aligned, the root's motion scaled by the leg-length ratio, hands and "
        "feet solved onto the source's goals and feet locked on their contacts.",
    )
    p.add_argument("source", metavar="SRC", help=f"a {formats.listing(formats.CLIPS, 'or')} clip")
    p.add_argument("--onto", required=True, metavar="TARGET",
                   help="a rig preset (.json), a bundled preset's name (humanoid), or a glTF character (.glb/.gltf)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help=f"{formats.listing(formats.EXPORTS, 'or')}, or .json (the preset with the clip, saved beside it)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    add_file_flags(p)
    add_option_flags(p)
    args = p.parse_args(argv)
    try:
        summary = retarget_file(args.source, args.onto, args.output, force=args.force, **file_values(args), **option_values(args))
    except (ValueError, OSError) as e:  # a ValueError names its file already (retarget_file)
        return fail(e, args.output)
    for w in summary.warnings:
        print(f"  warning: {w}")
    print(summary.summary())
    return 0
