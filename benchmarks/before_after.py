"""Every benchmark before and after a change, in one run: `.venv/bin/python benchmarks/before_after.py [REF] [--quick]`.

REF (default: the commit before the compiled frame landed, i.e. the first parent of the
first-parent commit that brought rigedit/core/ik/frame_kernel.py) is checked out into a
temporary `git worktree` (removed afterwards; --keep DIR keeps it, and its numba cache, for
the next run). "after" is this checkout as it is, uncommitted edits included. Each tree runs
its own copy of each benchmark script (PYTHONPATH set to that tree), so a script that
changed between the two measures each tree the way that tree meant.

The machine is shared and noisy: the two trees take turns benchmark by benchmark, the order
flipping every round (before, after / after, before), and each figure is the median over
the rounds. Both trees' kernels are compiled (scripts/compile_kernels.py) before anything is
timed; a fresh worktree compiles every kernel, minutes on a loaded machine (--keep spares that
on the next run).

Figures are read from the scripts' own tables (markdown `| a | b |` tables and column-aligned
text tables: each number under a header, labelled by its row's text and its column's
header). Figures equal in both trees (sizes, targets, counts) are left out. Printed: one
markdown table, benchmark, figure, before, after, after / before (below 1: faster or
smaller after, for a time). --quick runs a subset with fewer repeats, two rounds: a few
minutes once both trees are compiled.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANDED = "rigedit/core/ik/frame_kernel.py"


@dataclass(frozen=True)
class Bench:
    script: str
    quick: tuple | None  # arguments for --quick; None: left out of a quick run
    full: tuple = ()


# Every benchmark script in benchmarks/ (bench_editor opens windows and bench_limited_optimality
# measures solve quality against scipy for minutes; neither is a speed figure of the core).
BENCHES = (
    Bench("bench_reference.py", ("--quick",)),
    Bench("bench_rig.py", ("--frames", "100")),
    Bench("bench_ik.py", ("--quick",), ("--quick",)),
    Bench("bench_two_bone_core.py", ()),
    Bench("bench_uses.py", ()),
    Bench("bench_bake.py", ("--runs", "2")),
    Bench("bench_add_chains.py", None),
    Bench("bench_timeline.py", None),
    Bench("bench_look_at_ground_gait.py", None),
    Bench("bench_fabrik.py", None),
    Bench("bench_fabrik_core.py", None),
    Bench("bench_full_body.py", None, ("--quick",)),
    Bench("bench_batch.py", None),
    Bench("bench_skinning.py", None),
    Bench("bench_export.py", None),
    Bench("bench_lint.py", None),
    Bench("bench_retarget.py", None),
    Bench("bench_retarget_quality.py", None),
    Bench("bench_report.py", None),
)


# ---- the trees ---------------------------------------------------------------------------


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def default_ref() -> str:
    """The first parent of the first-parent commit (from HEAD back) that brought LANDED."""
    for commit in git("rev-list", "--first-parent", "HEAD").split():
        if subprocess.run(["git", "cat-file", "-e", f"{commit}:{LANDED}"], cwd=ROOT, capture_output=True).returncode:
            return commit
    raise SystemExit(f"before_after: {LANDED} is in every commit of this branch's history; give a REF")


def make_tree(ref: str, keep: Path | None) -> tuple[Path, bool]:
    """A worktree of `ref`: (its path, whether to remove it afterwards)."""
    sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    if keep is not None and (keep / ".git").exists():
        if git("rev-parse", "HEAD", cwd=keep) == sha:
            return keep, False
        raise SystemExit(f"before_after: {keep} holds another commit than {ref}; remove it or give another --keep")
    path = keep if keep is not None else Path(tempfile.mkdtemp(prefix="rigedit-before-")) / "tree"
    git("worktree", "add", "--detach", str(path), sha)
    return path, keep is None


def remove_tree(path: Path) -> None:
    git("worktree", "remove", "--force", str(path))
    try:
        path.parent.rmdir()
    except OSError:
        pass


def run(tree: Path, argv: list, timeout: float) -> tuple[str, float]:
    """A script of `tree` with that tree first on the path: (stdout, seconds)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *argv], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode not in (0, 1):  # bench_reference exits 1 on a row it cannot compare; the table is there
        raise RuntimeError(f"{' '.join(map(str, argv))} in {tree}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return proc.stdout, time.perf_counter() - t0


# ---- reading the figures out of a script's output ---------------------------------------------

_NUMBER = re.compile(r"([-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)\s*(ns|us|µs|ms|s|x|%|fps|MB|kB|mm|m)?$")
_VERDICTS = {"pass", "fail", "met", "missed", "ok", "-", "skipped", "yes", "no", "(information)", "(study)"}


def _cells(line: str) -> list[tuple[int, int, str]]:
    """Cells of a column-aligned line: runs separated by two or more spaces, with their spans."""
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def _number(cell: str) -> tuple[float, str] | None:
    m = _NUMBER.search(cell.strip())
    if m is None or (m.start() > 0 and not cell.strip()[: m.start()].endswith(" ")):
        return None
    return float(m.group(1)), m.group(2) or ""


def _verdict(cell: str) -> bool:
    """A cell that judges a figure rather than names it ("pass", "<= 200 ms: OVER")."""
    return cell.lower() in _VERDICTS or "<=" in cell or ">=" in cell


def _plain(label: str) -> str:
    """A row label without what the tree measured in it ("(2.7 passes)", "(median; p90 213 us)")."""
    return re.sub(r"\s*\([^)]*\d[^)]*\)", "", label)


def figures(text: str) -> dict[str, tuple[float, str]]:
    """Label -> (value, unit) for every number in the output's tables (see the docstring)."""
    out: dict = {}

    def put(label: str, value: tuple[float, str]) -> None:
        k, n = label, 2
        while k in out:
            k, n = f"{label} ({n})", n + 1
        out[k] = value

    header_md: list | None = None
    header: list | None = None
    names: list | None = None  # the number columns' names, from the first row under the header
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if header_md is None:
                header_md = cells
                continue
            label = _plain(cells[0])
            for name, cell in zip(header_md[1:], cells[1:]):
                got = _number(cell)
                if got is not None:
                    put(f"{label} / {name}", got)
            continue
        header_md = None
        spans = _cells(line)
        nums = [(a, b, _number(c)) for a, b, c in spans]
        if not any(n is not None for _, _, n in nums):
            if len(spans) >= 2:  # a header: its words, each with the run of words it stands in
                header = [(a + m.end(), m.group(), c) for a, _, c in spans for m in re.finditer(r"\S+", c)]
                names = None
            continue
        if header is None:
            continue
        # Numbers are right-aligned under their header: in the first row under it, each
        # takes the header word ending nearest its end, named by that word's run of words
        # unless another number took it. Later rows with as many number cells ("-" holds a
        # place) take the same names in order: a long row label pushes a row's cells right.
        slots = [(b, n) for (_, b, c), (_, _, n) in zip(spans, nums) if n is not None or c == "-"]
        label = " ".join(c for (_, _, c), (_, _, n) in zip(spans, nums) if n is None and c != "-" and not _verdict(c))
        label = _plain(label)
        if names is None or len(names) != len(slots):
            taken = [min(header, key=lambda h: abs(h[0] - b)) for b, _ in slots]
            runs = [h[2] for h in taken]
            row_names = [run_ if runs.count(run_) == 1 else word for _, word, run_ in taken]
            if names is None:
                names = row_names
        else:
            row_names = names
        for name, (_, n) in zip(row_names, slots):
            if n is not None:
                put(f"{label} / {name}", n)
    return out


# ---- the run ------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ref", nargs="?", help="the 'before' commit (default: the one before ik/frame_kernel.py landed)")
    ap.add_argument("--quick", action="store_true", help="a subset, fewer repeats, two rounds")
    ap.add_argument("--rounds", type=int, help="rounds (default 2 quick, 3 otherwise)")
    ap.add_argument("--only", nargs="*", help="benchmark scripts to run (names or stems)")
    ap.add_argument("--keep", type=Path, help="keep the before tree here (reused when it holds REF)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds a benchmark may take")
    args = ap.parse_args()
    ref = args.ref or default_ref()
    rounds = args.rounds or (2 if args.quick else 3)
    benches = [b for b in BENCHES if not args.quick or b.quick is not None]
    if args.only:
        wanted = {Path(n).stem for n in args.only}
        benches = [b for b in BENCHES if Path(b.script).stem in wanted]
    before, remove = make_tree(ref, args.keep)
    label = f"{git('log', '-1', '--format=%h %s', ref)[:70]}"
    trees = {"before": before, "after": ROOT}
    try:
        for name, tree in trees.items():
            t0 = time.perf_counter()
            run(tree, [str(tree / "scripts" / "compile_kernels.py")], 3600.0)
            print(f"{name}: kernels compiled or loaded in {time.perf_counter() - t0:.0f} s ({tree})", file=sys.stderr)
        seen: dict = {}  # (bench, tree) -> list of figure dicts
        failed: dict = {}  # (bench, tree) -> the last line of its error
        for r in range(rounds):
            for bench in benches:
                order = ("before", "after") if r % 2 == 0 else ("after", "before")
                for name in order:
                    script = trees[name] / "benchmarks" / bench.script
                    if not script.exists():
                        continue
                    argv = [str(script), *(bench.quick if args.quick else bench.full)]
                    try:
                        text, took = run(trees[name], argv, args.timeout)
                    except (RuntimeError, subprocess.TimeoutExpired) as e:
                        failed[(bench.script, name)] = str(e).strip().splitlines()[-1][:120]
                        print(f"round {r + 1}/{rounds} {bench.script} {name}: failed: {e}", file=sys.stderr)
                        continue
                    seen.setdefault((bench.script, name), []).append(figures(text))
                    print(f"round {r + 1}/{rounds} {bench.script} {name}: {took:.0f} s", file=sys.stderr)
    finally:
        if remove:
            remove_tree(before)
    print(f"before: {ref[:12]} ({label}); after: this checkout ({git('log', '-1', '--format=%h')}"
          f"{', with uncommitted edits' if git('status', '--porcelain', '--untracked-files=no') else ''}); "
          f"medians of {rounds} rounds, the trees taking turns; load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")  # fmt: skip
    print()
    print("| benchmark | figure | before | after | after / before |")
    print("|---|---|---:|---:|---:|")
    for bench in benches:
        runs = {name: seen.get((bench.script, name), []) for name in trees}
        if not runs["before"] or not runs["after"]:
            why = "; ".join(f"{name} failed: {failed[(bench.script, name)]}" for name in trees if (bench.script, name) in failed)
            print(f"| {bench.script} | ({why or 'not in both trees'}) | | | |")
            continue
        labels = [k for k in runs["after"][0] if all(k in f for f in runs["after"] + runs["before"])]
        for k in labels:
            b = statistics.median(f[k][0] for f in runs["before"])
            a = statistics.median(f[k][0] for f in runs["after"])
            if a == b:
                continue
            unit = runs["after"][0][k][1]
            ratio = f"{a / b:.2f}" if b else "-"
            print(f"| {bench.script} | {k} | {b:g} {unit} | {a:g} {unit} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
