"""Stills of each clip's worst frames (still_frames.py), drawn by the editor's viewport in one
process for the whole report (`python -m rigedit.app.stills`), as PNGs the page embeds.

The renderer is a child process: it needs Qt and OpenGL, which the measuring never loads,
and a GL failure there cannot take the report down with it. It runs under the current display
when there is one, else (or when that fails) under `xvfb-run -a`; when neither works the
report is written without stills and says why (`add_stills` returns the reason).
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import rigedit

from .still_frames import StillFrame, still_frames

SIZE = (480, 360)  # pixels a still
XVFB_SCREEN = "-screen 0 1280x800x24"
# Generous: a loaded 2-core machine took a minute to start Qt and draw three stills.
TIMEOUT_S = 300.0
TIMEOUT_PER_STILL_S = 10.0


@dataclass(frozen=True)
class Still:
    frame: StillFrame
    caption: str
    png: bytes

    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def add_stills(measured: list) -> str:
    """Draw every measured clip's stills into m.stills (and m.stills_error where one clip's
    failed); returns "" or why there are none at all."""
    request = {"size": list(SIZE), "clips": []}
    chosen: dict[str, list[tuple[StillFrame, str]]] = {}
    for m in measured:
        fps = m.summary["fps"]
        frames = still_frames(m.summary, m.tracks or {}, m.about.get("feet", {}))
        chosen[m.name] = [(f, f.caption(fps)) for f in frames]
        request["clips"].append({"key": m.name, "path": m.path, "stills": [
            {"frame": f.frame, "caption": c, "joints": list(f.joints)} for f, c in chosen[m.name]]})
    if not request["clips"]:
        return ""
    with tempfile.TemporaryDirectory(prefix="rigedit-stills-") as tmp:
        tmp = Path(tmp)
        (tmp / "request.json").write_text(json.dumps(request), encoding="utf-8")
        n = sum(len(c) for c in chosen.values())
        why = _render(tmp, TIMEOUT_S + TIMEOUT_PER_STILL_S * n)
        if why:
            return why
        done = json.loads((tmp / "result.json").read_text(encoding="utf-8"))["clips"]
        for m in measured:
            got = done.get(m.name, {"files": [], "error": "not drawn"})
            m.stills = [Still(f, c, (tmp / name).read_bytes()) for (f, c), name in zip(chosen[m.name], got["files"])]
            m.stills_error = got["error"] or ""
    return ""


def _render(tmp: Path, timeout: float) -> str:
    """Run the renderer on tmp/request.json; "" when it wrote tmp/result.json, else why not."""
    base = [sys.executable, "-m", "rigedit.app.stills", str(tmp / "request.json"), str(tmp)]
    tries = []
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    if display:
        tries.append((f"on the display {display}", base))
    xvfb = shutil.which("xvfb-run")
    if xvfb:
        tries.append(("under xvfb-run", [xvfb, "-a", "-s", XVFB_SCREEN, *base]))
    if not tries:
        return "no stills: there is no display (DISPLAY is not set) and no xvfb-run to make one (install the xvfb package)"
    env = dict(os.environ)
    # The child imports this very rigedit, wherever it was imported from.
    env["PYTHONPATH"] = os.pathsep.join([str(Path(rigedit.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    failures = []
    for where, cmd in tries:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            failures.append(f"drawing {where} took over {timeout:.0f} s")
            continue
        if r.returncode == 0 and (tmp / "result.json").is_file():
            return ""
        last = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        failures.append(f"drawing {where} failed ({last})")
    return "no stills: " + "; ".join(failures)
