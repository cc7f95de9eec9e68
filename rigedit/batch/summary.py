"""A batch's summary: the table printed at the end, and the same rows as OUTDIR/batch-KIND.json
(rewritten by every run, skipped files included, so it always describes the whole folder)."""
from __future__ import annotations

import json
import os
from collections import Counter

from .jobs import STATUSES, Result

STYLE = {"ok": "green", "exists": "dim", "skipped": "dim", "error": "red", "unreadable": "red", "crashed": "bold red",
         "not run": "yellow"}


def counts(results: list[Result]) -> str:
    c = Counter(r.status for r in results)
    return ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s])


def print_table(kind: str, results: list[Result], outdir: str, footer: str) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    if not console.is_terminal:  # a pipe or a log: wide enough that each file stays on a line or two
        console = Console(width=160)
    table = Table(title=f"rigedit batch {kind}", title_justify="left", highlight=False, caption=footer, caption_justify="left")
    for col, justify in (("file", "left"), ("status", "left"), ("seconds", "right"), ("result", "left"), ("error", "left")):
        table.add_column(col, justify=justify, overflow="fold")
    for r in results:
        table.add_row(Text(r.name), Text(r.status, style=STYLE[r.status]), f"{r.seconds:.2f}" if r.seconds else "",
                      Text(_result_text(r, outdir)), Text(r.error))
    console.print(table)


def _result_text(r: Result, outdir: str) -> str:
    if not r.outputs:
        return r.detail
    written = ", ".join(os.path.relpath(o, outdir) for o in r.outputs)
    return f"{written}: {r.detail}" if r.detail else written


def write_json(path: str, kind: str, results: list[Result], header: dict) -> None:
    from rigedit.io.atomic import atomic_write_text

    data = {"command": f"batch {kind}", **header, "files": [r.to_dict() for r in results]}
    atomic_write_text(path, json.dumps(data, indent=2) + "\n", backup=False)
