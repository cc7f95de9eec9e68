"""The command line's progress bar for long work (bake, export, batch): rich's bar on stderr, so the
report on stdout stays clean to pipe; nothing with --quiet."""
from __future__ import annotations

import sys


class progress_bar:
    """A context giving a `progress(done, total) -> True` callback (bake's), or None when quiet."""

    def __init__(self, label: str, quiet: bool = False) -> None:
        self.label, self.quiet = label, quiet
        self.bar = None

    def __enter__(self):
        if self.quiet:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn(self.label), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
            console=Console(file=sys.stderr), transient=False,
        )
        self.bar.start()
        task = self.bar.add_task(self.label, total=None)

        def step(done: int, total: int) -> bool:
            self.bar.update(task, completed=done, total=max(total, 1))
            return True

        return step

    def note(self, text: str) -> None:
        """A line on stderr above the bar (a batch's per-file error), as plain text."""
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=sys.stderr)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
