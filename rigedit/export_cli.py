"""`rigedit export`: a rig's result out to glTF, USD or BVH.

    rigedit export IN -o OUT [--animation NAME] [--only-result] [--force] [-q]

IN is a preset (.json) or any file rigedit imports; OUT's suffix picks the format (.glb/.gltf,
.usd/.usda/.usdc, .bvh: io/formats.py). What is written is the rig's IK result over its clip at the clip's
frame rate (a BVH or glTF file alone: its clip as recorded), or the current pose for a rig
with no clip. A progress bar (rich) shows on a terminal while the bake runs. An existing OUT
(or the file a BVH keeps beside it) is kept unless --force (io/overwrite.py). A BVH holds one
skeleton: a rig with several (a glTF whose skins share no joint) is refused for .bvh before
the bake, naming them (io/bvh_roots.py).
"""
from __future__ import annotations

import argparse

from rigedit.cli_errors import fail
from rigedit.io import formats  # the table only: no numpy behind it


def cmd_export(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="rigedit export",
        description=f"Bake a rig's IK over its clip and write it as {formats.names(formats.EXPORTS)} (the output's suffix picks which).",
    )
    p.add_argument("input", metavar="IN", help=f"a preset (.json) or a {formats.listing(formats.IMPORTS, 'or')} file")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=formats.listing(formats.EXPORTS, "or"))
    p.add_argument("--animation", metavar="NAME", help="glTF input: the animation to use as the clip (default: the first)")
    p.add_argument("--only-result", action="store_true", help="glTF output: leave out the source file's own animations")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    from rigedit.progress import progress_bar
    from rigedit.io.export import export_rig, format_of, load_for_export
    from rigedit.io.overwrite import check_output

    try:
        format_of(args.output)
        check_output(args.output, force=args.force)
        rig, source = load_for_export(args.input, animation=args.animation)
        with progress_bar("exporting", args.quiet) as step:
            report = export_rig(rig, args.output, source, only_result=args.only_result, progress=step)
    except (ValueError, OSError) as e:  # BvhError, GltfError, PresetError, a missing USD extra: all name the file or the fix
        return fail(e, args.input, args.output)
    for w in source.warnings:
        print(f"  warning: {w}")
    print(report.summary())
    return 0
