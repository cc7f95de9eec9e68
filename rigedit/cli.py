"""The `rigedit` command: headless subcommands, and the editor for anything else.

    rigedit check FILE...                        validate presets (exit 1 if any is bad, saying why)
    rigedit solve FILE --target CHAIN=X,Y,Z ...  solve one frame, print joint world positions
    rigedit schema                               print the preset JSON Schema
    rigedit import FILE -o PRESET.json           a rig preset with auto IK chains from a BVH, glTF or USD file (rigedit/import_cli.py)
    rigedit bake PRESET.json [--clip CLIP] -o OUT.bvh  bake the preset's IK over its clip (or CLIP) into BVH
    rigedit export IN -o OUT [--animation NAME]   a rig's result as .glb/.gltf, .usd/.usda/.usdc or .bvh (rigedit/export_cli.py)
    rigedit lint CLIP [--rig PRESET] [--json] [--fix -o OUT]  find and fix pole flips, pops, slides... (rigedit/lint_cli.py)
    rigedit retarget SRC --onto PRESET -o OUT   a clip onto another skeleton, feet locked (rigedit/retarget_cli.py)
    rigedit batch {bake,lint,retarget} DIR -o OUTDIR [--workers N | --scheduler ADDRESS]  a folder of clips (rigedit/batch_cli.py)
    rigedit report INPUT... -o R.html [--json F] [--compare A B]  motion quality of clips (rigedit/report_cli.py)
    rigedit [FILE] [editor options]              open the editor

To add a subcommand, write `def cmd_NAME(argv: list[str]) -> int` (here or in its own module)
and add one line to COMMANDS; `lazy("module", "function")` defers a heavy import until used.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import Callable, Sequence

Command = Callable[[list[str]], int]


def lazy(module: str, function: str) -> Command:
    def run(argv: list[str]) -> int:
        return getattr(importlib.import_module(module), function)(argv)

    return run


def cmd_check(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="rigedit check", description="Validate rig presets.")
    p.add_argument("files", nargs="+", metavar="FILE")
    args = p.parse_args(argv)
    from rigedit.io.preset import PresetError, load_preset

    failed = 0
    for f in args.files:
        try:
            rig = load_preset(f)
        except PresetError as e:
            print(e, file=sys.stderr)
            failed += 1
            continue
        n = len(rig.chain_names)
        clip = "" if rig.clip is None else f"; clip: {rig.clip.describe()}"
        print(f"{f}: ok ({len(rig.skeleton)} joints, {n} chain{'' if n == 1 else 's'}{clip})")
    return 1 if failed else 0


def cmd_solve(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit solve",
        description="Load a preset, move chain targets and poles, solve one frame, print joint world positions (metres).",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--target", action="append", default=[], type=_assignment, metavar="CHAIN=X,Y,Z")
    p.add_argument("--pole", action="append", default=[], type=_assignment, metavar="CHAIN=X,Y,Z|none")
    p.add_argument("--out", metavar="FILE", help="save the rig with its new targets and poles")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    from rigedit.io.preset import PresetError, load_preset, save_preset

    try:
        rig = load_preset(args.file)
        for option, pairs in (("target", args.target), ("pole", args.pole)):
            for chain, value in pairs:
                if value is None and option == "target":
                    raise ValueError(f"--target {chain}=none: a target cannot be removed")
                ch = rig.chain(chain)
                setattr(ch, option, value)
        reports = rig.solve()
        if args.out:
            save_preset(rig, args.out)
    except (PresetError, ValueError) as e:
        print(e, file=sys.stderr)
        return 1
    except KeyError as e:
        print(f"{args.file}: {e.args[0]}", file=sys.stderr)
        return 1
    positions = rig.world_positions()
    names = rig.skeleton.names
    if args.json:
        out = {
            "chains": {n: {"error": r.error, "iterations": r.iterations, "reached": r.reached} for n, r in reports.items()},
            "joints": {n: positions[i].tolist() for i, n in enumerate(names)},
        }
        print(json.dumps(out, indent=2))
        return 0
    width = max(len(n) for n in names + ["joint"])
    print(f"{'joint':<{width}}  {'x':>9}  {'y':>9}  {'z':>9}")
    for i, n in enumerate(names):
        x, y, z = positions[i]
        print(f"{n:<{width}}  {x:9.4f}  {y:9.4f}  {z:9.4f}")
    if reports:
        cw = max(len(n) for n in list(reports) + ["chain"])
        print()
        print(f"{'chain':<{cw}}  {'reached':>7}  {'error_m':>9}  {'iterations':>10}")
        for n, r in reports.items():
            print(f"{n:<{cw}}  {'yes' if r.reached else 'no':>7}  {r.error:9.2e}  {r.iterations:>10}")
    return 0


def _assignment(text: str) -> tuple[str, tuple[float, float, float] | None]:
    """CHAIN=X,Y,Z (or CHAIN=none) -> (chain, (x, y, z) or None)."""
    chain, sep, value = text.partition("=")
    if not sep or not chain:
        raise argparse.ArgumentTypeError(f"expected CHAIN=X,Y,Z, got {text!r}")
    if value.strip().lower() == "none":
        return chain, None
    try:
        xyz = tuple(float(v) for v in value.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected three numbers X,Y,Z after '{chain}=', got {value!r}") from None
    if len(xyz) != 3:
        raise argparse.ArgumentTypeError(f"expected three numbers X,Y,Z after '{chain}=', got {len(xyz)}")
    return chain, xyz  # type: ignore[return-value]


def cmd_schema(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="rigedit schema", description="Print the preset JSON Schema.").parse_args(argv)
    from rigedit.io.preset import preset_schema

    print(json.dumps(preset_schema(), indent=2))
    return 0


COMMANDS: dict[str, tuple[str, Command]] = {
    "check": ("validate presets", cmd_check),
    "solve": ("solve one frame headless and print joint positions", cmd_solve),
    "schema": ("print the preset JSON Schema", cmd_schema),
    "import": ("make a rig preset from a BVH, glTF or USD file, with IK chains proposed", lazy("rigedit.import_cli", "cmd_import")),
    "bake": ("bake a preset's IK over its clip (or a BVH/glTF clip) and write BVH", lazy("rigedit.import_cli", "cmd_bake")),
    "export": ("write a rig's result as glTF, USD or BVH", lazy("rigedit.export_cli", "cmd_export")),
    "lint": ("find (and --fix) pole flips, knee pops, foot slides, limits and jumps in a clip", lazy("rigedit.lint_cli", "cmd_lint")),
    "retarget": ("a clip onto another skeleton, feet locked on their contacts", lazy("rigedit.retarget_cli", "cmd_retarget")),
    "batch": ("bake, lint or retarget a folder of clips on all cores or a Dask cluster", lazy("rigedit.batch_cli", "cmd_batch")),
    "report": ("measure clips' motion quality into an offline HTML report and JSON (--compare A B)", lazy("rigedit.report_cli", "cmd_report")),
}


def _overview() -> str:
    lines = ["usage: rigedit COMMAND [ARGS]   or   rigedit [FILE] [editor options]", "", "commands:"]
    w = max(map(len, COMMANDS))
    lines += [f"  {name:<{w}}  {text}" for name, (text, _) in COMMANDS.items()]
    lines += ["", "Anything else opens the editor (rigedit FILE.json opens that preset)."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            return COMMANDS[argv[0]][1](argv[1:])
        if argv in (["-h"], ["--help"], ["help"]):
            print(_overview())
            return 0
        return _gui(argv)
    except SystemExit as e:  # argparse's --help and usage errors
        return e.code if isinstance(e.code, int) else 1
    except BrokenPipeError:
        # The reader went away (`rigedit schema | head`): not an error. Point stdout at
        # devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _gui(argv: list[str]) -> int:
    try:
        from rigedit.app.launch import main as gui_main
    except ImportError as e:
        print(f"rigedit: the editor cannot start: {e}", file=sys.stderr)
        return 1
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
