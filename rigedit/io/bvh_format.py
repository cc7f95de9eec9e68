"""BVH text syntax: parse a file into plain joint records and a motion table, and back.

This module knows the grammar only (HIERARCHY / ROOT / JOINT / End Site / OFFSET / CHANNELS,
MOTION / Frames / Frame Time / rows), not what the numbers mean; `bvh.py` turns them into a
Skeleton and a Clip. Real files vary: tabs or spaces, trailing spaces, Windows or mixed line
endings, `Frame Time: .0083333`, joint names with spaces (3ds Max's "Bip01 L Thigh"). Every
problem is reported as a BvhError naming the file, the line and what is wrong.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

POSITION_CHANNELS = ("Xposition", "Yposition", "Zposition")
ROTATION_CHANNELS = ("Xrotation", "Yrotation", "Zrotation")
_CANONICAL = {c.lower(): c for c in POSITION_CHANNELS + ROTATION_CHANNELS}
# Mocap skeletons have tens to a few hundred joints. Every walk over the hierarchy is a loop
# (never recursion), so depth costs nothing; this bounds the memory a file claiming absurdly
# many joints may take (a clip holds frames x joints transforms), and is named when refused.
MAX_JOINTS = 16384


class BvhError(ValueError):
    """A BVH file that cannot be read: names the file, the line (when there is one) and the problem."""

    def __init__(self, path: str | os.PathLike | None, line: int | None, problem: str) -> None:
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.problem = problem
        where = self.path or "<bvh text>"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {problem}")


@dataclass
class RawJoint:
    name: str
    parent: int  # index into the joint list, -1 for a root
    offset: tuple[float, float, float]  # file units, as written
    channels: tuple[str, ...]  # canonical channel names in file order; () for an End Site
    end_site: bool = False
    line: int = 0  # where the joint was declared, for later error messages


@dataclass
class RawBvh:
    joints: list[RawJoint]
    frame_time: float
    motion: np.ndarray  # (frames, channels) float64, columns in joint order then channel order
    warnings: list[str] = field(default_factory=list)

    def channel_columns(self) -> list[range]:
        """For each joint, the motion columns its channels occupy."""
        cols, start = [], 0
        for j in self.joints:
            cols.append(range(start, start + len(j.channels)))
            start += len(j.channels)
        return cols


class _Tokens:
    """Whitespace tokens with their line numbers; braces are tokens even when glued to words."""

    def __init__(self, lines: list[str], path) -> None:
        self.path = path
        self.items: list[tuple[str, int]] = []
        for no, line in enumerate(lines, start=1):
            for tok in line.replace("{", " { ").replace("}", " } ").split():
                self.items.append((tok, no))
        self.pos = 0
        self.names: set[str] = set()  # joint names taken so far: a set, so a long file stays linear
        self.end_suffix: dict[str, int] = {}

    def error(self, problem: str, line: int | None = None) -> BvhError:
        if line is None:
            line = self.items[min(self.pos, len(self.items) - 1)][1] if self.items else None
        return BvhError(self.path, line, problem)

    def peek(self) -> tuple[str, int] | None:
        return self.items[self.pos] if self.pos < len(self.items) else None

    def next(self, what: str) -> tuple[str, int]:
        if self.pos >= len(self.items):
            last = self.items[-1][1] if self.items else None
            raise BvhError(self.path, last, f"file ends where {what} was expected")
        tok = self.items[self.pos]
        self.pos += 1
        return tok

    def expect(self, word: str) -> int:
        tok, line = self.next(f"'{word}'")
        if tok.upper() != word.upper():
            raise BvhError(self.path, line, f"expected '{word}', found '{tok}'")
        return line

    def rest_of_line(self, line: int) -> list[str]:
        """Tokens left on `line` (a joint name may contain spaces), stopping before a brace."""
        out = []
        while self.pos < len(self.items) and self.items[self.pos][1] == line and self.items[self.pos][0] not in "{}":
            out.append(self.items[self.pos][0])
            self.pos += 1
        return out

    def number(self, what: str) -> float:
        tok, line = self.next(what)
        try:
            value = float(tok)
        except ValueError:
            raise BvhError(self.path, line, f"{what} must be a number, found '{tok}'") from None
        if not np.isfinite(value):
            raise BvhError(self.path, line, f"{what} must be finite, found '{tok}'")
        return value


def parse_bvh(text: str, path=None) -> RawBvh:
    """Parse BVH text; `path` is only used to name the file in errors."""
    lines = text.splitlines()
    motion_at = next((i for i, ln in enumerate(lines) if ln.strip().upper() == "MOTION"), None)
    if motion_at is None:
        raise BvhError(path, None, "no MOTION section (a BVH file needs HIERARCHY then MOTION)")
    toks = _Tokens(lines[:motion_at], path)
    first = toks.peek()
    if first is None or first[0].upper() != "HIERARCHY":
        raise toks.error("the file must start with HIERARCHY", first[1] if first else 1)
    toks.next("HIERARCHY")
    joints: list[RawJoint] = []
    while toks.peek() is not None:
        tok, line = toks.next("ROOT")
        if tok.upper() != "ROOT":
            if tok == "}":
                raise BvhError(path, line, "unbalanced braces: '}' without a matching '{'")
            raise BvhError(path, line, f"expected ROOT, found '{tok}'")
        _parse_joint(toks, joints, parent=-1, line=line)
    if not joints:
        raise BvhError(path, motion_at + 1, "HIERARCHY has no ROOT joint")
    frames, frame_time, motion, warnings = _parse_motion(lines, motion_at, joints, path)
    return RawBvh(joints, frame_time, motion, warnings)


def _parse_joint(toks: _Tokens, joints: list[RawJoint], parent: int, line: int) -> None:
    """A ROOT and everything inside its braces.

    A loop over an explicit stack of open joints, not recursion: real files nest a dozen
    deep, but a damaged or hostile one may nest thousands deep, and Python's recursion limit
    would turn that into a RecursionError instead of a reading.
    """
    path = toks.path
    # (index of the joint, whether it is an End Site, the line of its '{')
    open_joints: list[tuple[int, bool, int]] = []
    _open_joint(toks, joints, parent, line, False, open_joints)
    while open_joints:
        index, end_site, open_line = open_joints[-1]
        name = joints[index].name
        if toks.peek() is None:
            raise BvhError(path, open_line, f"unbalanced braces: the '{{' of '{name}' is never closed")
        tok, tline = toks.next("'}'")
        key = tok.upper()
        if tok == "}":
            open_joints.pop()
        elif end_site:
            raise BvhError(path, tline, f"unexpected '{tok}' inside an End Site")
        elif key == "JOINT":
            _open_joint(toks, joints, index, tline, False, open_joints)
        elif key == "END":
            _open_joint(toks, joints, index, tline, True, open_joints)
        elif key == "ROOT":
            raise BvhError(path, tline, f"unbalanced braces: '{{' of '{name}' on line {open_line} is not closed before ROOT")
        else:
            raise BvhError(path, tline, f"expected JOINT, End Site or '}}' in '{name}', found '{tok}'")


def _open_joint(toks: _Tokens, joints: list[RawJoint], parent: int, line: int, end_site: bool, open_joints: list) -> None:
    """Read a joint's name, '{', OFFSET and CHANNELS, append it and push it on `open_joints`."""
    path = toks.path
    if len(joints) >= MAX_JOINTS:
        raise BvhError(path, line, f"more than {MAX_JOINTS} joints; rigedit reads skeletons up to that size")
    if end_site:
        toks.expect("Site")
        base = joints[parent].name
        name, k = base + "_End", toks.end_suffix.get(base, 2)
        while name in toks.names:
            name, k = f"{base}_End{k}", k + 1
        toks.end_suffix[base] = k  # where the next End Site of this joint starts looking
    else:
        words = toks.rest_of_line(line)
        if not words:
            raise BvhError(path, line, "joint has no name")
        name = " ".join(words)
        if name in toks.names:
            raise BvhError(path, line, f"joint name '{name}' is used twice")
    open_line = toks.expect("{")
    toks.expect("OFFSET")
    offset = tuple(toks.number(f"OFFSET of '{name}'") for _ in range(3))
    channels: tuple[str, ...] = ()
    nxt = toks.peek()
    if nxt is not None and nxt[0].upper() == "CHANNELS":
        if end_site:
            raise BvhError(path, nxt[1], "an End Site cannot have CHANNELS")
        channels = _parse_channels(toks, name)
    toks.names.add(name)
    open_joints.append((len(joints), end_site, open_line))
    joints.append(RawJoint(name, parent, offset, channels, end_site, line))


def _parse_channels(toks: _Tokens, name: str) -> tuple[str, ...]:
    path = toks.path
    _, line = toks.next("CHANNELS")
    count_tok, cline = toks.next("a channel count")
    try:
        count = int(count_tok)
    except ValueError:
        raise BvhError(path, cline, f"CHANNELS count of '{name}' must be a whole number, found '{count_tok}'") from None
    if not 0 <= count <= 6:
        raise BvhError(path, cline, f"CHANNELS count of '{name}' must be 0 to 6, found {count}")
    channels = []
    for _ in range(count):
        tok, tline = toks.next(f"a channel name of '{name}'")
        canon = _CANONICAL.get(tok.lower())
        if canon is None:
            raise BvhError(path, tline, f"unknown channel '{tok}' in '{name}' (expected X/Y/Z position or rotation)")
        if canon in channels:
            raise BvhError(path, tline, f"channel '{canon}' appears twice in '{name}'")
        channels.append(canon)
    n_rot = sum(c in ROTATION_CHANNELS for c in channels)
    if n_rot not in (0, 3):
        raise BvhError(path, line, f"'{name}' has {n_rot} rotation channels; rigedit reads 0 or 3")
    return tuple(channels)


def _parse_motion(lines: list[str], motion_at: int, joints: list[RawJoint], path):
    n_channels = sum(len(j.channels) for j in joints)
    i = motion_at + 1
    i, frames_text, frames_line = _header(lines, i, "Frames:", path)
    try:
        frames = int(frames_text)
    except ValueError:
        raise BvhError(path, frames_line, f"Frames must be a whole number, found '{frames_text}'") from None
    if frames < 0:
        raise BvhError(path, frames_line, f"Frames must not be negative, found {frames}")
    i, ft_text, ft_line = _header(lines, i, "Frame Time:", path)
    try:
        frame_time = float(ft_text)
    except ValueError:
        raise BvhError(path, ft_line, f"Frame Time must be a number, found '{ft_text}'") from None
    if not (np.isfinite(frame_time) and frame_time > 0):
        raise BvhError(path, ft_line, f"Frame Time must be a positive number of seconds, found '{ft_text}'")

    rows: list[list[str]] = []
    row_lines: list[int] = []
    for no in range(i, len(lines)):
        words = lines[no].split()
        if words:
            rows.append(words)
            row_lines.append(no + 1)
    warnings = []
    if len(rows) < frames:
        last = row_lines[-1] if row_lines else len(lines)
        raise BvhError(path, last, f"Frames says {frames} but the file has only {len(rows)} motion rows")
    if len(rows) > frames:
        warnings.append(f"Frames says {frames} but the file has {len(rows)} motion rows; the extra rows were ignored")
        rows, row_lines = rows[:frames], row_lines[:frames]
    for words, no in zip(rows, row_lines):
        if len(words) != n_channels:
            raise BvhError(path, no, f"motion row has {len(words)} values, the hierarchy declares {n_channels} channels")
    try:
        motion = np.array(rows, dtype=np.float64).reshape(frames, n_channels)
    except ValueError:
        motion = None
    if motion is None or not np.all(np.isfinite(motion)):
        _raise_first_bad_value(rows, row_lines, path)
    return frames, frame_time, motion, warnings


def _header(lines: list[str], i: int, label: str, path) -> tuple[int, str, int]:
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines):
        raise BvhError(path, len(lines), f"file ends where '{label}' was expected")
    text = lines[i].strip()
    # "Frame Time:" may be written with any run of spaces or tabs between its words.
    head = " ".join(text.split())
    if not head.lower().startswith(label.lower()):
        raise BvhError(path, i + 1, f"expected '{label}', found '{text[:40]}'")
    return i + 1, head[len(label):].strip(), i + 1


def _raise_first_bad_value(rows, row_lines, path) -> None:
    for words, no in zip(rows, row_lines):
        for k, w in enumerate(words):
            try:
                v = float(w)
            except ValueError:
                raise BvhError(path, no, f"value {k + 1} of the motion row is not a number: '{w}'") from None
            if not np.isfinite(v):
                raise BvhError(path, no, f"value {k + 1} of the motion row is not finite: '{w}'")
    raise AssertionError("unreachable: a bad value was detected but not found")


def _preorder(children: dict[int, list[int]]) -> list[int]:
    order, stack = [], list(reversed(children.get(-1, [])))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children.get(i, [])))
    return order


def format_bvh(raw: RawBvh, digits: int = 10) -> str:
    """BVH text for `raw`; joints must be in depth-first order (each after its parent's subtree starts)."""
    children: dict[int, list[int]] = {}
    for i, j in enumerate(raw.joints):
        children.setdefault(j.parent, []).append(i)
    if _preorder(children) != list(range(len(raw.joints))):
        raise ValueError("BVH joints must be listed depth first: motion columns follow that order")
    fmt = f"{{:.{digits}g}}"
    out = ["HIERARCHY"]

    def num(x: float) -> str:
        s = fmt.format(float(x))
        return "0" if s == "-0" else s

    # An explicit stack, not recursion: a skeleton thousands of joints deep is written as
    # readily as it is read. ("close", depth) entries put each joint's '}' after its subtree.
    stack: list[tuple[int, int]] = [(r, 0) for r in reversed(children.get(-1, []))]
    while stack:
        i, depth = stack.pop()
        if i < 0:
            out.append("\t" * depth + "}")
            continue
        j = raw.joints[i]
        pad = "\t" * depth
        out.append(f"{pad}End Site" if j.end_site else f"{pad}{'ROOT' if j.parent < 0 else 'JOINT'} {j.name}")
        out.append(pad + "{")
        out.append(f"{pad}\tOFFSET " + " ".join(num(v) for v in j.offset))
        if not j.end_site:
            out.append(f"{pad}\tCHANNELS {len(j.channels)}" + "".join(" " + c for c in j.channels))
        stack.append((-1, depth))
        stack.extend((c, depth + 1) for c in reversed(children.get(i, [])))
    out.append("MOTION")
    out.append(f"Frames: {raw.motion.shape[0]}")
    out.append("Frame Time: " + num(raw.frame_time))
    for row in raw.motion:
        out.append(" ".join(num(v) for v in row))
    return "\n".join(out) + "\n"
