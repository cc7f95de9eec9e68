"""`rigedit retarget`: a clip from one skeleton onto another, feet locked on their contacts.

    rigedit retarget SRC --onto PRESET -o OUT [--animation NAME] [--force]

SRC is a clip in any format io/formats.py reads clips from (.bvh, .glb/.gltf, .usd*); PRESET
a rig preset (.json) or a bundled preset's name (humanoid); OUT's suffix picks what is
written: .bvh, .glb/.gltf, .usd/.usda/.usdc (the exporters), or .json, the preset with the
clip saved beside it (as `rigedit import` writes one). `retarget_file` is the same thing
as a function (`rigedit batch retarget` calls it).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

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

    def summary(self) -> str:
        return (f"wrote {self.output}: {self.frames} frames at {self.frame_rate:.4g} fps, "
                f"{len(self.chains)} chains mapped ({', '.join(self.chains)}), root motion x{self.leg_ratio:.3f} "
                f"(leg ratio), {self.contacts} foot contacts locked, max foot slide {1000 * self.max_foot_slide:.2f} mm")


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


def retarget_file(src, onto, out, *, animation=None, force=False) -> RetargetSummary:
    """Retarget the clip in `src` (.bvh/.glb/.gltf/.usd*; `animation`: a glTF animation's name or
    index) onto the preset `onto` (a path, or a bundled preset's name) and write `out`
    atomically (.bvh, .glb/.gltf, .usd*, or .json: the preset with its clip). An existing
    `out` is kept unless `force`. RetargetError (a ValueError) naming the file and the
    problem on bad input."""
    from rigedit.core.retarget import RetargetError, retarget_clip
    from rigedit.core.retarget.onto import play_on
    from rigedit.core.rig import Rig
    from rigedit.import_cli import _named
    from rigedit.io.export import export_rig, preset_source
    from rigedit.io.preset import save_preset
    from rigedit.lint_cli import load_clip

    src, onto, out = os.fspath(src), os.fspath(onto), os.fspath(out)
    suffix = Path(out).suffix.lower()
    as_preset = formats.PRESET.matches(out)
    try:
        if not as_preset and formats.of(out, formats.EXPORTS) is None:
            written = formats.suffixes((formats.PRESET,) + formats.EXPORTS)
            raise ValueError(f"{out}: cannot tell what to write from {suffix or 'no suffix'!r}; use one of {', '.join(written)}")
        if not Path(out).parent.is_dir():
            raise ValueError(f"{out}: no such folder {str(Path(out).parent)!r} to write into")
        if os.path.exists(out) and not force:
            raise ValueError(f"{out}: already exists (force=True, or --force, overwrites it)")
        loaded = load_clip(src, None if animation is None else str(animation), command="retarget")
        rig, target_path = onto_preset(onto)
        own = rig.clip.frame(0) if rig.clip is not None else None  # a rest pose may be no pose (Bandai's)
        result = retarget_clip(loaded.skeleton, loaded.clip, rig.skeleton, target_pose=own, source_label=src, target_label=target_path)
        from rigedit.core.clip import ClipSource

        clip = result.clip
        clip.source = ClipSource(Path(src).name, animation=None if animation is None else str(animation))
        warnings: list[str] = []
        if as_preset:
            play_on(rig, clip)
            save_preset(rig, out)
        else:
            source = preset_source(rig, target_path)
            warnings = list(source.warnings)
            export_rig(Rig(rig.skeleton, clip=clip, name=rig.name), out, source)
    except RetargetError:
        raise
    except ValueError as e:  # BvhError, GltfError, PresetError: each names its file and field
        raise RetargetError(_named(str(e), src, onto, out)) from e
    return RetargetSummary(src, target_path, out, clip.n_frames, clip.frame_rate, result.max_slide, list(result.chains),
                           result.leg_ratio, sum(len(c) for c in result.contacts.values()), warnings)


def cmd_retarget(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit retarget",
        description=f"Retarget a {formats.names(formats.CLIPS)} clip onto another skeleton (a preset): joints matched by role (hips, "
        "spine, head, legs, arms), rest poses aligned, the root's motion scaled by the leg-length ratio, hands and "
        "feet solved onto the source's goals and feet locked on their contacts.",
    )
    p.add_argument("source", metavar="SRC", help=f"a {formats.listing(formats.CLIPS, 'or')} clip")
    p.add_argument("--onto", required=True, metavar="PRESET", help="a rig preset (.json) or a bundled preset's name (humanoid)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help=f"{formats.listing(formats.EXPORTS, 'or')}, or .json (the preset with the clip, saved beside it)")
    p.add_argument("--animation", metavar="NAME", help="glTF source: the animation to retarget, by name or index (default: the first)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    args = p.parse_args(argv)
    try:
        summary = retarget_file(args.source, args.onto, args.output, animation=args.animation, force=args.force)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{e.filename or args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    for w in summary.warnings:
        print(f"  warning: {w}")
    print(summary.summary())
    return 0
