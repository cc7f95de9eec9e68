"""Viewport colours (RGBA floats), picked to read on the dark background.

Chain colours avoid red: red means "out of reach" on a target, and it must not be mistaken
for a chain's own colour.
"""
from __future__ import annotations

BACKGROUND = (0.15, 0.16, 0.18, 1.0)
GRID = (0.62, 0.65, 0.70, 0.28)
GRID_AXIS_X = (0.95, 0.3, 0.3, 1.0)
GRID_AXIS_Z = (0.3, 0.55, 1.0, 1.0)
BONE = (0.72, 0.74, 0.78, 1.0)  # bones that belong to no chain
JOINT = (0.92, 0.93, 0.95, 1.0)
OUT_OF_REACH = (1.0, 0.18, 0.15, 1.0)
HOVER_LIFT = 0.35  # how far a hovered handle's colour moves toward white
REACH_SHELL = (0.75, 0.85, 1.0, 0.16)
LIMIT_HINGE = (1.0, 0.85, 0.3, 0.85)
LIMIT_CONE = (0.5, 0.9, 1.0, 0.75)
SELECTED_BONE = (1.0, 1.0, 1.0, 1.0)  # a selected joint's bones (no chain colour is white)
ANCHOR = (0.95, 0.95, 0.98, 0.95)  # a full-body anchor's pin under its target
# Onion skin (issue 25): earlier ghosts warm, later ones cool, as Blender and Maya tint them.
GHOST_BEFORE = (1.0, 0.42, 0.32, 1.0)
GHOST_AFTER = (0.32, 0.78, 1.0, 1.0)
# Motion trails: the path of a joint without a chain colour, and the current frame's mark.
TRAIL = (1.0, 0.88, 0.3, 1.0)
TRAIL_NOW = (1.0, 1.0, 1.0, 1.0)

CHAIN_COLOURS = [
    (1.0, 0.62, 0.15),  # orange
    (0.25, 0.8, 1.0),  # sky
    (0.45, 0.9, 0.35),  # green
    (0.95, 0.45, 0.95),  # pink
    (1.0, 0.9, 0.25),  # yellow
    (0.55, 0.55, 1.0),  # periwinkle
    (0.3, 0.95, 0.75),  # mint
    (0.85, 0.65, 0.45),  # tan
]


def chain_colour(i: int, alpha: float = 1.0) -> tuple[float, float, float, float]:
    r, g, b = CHAIN_COLOURS[i % len(CHAIN_COLOURS)]
    return (r, g, b, alpha)


def mix(a, b, t: float) -> tuple[float, ...]:
    return tuple(x + (y - x) * t for x, y in zip(a, b))


def dimmed(c, t: float = 0.45) -> tuple[float, ...]:
    """A chain colour for chains that are not selected: toward the plain bone grey."""
    return mix(c, BONE, t)[:3] + (c[3] if len(c) > 3 else 1.0,)


def lifted(c, t: float = HOVER_LIFT) -> tuple[float, ...]:
    return mix(c[:3], (1.0, 1.0, 1.0), t) + (c[3] if len(c) > 3 else 1.0,)
