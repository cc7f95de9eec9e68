"""Start the editor.

    rigedit [FILE]                                   open the editor (on FILE, or the humanoid)
    rigedit FILE.glb --animation NAME|INDEX          import that animation of a glTF (default: the first)
    rigedit --screenshot OUT.png [FILE] [--size WxH] render once the solver has answered, save, exit
    rigedit --demo OUT.png [--size WxH]              drag the humanoid's left-hand target, save, exit
    --view mesh|bones|both                           what the viewport shows (default: as last chosen)
"""
from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import Sequence

from rigedit.io import formats  # the table only: no numpy behind it

from .qt_setup import prepare_qt

DEMO_CHAIN = "left_arm"
DEMO_GOAL = (0.55, 1.45, 0.35)  # metres: reaching forward and up, well inside the arm's reach


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, e.g. 1280x800, got {text!r}") from None
    if w < 200 or h < 150:
        raise argparse.ArgumentTypeError(f"window size {w}x{h} is too small (at least 200x150)")
    return w, h


def _multi() -> str:
    """'.glb or .gltf': the files that may hold several animations."""
    return formats.listing([f for f in formats.IMPORTS if f.animations], "or")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="rigedit", description="Pose character rigs with inverse kinematics.")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help=f"a rig preset (.json), or a {formats.listing(formats.IMPORTS, 'or')} file to import; default: the bundled humanoid")
    p.add_argument("--screenshot", metavar="OUT.png", help="save a screenshot of the window and exit")
    p.add_argument("--demo", metavar="OUT.png", help="drag the left-hand target, save a screenshot and exit")
    p.add_argument("--animation", metavar="NAME|INDEX",
                   help=f"when FILE is a {_multi()} file to import: its animation, by name or index from 0 (default: the first)")
    p.add_argument("--size", type=_size, default=(1280, 800), metavar="WxH", help="window size (default 1280x800)")
    p.add_argument("--view", choices=("mesh", "bones", "both"),
                   help="show the skinned mesh, the bones or both (default: as View > Mesh / Bones / Both was last left)")
    args = p.parse_args(list(argv))
    fmt = formats.of(args.file, formats.IMPORTS) if args.file else None
    if args.animation is not None and not (fmt is not None and fmt.animations):
        p.error(f"--animation picks the animation of a {_multi()} FILE to import")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    prepare_qt()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "rigedit"])
    app.setApplicationName("rigedit")
    from rigedit import PresetError, Rig

    from .main_window import MainWindow

    capturing = bool(args.screenshot or args.demo)
    if args.file and formats.importable(args.file):
        return _open_imported(app, args, capturing)
    rig = None
    if args.file:
        try:
            rig = Rig.load(args.file)
        except (PresetError, OSError) as e:
            if args.screenshot or args.demo:
                print(f"rigedit: {e}", file=sys.stderr)
                return 1
            rig = None  # the window opens on the humanoid and shows the error in a dialog
    window = MainWindow(rig, args.file if rig is not None else None, keep_layout=not capturing)
    if args.screenshot or args.demo:
        return _capture(app, window, args)
    _apply_view(window, args)
    window.show()
    # Everything built so far lives as long as the window: keep the cyclic GC from walking it
    # again and again while the user drags (full collections showed up in drag profiles).
    gc.freeze()
    if args.file and rig is None:
        window.open_preset(args.file)  # shows the PresetError dialog; the humanoid stays
    window.offer_recovery()
    return app.exec()


def _open_imported(app, args, capturing: bool) -> int:
    """`rigedit walk.bvh` imports, as File > Import does (asking about the proposed chains
    when a person is there to answer)."""
    from .main_window import MainWindow

    window = MainWindow(None, None, keep_layout=not capturing)
    if capturing:
        window.importer.show_errors = False
        window.importer.remember = False  # a screenshot leaves Open Recent as it was
        if not window.importer.import_file(args.file, ask=False, animation=args.animation):
            print(f"rigedit: {window.importer.last_error}", file=sys.stderr)
            return 1
        if window.importer.last_mesh_note:  # e.g. a Draco mesh without DracoPy: the picture shows bones only
            print(f"rigedit: {window.importer.last_mesh_note}", file=sys.stderr)
        return _capture(app, window, args)
    _apply_view(window, args)
    window.show()
    gc.freeze()
    window.importer.import_file(args.file, animation=args.animation)  # a failure shows a dialog; the humanoid stays
    return app.exec()


def _apply_view(window, args) -> None:
    if args.view:
        from .menus import set_view_mode

        set_view_mode(window, args.view, remember=False)  # for this run; the menu's choice is kept


def _capture(app, window, args) -> int:
    from . import capture

    _apply_view(window, args)
    window.resize(*args.size)
    window.fit_docks()
    window.show()
    window.raise_()
    if not capture.wait_for_pose(window):
        print("rigedit: the solver did not hand a pose back in time", file=sys.stderr)
        window.close()
        return 1
    out = args.screenshot or args.demo
    if args.demo:
        if DEMO_CHAIN not in window.rig.chain_names:
            print(f"rigedit: --demo needs a rig with a {DEMO_CHAIN!r} chain (the humanoid)", file=sys.stderr)
            window.close()
            return 1
        vp = window.viewport
        start = vp.world_to_screen(window.rig.chain(DEMO_CHAIN).target)
        end = vp.world_to_screen(DEMO_GOAL)
        capture.drag_handle(window, start, end, seconds=1.0)
        capture.wait_for_pose(window)
        capture.pump(0.2)
    path, colours = capture.grab(window, out)
    window.document.mark_saved()  # nothing to ask about on the way out
    window.close()
    if colours < capture.MIN_COLOURS:
        print(f"rigedit: the viewport looks blank in {path} ({colours} colours)", file=sys.stderr)
        return 2
    print(Path(path).resolve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
