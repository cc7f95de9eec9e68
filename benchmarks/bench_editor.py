"""Editor frame rate while a target is dragged, and whether the solver keeps up.

For each bundled rig (the biggest first) a scripted drag sends real mouse events to the
viewport at a steady rate, moving a chain's target around a circle on screen for a few
seconds, as a hand on the mouse would. It reports the viewport's frame rate (paintGL calls
per second) at the window size given, and the solver thread's goals: posted (one per mouse
move), solved, and dropped (replaced by newer goals before the worker took them, which is by
design: only the newest matters).

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python benchmarks/bench_editor.py
    (run without a display it re-runs itself under xvfb-run)

With --mesh FILE.glb ... (issue 15) each glTF character is imported as File > Import does
and dragged with its skinned mesh shown (--view both or mesh; bones to compare in the same
run): every new pose is skinned and its vertices sent to the GPU. Target there: 30 fps.

    benchmarks/bench_editor.py --mesh /tmp/samples/RobotExpressive.glb ../shared/data/CesiumMan.glb --view both mesh bones

With --full-body (issue 16) each rig is solved with full-body IK on and a hand (left_arm
when the rig has one) is dragged, so every frame moves the hips and spine too:

    benchmarks/bench_editor.py --full-body --rigs humanoid

With --overlays (issue 25) each rig is dragged twice in the same run, without and then with
View > Onion Skin (2 ghosts before and after, every 5 frames) and View > Motion Trails (every
chain's tip, +-2 s) on; `jobs` counts the motion thread's solves during the drag (none: the
ghosts drawn before a drag stay until it is let go):

    benchmarks/bench_editor.py --overlays

Numbers on a shared 2-core machine under Xvfb/llvmpipe are indicative: run it 2-3 times.
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Issue 13: the editor keeps 60 fps while dragging on every bundled rig. The mouse moves faster
# than that (a common mouse reports at 125 Hz): at 60 moves a second the frame rate could not
# exceed 60, and a run at 59.x would read as too slow for no fault of the editor.
TARGET_FPS = 60.0
# Issue 15: with a character's skinned mesh shown (RobotExpressive, 7,214 vertices; CesiumMan).
MESH_TARGET_FPS = 30.0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=4.0, help="drag time per rig (default 4)")
    p.add_argument("--rate", type=float, default=120.0, help="mouse moves per second (default 120)")
    p.add_argument("--size", default="1280x800", help="window size (default 1280x800)")
    p.add_argument("--rigs", nargs="*", help="preset names (default: every bundled rig, biggest first)")
    p.add_argument("--without-timeline", action="store_true",
                   help="an empty timeline dock (to see what the timeline costs a drag)")
    p.add_argument("--uncompressed-only", action="store_true", help="only the every-move-delivered run")
    p.add_argument("--mesh", nargs="+", metavar="FILE", help="glTF characters to import and drag with their mesh shown")
    p.add_argument("--view", nargs="+", choices=("mesh", "both", "bones"), default=["both"],
                   help="with --mesh: what the viewport shows, one row per view (default both; bones for comparison)")
    p.add_argument("--full-body", action="store_true",
                   help="solve with rig.full_body on and drag a hand (issue 16)")
    p.add_argument("--overlays", action="store_true",
                   help="each rig without and with onion skin and motion trails on (issue 25)")
    args = p.parse_args()
    if not os.environ.get("DISPLAY") and shutil.which("xvfb-run") and not os.environ.get("RIGEDIT_BENCH_CHILD"):
        env = dict(os.environ, RIGEDIT_BENCH_CHILD="1")
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", sys.executable, *sys.argv]
        return subprocess.call(cmd, env=env)

    import tempfile

    os.environ.setdefault("RIGEDIT_CONFIG_DIR", tempfile.mkdtemp(prefix="rigedit-bench-"))
    from rigedit.app.qt_setup import prepare_qt

    prepare_qt()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(["bench_editor"])
    import rigedit
    from rigedit.io.preset import bundled_presets

    if args.without_timeline:
        import dataclasses

        from PySide6.QtWidgets import QWidget

        from rigedit.app import docks

        # The timeline dock stays (the window's layout is the same) but holds an empty widget.
        docks.DOCKS = tuple(dataclasses.replace(s, build=lambda w: QWidget()) if s.object_name == "timeline" else s
                            for s in docks.DOCKS)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    if args.mesh:
        for compress in (False,) if args.uncompressed_only else (True, False):
            rows = [bench_mesh(app, Path(f), v, size, args.seconds, args.rate, compress) for f in args.mesh for v in args.view]
            print_table(rows, size, compress, args.rate, "glTF characters (View > Mesh / Both / Bones)", MESH_TARGET_FPS)
        return 0
    presets = {pth.stem: pth for pth in bundled_presets()}
    names = args.rigs or sorted(presets, key=lambda n: -len(rigedit.Rig.load(presets[n]).skeleton))
    for compress in (False,) if args.uncompressed_only else (True, False):
        rows = [bench_rig(app, rigedit.Rig.load(presets[n]), n, size, args.seconds, args.rate, compress, args.full_body,
                          overlays)
                for n in names for overlays in ((False, True) if args.overlays else (False,))]
        notes = ["without the timeline dock" if args.without_timeline else "", "full body on" if args.full_body else ""]
        print_table(rows, size, compress, args.rate, ", ".join(n for n in notes if n))
    return 0


def bench_rig(app, rig, name: str, size, seconds: float, rate: float, compress: bool, full_body: bool = False,
              overlays: bool = False) -> dict:
    from rigedit.app import MainWindow
    from rigedit.core.motion_frames import frame_span

    chain = rig.chain_names[0]
    if full_body:
        rig.full_body = True
        chain = next((n for n in ("left_arm", "right_arm") if n in rig.chain_names), chain)
    w = MainWindow(rig, keep_layout=False)
    # Mid-span, with and without the overlays alike, so ghosts fit on both sides.
    first, last, dt = frame_span(w.rig)
    w.document.set_time((first + last) // 2 * dt)
    if overlays:
        w.action_onion_skin.setChecked(True)
        w.action_motion_trails.setChecked(True)
    row = drag_window(app, w, f"{name} +overlays" if overlays else name, chain, size, seconds, rate, compress)
    if overlays:
        assert row["ghosts"] > 0 and row["trails"] > 0, "the overlays were not drawn before the drag"
    return row


def bench_mesh(app, path: Path, view: str, size, seconds: float, rate: float, compress: bool) -> dict:
    from rigedit.app import MainWindow
    from rigedit.app.menus import set_view_mode

    w = MainWindow(None, keep_layout=False)
    w.importer.show_errors = False
    if not w.importer.import_file(path, ask=False):
        raise SystemExit(f"bench_editor: {w.importer.last_error}")
    set_view_mode(w, view, remember=False)
    names = w.rig.chain_names
    chain = next((n for n in ("left_arm", "right_arm") if n in names), names[0])
    skins0 = w.viewport.mesh_view.skins
    row = drag_window(app, w, f"{path.stem[:11]} {view}", chain, size, seconds, rate, compress)
    row["vertices"] = len(w.document.mesh) if w.document.mesh is not None else 0
    row["skins"] = w.viewport.mesh_view.skins - skins0
    return row


def drag_window(app, w, name: str, chain: str, size, seconds: float, rate: float, compress: bool) -> dict:
    from PySide6.QtCore import QEvent, QPointF, Qt

    from rigedit.app import capture

    rig = w.rig
    w.resize(*size)
    w.show()
    gc.freeze()  # as launch.main does once the window is up
    capture.wait_for_pose(w)
    capture.wait_until(w.motion.idle, 60.0)  # the ghosts and trails drawn, when they are on
    capture.pump(0.3)
    vp = w.viewport
    ghosts, trails = len(w.motion.onion.ghosts), len(w.motion.trail.trails)
    jobs0 = w.motion.thread.worker.jobs_run if w.motion.thread.worker is not None else 0
    w.document.select(chain)
    # A ground-feet target is drawn (and grabbed) where the ground puts it.
    start = vp.world_to_screen(w.rig.grounded_targets().get(chain, w.rig.chain(chain).target))
    radius = 0.12 * min(vp.width(), vp.height())
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    capture.send_mouse(vp, QEvent.Type.MouseMove, start, none, none)
    capture.send_mouse(vp, QEvent.Type.MouseButtonPress, start, left, left)
    assert vp.drag.active is not None, "the press did not grab the target"

    stats0 = w.solver.worker.stats_snapshot()
    frames0, applied0 = vp.frames, w.solves
    t0 = time.perf_counter()
    moves = 0  # delivered to the viewport
    made = 0  # made by the "hand"
    while True:
        now = time.perf_counter() - t0
        if now >= seconds:
            break
        due = int(now * rate) + 1
        if due > made:
            # X hands a busy application only the newest of the motion events queued for it;
            # uncompressed, every one is delivered (the worst case, as a script sending events).
            for k in range(due - 1 if compress else made, due):
                a = 2 * math.pi * (k / rate) / 2.0  # one loop every two seconds
                pos = QPointF(start.x() + radius * math.sin(a), start.y() - radius * (1 - math.cos(a)))
                capture.send_mouse(vp, QEvent.Type.MouseMove, pos, none, left)
                moves += 1
            made = due
        app.processEvents()  # the event loop runs between moves, as in real use
        time.sleep(0.0005)
    elapsed = time.perf_counter() - t0
    frames = vp.frames - frames0
    jobs = (w.motion.thread.worker.jobs_run if w.motion.thread.worker is not None else 0) - jobs0  # before release
    capture.send_mouse(vp, QEvent.Type.MouseButtonRelease, pos, left, none)
    capture.wait_for_pose(w)
    stats = w.solver.worker.stats_snapshot()
    posted = stats.posted - stats0.posted
    solved = stats.solved - stats0.solved
    dropped = stats.dropped - stats0.dropped
    solve_ms = 1000 * (stats.solve_seconds - stats0.solve_seconds) / max(solved, 1)
    caught_up = w.solver_caught_up()
    redraw = redraw_rate(app, vp)
    items = [i for i in vp.items if i.visible()]
    for i in items:
        i.hide()
    empty = redraw_rate(app, vp)  # what Qt + llvmpipe manage for this widget size with nothing to draw
    for i in items:
        i.show()
    w.document.mark_saved()
    w.close()
    return {
        "rig": name,
        "joints": len(rig.skeleton),
        "chains": len(rig.chain_names),
        "moves/s": moves / elapsed,
        "fps": frames / elapsed,
        "posted": posted,
        "solved": solved,
        "dropped": dropped,
        "solve ms": solve_ms,
        "applied": w.solves - applied0,
        "caught up": caught_up,
        "redraw fps": redraw,
        "empty fps": empty,
        "ghosts": ghosts,
        "trails": trails,
        "jobs": jobs,
    }


def redraw_rate(app, vp, seconds: float = 1.5) -> float:
    """Frames per second when the viewport does nothing but redraw (no input, no solves)."""
    f0, t0 = vp.frames, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        vp.update()
        app.processEvents()
    return (vp.frames - f0) / (time.perf_counter() - t0)


def print_table(rows, size, compress: bool, rate: float, note: str, target: float = TARGET_FPS) -> None:
    how = "compressed as X does (the newest position when the app is ready)" if compress else "every move delivered"
    note = f", {note}" if note else ""
    load = "load average %.2f %.2f %.2f" % os.getloadavg()  # other work on the machine skews every number
    print(f"\nEditor drag benchmark at {size[0]}x{size[1]}{note}: mouse at {rate:.0f} moves/s, {how}; target >= {target:.0f} fps ({load})\n")
    meshes = any("vertices" in r for r in rows)
    overlays = any(r.get("ghosts") or r.get("trails") for r in rows)
    head = f"{'rig':28} {'joints':>6} {'chains':>6} " + (f"{'vertices':>8} {'skins':>6} " if meshes else "") + \
        (f"{'ghosts':>6} {'trails':>6} {'jobs':>4} " if overlays else "") + f"{'moves/s':>8} {'fps':>6} " \
        f"{'posted':>7} {'solved':>7} {'dropped':>8} {'solve ms':>9} {'at end':>9} {'redraw':>7} {'empty':>6}  verdict"
    print(head)
    print("-" * len(head))
    for r in rows:
        verdict = "ok" if r["fps"] >= target and r["caught up"] else "SLOW"
        mesh = f"{r['vertices']:8d} {r['skins']:6d} " if meshes else ""
        mesh += f"{r['ghosts']:6d} {r['trails']:6d} {r['jobs']:4d} " if overlays else ""
        print(f"{r['rig']:28} {r['joints']:6d} {r['chains']:6d} {mesh}{r['moves/s']:8.0f} {r['fps']:6.1f} "
              f"{r['posted']:7d} {r['solved']:7d} {r['dropped']:8d} {r['solve ms']:9.3f} "
              f"{'caught up' if r['caught up'] else 'behind':>9} {r['redraw fps']:7.1f} {r['empty fps']:6.1f}  {verdict}")
    print("\nmoves/s = moves delivered; posted = goals sent (one per delivered move); dropped = replaced by newer goals before the")
    print("solver took them (by design); at end = the pose shown answers the last goals after release.")
    print("redraw = fps redrawing the same scene with no input; empty = fps with nothing in the scene,")
    print("the ceiling the window system and the software GL leave at this size.")
    if meshes:
        print("skins = poses skinned during the drag (one per new pose drawn).")
    if overlays:
        print("ghosts, trails = onion-skin ghosts and motion trails drawn; jobs = the motion thread's solves during the drag.")


if __name__ == "__main__":
    raise SystemExit(main())
