"""`rigedit lint`: find (and with --fix, repair) what breaks a mocap clip.

    rigedit lint CLIP [--rig PRESET] [--animation NAME] [--json] [--fix -o OUT [--force]]

CLIP is a .bvh, .glb, .gltf, .usd, .usda or .usdc file (io/formats.py's clip formats). The
chains are the preset's (--rig, which also brings its joint limits) or, without one,
proposed from the clip's first frame as `rigedit import` does.
Findings: pole_flip, knee_pop, foot_slide, limit, discontinuity (rigedit/core/lint). The exit
status is 0 whatever was found (findings are a report, not a failure); 1 when the input
cannot be read or the output written, with a message naming the file.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from rigedit.cli_errors import fail
from rigedit.io import formats  # the table only: no numpy behind it

EPILOG = """\
kinds:
  pole_flip      a knee or elbow on the other side of its limb for up to 1 s
  knee_pop       a limb snapping to or from straight (8+ degrees off its running median)
  foot_slide     a planted foot moving 3+ % of the leg over the ground during a contact
  limit          a joint past the --rig preset's limit by 1+ degree
  discontinuity  rotation or root jumps far past the clip's own frame-to-frame change, Euler
                 wraps, a reference pose on frame 0 (reported once, as info)
contacts: a foot plants below 5 % of the leg above its floor and 0.25 legs/s, and lifts
above 8 % or 0.5 legs/s (speeds over 1/30 s, so any frame rate); at least 0.1 s long.
--fix re-solves joints turned away and back, pole flips, knee pops and foot slides (the
table core/lint/fix.py's REPAIRS), writes Euler curves unwrapped, and
leaves every other frame as it was; the JSON's "fix" says what a second lint still finds."""


def cmd_lint(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit lint",
        description="Find pole flips, knee pops, foot slides, joints past their limits and discontinuities in a "
        f"{formats.names(formats.CLIPS)} clip, per chain or joint with their frame span and severity. Exit status 0 even when "
        "there are findings; 1 when a file cannot be read or written.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("clip", metavar="CLIP", help=f"a {formats.listing(formats.CLIPS, 'or')} file")
    p.add_argument("--rig", metavar="PRESET", help="a rig preset (.json) whose chains and limits to use (default: chains proposed from the clip)")
    p.add_argument("--animation", metavar="NAME", help="glTF: the animation to lint, by name or index (default: the first)")
    p.add_argument("--json", action="store_true", help='print {"findings": [...]} as JSON instead of a table')
    p.add_argument("--fix", action="store_true", help="re-solve the flagged spans and write the repaired clip to -o")
    p.add_argument("-o", "--output", metavar="OUT", help="with --fix: where to write the repaired clip (the input's format)")
    p.add_argument("--force", action="store_true", help="with --fix: overwrite OUT if it exists")
    args = p.parse_args(argv)
    if args.fix and not args.output:
        p.error("--fix needs -o OUT")
    if args.output and not args.fix:
        p.error("-o OUT is for --fix")
    try:
        linted = lint_file(args.clip, rig=args.rig, animation=args.animation, fix_output=args.output if args.fix else None,
                           force=args.force)
    except (ValueError, OSError) as e:
        return fail(e, args.clip, args.rig, args.output)
    report, fixed, out = linted.report, linted.fixed, linted.to_dict()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print_table(args.clip, report)
    if fixed is not None:
        n = len(fixed.repaired)
        print(f"repaired {n} finding{'' if n == 1 else 's'}, {len(fixed.remaining)} left as they were "
              f"(frames changed: {fixed.changed_description()}); wrote {args.output}")
        for f in fixed.introduced:
            print(f"  new after the repair: {f.kind} {f.chain or '-'} {f.joint or '-'} {f.frame_start}-{f.frame_end}: {f.detail}")
    return 0


@dataclass
class Linted:
    report: object  # core.lint.LintReport
    fixed: object = None  # core.lint.fix.FixResult, with --fix
    fix_output: str | None = None

    def to_dict(self) -> dict:
        """What `rigedit lint --json` prints: the findings, and with --fix what the repair did."""
        out = self.report.to_dict()
        if self.fixed is not None:
            # The findings are the input's; what the repair did rides alongside.
            out["fix"] = {
                "output": self.fix_output,
                "repaired": [f.to_dict() for f in self.fixed.repaired],
                "remaining": [f.to_dict() for f in self.fixed.remaining],
                "introduced": [f.to_dict() for f in self.fixed.introduced],
                "frames_changed": self.fixed.changed_description(),
            }
        return out


def lint_file(path: str, *, rig: str | None = None, animation: str | None = None, fix_output: str | None = None,
              force: bool = False) -> Linted:
    """Lint the clip in `path` (chains and limits from the preset `rig`, else proposed); with
    `fix_output`, repair it and write the repair there in the input's format (an existing
    file kept unless `force`). ValueError or OSError naming the file when something cannot be
    read or written."""
    from rigedit.core.lint import lint_clip
    from rigedit.io.overwrite import check_output

    if fix_output is not None:
        check_output(fix_output, force=force)
    loaded = load_clip(path, animation)
    chains, limits = rig_chains(rig, loaded.skeleton) if rig else (None, None)
    report = lint_clip(loaded.skeleton, loaded.clip, chains, limits=limits, euler=loaded.source.bvh_angles)
    if fix_output is None:
        return Linted(report)
    if not loaded.format.matches(fix_output):
        raise ValueError(f"{fix_output}: the repaired clip is written in the input's format ({Path(path).suffix})")
    from rigedit.core.lint.fix import fix_clip

    loaded.format.check_fits(fix_output, loaded.skeleton)
    fixed = fix_clip(report)
    write_clip(loaded, fixed.clip, fix_output)
    return Linted(report, fixed, fix_output)


def load_clip(path: str, animation: str | None = None, *, command: str = "lint"):
    """The file's skeleton and clip as an io.loaded.Loaded (its first animation, or
    `animation`, a name or index); ValueError naming the file otherwise (and `command`, the
    verb the message says the file is for)."""
    from rigedit.io.loaded import load

    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    formats.for_clip(path, command)
    loaded = load(path, animation=animation)
    if loaded.clip is None:
        raise ValueError(f"{path}: the file has no frames to {command}")
    return loaded


def rig_chains(preset: str, skeleton):
    """(name, joints, solver) of a preset's chains, and their limits, checked against the clip's skeleton."""
    from rigedit.core.lint.of_rig import rig_chains as chains_of
    from rigedit.io.preset import load_preset

    rig = load_preset(preset)
    for name in rig.chain_names:
        missing = [j for j in rig.chain(name).joints if j not in skeleton.names]
        if missing:
            raise ValueError(f"{preset}: chain {name!r} has joints the clip does not: {', '.join(missing)}")
    return chains_of(rig)


def write_clip(loaded, clip, out: str) -> None:
    """Write the repaired `clip` to `out` in the input's format, keeping what the input had."""
    import numpy as np

    source = loaded.source
    if source.bvh_angles:  # the source's angles, unwrapped, keep its channels' own branch without its wraps
        unwrapped = {k: np.degrees(np.unwrap(np.radians(v), axis=0)) for k, v in source.bvh_angles.items()}
        source = replace(source, bvh_angles=unwrapped)
    name = Path(loaded.path).stem
    loaded.format.writer()(out, loaded.skeleton, clip, source, name=name, animation_name=f"{name} (lint fix)")


def print_table(path: str, report) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # a pipe or a log: wide enough that each finding stays on a line or two
        console = Console(width=160)
    m = report.motion
    head = f"{path}: {m.n_frames} frames at {m.fps:.4g} fps, {len(m.chains)} chains, leg {m.leg_length:.2f} m"
    if not report.findings:
        console.print(f"{head}: no findings", highlight=False)
        return
    table = Table(title=head, title_justify="left", highlight=False)
    for col in ("kind", "chain", "joint", "frames", "severity", "detail"):
        table.add_column(col, overflow="fold")
    for f in report.findings:
        table.add_row(f.kind, f.chain or "-", f.joint or "-", f"{f.frame_start}-{f.frame_end}", f.severity, f.detail)
    console.print(table)
