"""A glTF file's animations: listing them (for a dialog or `--list-animations`) and picking one.

Listing reads only each animation's key times, never its values or the skeleton, so a file
with many long clips lists in the time it takes to read the file.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from .gltf_data import GltfDocument, GltfError

# At most this many names in an error message; a file can hold hundreds of clips.
MAX_NAMES_LISTED = 30


@dataclass(frozen=True)
class AnimationInfo:
    index: int
    name: str  # the file's name for it, or "" when it has none
    duration: float  # seconds from the first key to the last (0 for one key or no channels)
    channels: int  # every channel, morph weights and nodes outside any skin included

    @property
    def label(self) -> str:
        """The name, or `animations[i]` for an unnamed one (what GltfImport.animation says)."""
        return self.name or f"animations[{self.index}]"

    def describe(self) -> str:
        return f"{self.label} ({self.duration:.2f} s, {self.channels} channel{'' if self.channels == 1 else 's'})"


def list_animations(path: str | os.PathLike | GltfDocument) -> list[AnimationInfo]:
    """The file's animations in file order. Raises GltfError naming the file and the field."""
    doc = path if isinstance(path, GltfDocument) else GltfDocument(path)
    try:
        return [_info(doc, a) for a in range(len(doc.gltf.animations or []))]
    except GltfError:
        raise
    except (TypeError, AttributeError, KeyError, IndexError, ValueError) as e:
        raise doc.error("animations", f"malformed animation data ({type(e).__name__}: {e})") from None


def _info(doc: GltfDocument, a: int) -> AnimationInfo:
    anim = doc.gltf.animations[a]
    name = anim.name if isinstance(anim.name, str) else ""
    samplers = anim.samplers or []
    used = set()
    for c, ch in enumerate(anim.channels or []):
        if not isinstance(ch.sampler, int) or not 0 <= ch.sampler < len(samplers):
            raise doc.error(f"animations[{a}].channels[{c}].sampler", f"no sampler {ch.sampler}")
        used.add(ch.sampler)
    starts, ends = [], []
    for s in sorted(used):
        times = doc.accessor(samplers[s].input)[:, 0]
        if len(times):
            starts.append(float(times.min()))
            ends.append(float(times.max()))
    duration = max(ends) - min(starts) if starts else 0.0
    return AnimationInfo(a, name, duration, len(anim.channels or []))


def pick_animation(doc: GltfDocument, animation: int | str | None) -> int | None:
    """The index of the animation asked for, or None for no clip.

    An int is an index. A string is a name (exact, the first of that name), or else an index
    written as digits ("2"), as it comes from a command line. None asks for no animation.
    0 in a file without animations is no clip, not an error: it is the default.
    """
    anims = doc.gltf.animations or []
    if animation is None:
        return None
    if isinstance(animation, bool) or not isinstance(animation, (int, str)):
        raise doc.error(None, f"animation must be a name or an index, got {animation!r}")
    if isinstance(animation, str):
        named = [i for i, an in enumerate(anims) if an.name == animation]
        if named:
            return named[0]
        if not _is_number(animation):
            raise doc.error("animations", f"no animation named {animation!r}; {_listing(doc)}")
        animation = int(animation.strip())
    if animation == 0 and not anims:
        return None
    if not 0 <= animation < len(anims):
        raise doc.error("animations", f"has no animation {animation} (counting from 0); {_listing(doc)}")
    return animation


def _is_number(text: str) -> bool:
    digits = text.strip()
    return digits.isascii() and digits.isdigit()  # "²" is a digit to Python, not to int()


def _listing(doc: GltfDocument) -> str:
    anims = doc.gltf.animations or []
    if not anims:
        return "the file has no animations"
    labels = [repr(an.name) if isinstance(an.name, str) and an.name else f"animations[{i}] (unnamed)" for i, an in enumerate(anims)]
    more = len(labels) - MAX_NAMES_LISTED
    shown = ", ".join(labels[:MAX_NAMES_LISTED]) + (f" and {more} more" if more > 0 else "")
    return f"the file's {len(anims)} animation{'' if len(anims) == 1 else 's'}: {shown}"
