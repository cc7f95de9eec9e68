"""The job list of a batch: which clips, and where each one's outputs go.

An input is a folder (every clip file in it and its subfolders: io/formats.py's CLIPS), a glob
('takes/**/*.bvh', quoted so the shell leaves it alone) or a file (the shell's own expansion of
an unquoted glob gives many). Each clip's outputs go to OUTDIR under its path relative to the
folder, or to the glob's fixed leading folders, so a library's subfolders are kept:

    bake       NAME.bvh (the IK baked over the clip)
    lint       NAME.lint.json (the findings, as `rigedit lint --json`), with --fix NAME.EXT too
    retarget   NAME.bvh (the clip on the --onto skeleton)

Files and folders whose names start with a dot are left out (an atomic save's temporary file,
.git), and so is everything under an OUTDIR inside the input folder (outputs of an earlier run
are not inputs). An output that would replace an input clip stops the batch before it starts.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

from rigedit.io import formats

from .jobs import Job, Result, findings_in, describe_findings

SUFFIXES = formats.suffixes(formats.CLIPS)
OUTPUT = formats.BVH  # what bake and retarget write
_MAGIC = re.compile(r"[*?[]")


class PlanError(ValueError):
    """The batch cannot start as asked (no inputs, an output over an input): nothing was run."""


@dataclass
class Plan:
    jobs: list[Job]  # to run
    done: list[Result]  # decided without running: outputs there already, or two clips with one output


def plan(kind: str, inputs: list[str], outdir: str, *, rig: str | None = None, fix: bool = False, force: bool = False) -> Plan:
    out_root = Path(outdir).resolve()
    clips = find_clips(inputs, out_root)
    sources = {src for src, _ in clips}
    jobs, done, claimed = [], [], {}
    for src, rel in clips:
        outputs = tuple(str(out_root / p) for p in output_names(kind, rel, fix))
        over_input = next((o for o in outputs if Path(o) in sources), None)
        if over_input is not None:
            raise PlanError(f"{outdir}: the output {over_input} would replace an input clip; choose another -o folder")
        name = rel.as_posix()
        first = next((claimed[o] for o in outputs if o in claimed), None)
        if first is not None:
            done.append(Result(name, "error", error=f"{src}: its output {outputs[-1]} is also {first}'s; rename one of the two"))
            continue
        claimed.update((o, name) for o in outputs)
        if not force and all(os.path.exists(o) for o in outputs):
            findings = findings_in(outputs[-1]) if kind == "lint" else None
            detail = describe_findings(findings) if findings is not None else ""
            done.append(Result(name, "exists", outputs=outputs, detail=detail, findings=findings))
            continue
        jobs.append(Job(kind, str(src), outputs, name, rig=None if rig is None else str(Path(rig).resolve()), fix=fix, force=force))
    return Plan(jobs, done)


def largest_first(jobs: list[Job]) -> list[Job]:
    """The order to hand jobs out in: the longest clips (by file size) first, so a big take
    started last does not keep one worker busy while the others are done."""
    def size(job: Job) -> int:
        try:
            return os.path.getsize(job.source)
        except OSError:
            return 0  # gone since the plan: its job reports that

    return sorted(jobs, key=size, reverse=True)


def output_names(kind: str, rel: Path, fix: bool) -> tuple[Path, ...]:
    stem = rel.with_suffix("")
    if kind == "lint":
        report = stem.with_name(stem.name + ".lint.json")
        return (rel, report) if fix else (report,)
    return (stem.with_name(stem.name + OUTPUT.suffixes[0]),)


def find_clips(inputs: list[str], out_root: Path) -> list[tuple[Path, Path]]:
    """(absolute path, path relative to its folder or glob base) of every clip the inputs name,
    each once, in order."""
    found: dict[Path, Path] = {}
    for spec in inputs:
        for path, base in _expand(spec):
            path, base = path.resolve(), base.resolve()
            # An earlier run's outputs in a subfolder of the inputs are not inputs; with OUTDIR
            # the input folder itself (or above it), every clip is under it and stays one.
            if path in found or (_under(path, out_root) and not _under(base, out_root)):
                continue
            found[path] = path.relative_to(base)
    if not found:
        raise PlanError(f"{' '.join(inputs)}: no {formats.listing(formats.CLIPS, 'or')} files found")
    return sorted(found.items(), key=lambda kv: kv[1].as_posix())


def _expand(spec: str):
    p = Path(spec)
    if p.is_dir():
        for folder, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                if _is_clip(f):
                    yield Path(folder) / f, p
        return
    if p.is_file():
        if not _is_clip(p.name):
            raise PlanError(f"{spec}: not a clip (rigedit batch reads {', '.join(SUFFIXES)} files)")
        yield p, p.parent
        return
    if not _MAGIC.search(spec):
        raise PlanError(f"{spec}: no such file or folder")
    base = _glob_base(spec)
    for m in sorted(glob.glob(spec, recursive=True)):
        m = Path(m)
        if m.is_file() and _is_clip(m.name) and not any(part.startswith(".") for part in m.relative_to(base).parts):
            yield m, base


def _glob_base(spec: str) -> Path:
    """The glob's leading folders without wildcards ('takes/2024/*/walk*.bvh' -> takes/2024)."""
    parts = Path(spec).parts
    fixed = []
    for part in parts[:-1]:
        if _MAGIC.search(part):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path(".")


def _is_clip(name: str) -> bool:
    return not name.startswith(".") and Path(name).suffix.lower() in SUFFIXES


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
