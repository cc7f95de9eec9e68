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
are not inputs). Anything else a folder or glob holds that is not a clip is listed as skipped
with the reason (a file of another kind, a folder named like a clip, a link to a folder, which
is not followed), and one that cannot be read as unreadable, never dropped without a word. An
output that would replace an input clip stops the batch before it starts.
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path

from rigedit.io import formats

from .jobs import Job, Result, describe_findings, findings_in

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
    clips, passed = find_inputs(inputs, out_root)
    sources = {src for src, _ in clips}
    jobs, claimed = [], {}
    done = [Result(rel.as_posix(), status, error=f"{path}: {reason}") for path, rel, status, reason in passed]
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
    return find_inputs(inputs, out_root)[0]


def find_inputs(inputs: list[str], out_root: Path):
    """The clips (as find_clips) and what was passed over: (path, relative path, "skipped" or
    "unreadable", why), each once, in order."""
    found: dict[Path, Path] = {}
    passed: dict[Path, tuple[Path, str, str]] = {}
    for spec in inputs:
        for path, base, status, reason in _expand(spec):
            path, base = Path(os.path.abspath(path)), base.resolve()
            if status is None:
                path = path.resolve()
            # An earlier run's outputs in a subfolder of the inputs are not inputs; with OUTDIR
            # the input folder itself (or above it), every clip is under it and stays one.
            if path in found or path in passed or (_under(path, out_root) and not _under(base, out_root)):
                continue
            rel = Path(os.path.relpath(path, base))
            if status is None:
                found[path] = rel
            else:
                passed[path] = (rel, status, reason)
    if not found:
        raise PlanError(f"{' '.join(inputs)}: no {formats.listing(formats.CLIPS, 'or')} files found"
                        + "".join(f"; {p}: {why}" for p, (_, _, why) in passed.items()))
    clips = sorted(found.items(), key=lambda kv: kv[1].as_posix())
    return clips, sorted(((p, *rest) for p, rest in passed.items()), key=lambda x: x[1].as_posix())


NOT_A_CLIP = f"not a clip (rigedit batch reads {', '.join(SUFFIXES)} files)"
NAMED_LIKE_A_CLIP = "a folder, not a clip file (the clips inside it are read as any folder's)"
A_FOLDER = "a folder, not a clip file"
A_LINK = "a link to a folder, not followed (name the folder itself to read it)"


def _expand(spec: str):
    """(path, base, None, "") for each clip `spec` names, (path, base, status, why) for each
    thing it holds that is passed over."""
    p = Path(spec)
    if p.is_dir():
        yield from _walk(p)
        return
    if p.is_file():
        if not _is_clip(p.name):
            raise PlanError(f"{spec}: {NOT_A_CLIP}")
        yield (p, p.parent, *_readable(p))
        return
    if not _MAGIC.search(spec):
        raise PlanError(f"{spec}: no such file or folder")
    base = _glob_base(spec)
    for m in sorted(glob.glob(spec, recursive=True)):
        m = Path(m)
        if not any(part.startswith(".") for part in m.relative_to(base).parts):
            yield (m, base, *_judge(m, A_FOLDER))


def _walk(top: Path):
    errors: list[OSError] = []  # folders os.walk could not list
    for folder, dirs, files in os.walk(top, onerror=errors.append):
        yield from ((Path(e.filename), top, "unreadable", f"cannot be read: {e.strerror}") for e in errors)
        errors.clear()
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in links)
        for name in sorted([d for d in dirs if _is_clip(d)] + files + links):
            if not name.startswith("."):
                yield (Path(folder) / name, top, *_judge(Path(folder) / name, NAMED_LIKE_A_CLIP))
    yield from ((Path(e.filename), top, "unreadable", f"cannot be read: {e.strerror}") for e in errors)


def _judge(path: Path, folder_reason: str) -> tuple[str | None, str]:
    """(None, "") for a clip to run, else ("skipped" or "unreadable", why)."""
    if path.is_symlink() and path.is_dir():
        return "skipped", A_LINK
    if path.is_dir():
        return "skipped", folder_reason
    if not _is_clip(path.name):
        return "skipped", NOT_A_CLIP
    return _readable(path)


def _readable(path: Path) -> tuple[str | None, str]:
    try:
        with open(path, "rb"):
            return None, ""
    except OSError as e:
        return "unreadable", f"cannot be read: {e.strerror or e}"


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
