"""The look-at solve (look_at.py) for one frame, on plain Python floats.

The rig solves a look_at chain on every frame a target is dragged: a neck and a head under
half a dozen ancestors. For that few joints a numpy call (~1 us) costs more than the
arithmetic it does, and the array form makes some forty of them (plus a scipy matrix to
quaternion conversion), so a live frame stays in floats here, with quaternions for world
rotations. The steps are look_at.solve_look_at's, one for one (read its docstring for why
they are swings and how the cone is placed); a property test holds the two forms together.
"""
from __future__ import annotations

from math import atan2, cos, pi, sin, sqrt

from ..scalar_quat import IDENTITY, TINY, cross, dot, norm, qconj, qmul, qnormalize, qrot


def look_at_floats(
    parents,
    idx: list[int],
    rest: list,
    rot: list,
    trans: list,
    target,
    shares: list[float],
    fwd,
    up,
    max_angle: float,
    max_twist: float | None = None,
    blend: float = 1.0,
) -> tuple[list, tuple, tuple]:
    """Aim joint idx[-1]'s unit `fwd` (its local frame) at `target`, the turn spread over
    the joints `idx` (root-ward first, each an ancestor of the next) by `shares` (summing
    to 1), inside a cone of `max_angle` radians around the forward the head has with the
    idx joints at their `rest` local rotations (one per idx joint); `max_twist` radians
    limits the head's roll about its forward away from level (None: free).

    parents: each joint's parent index (-1 for a root); rot, trans: every joint's local
    rotation (x, y, z, w) and offset, as tuples of floats. Arguments are taken as checked
    (solve_look_at and the rig's chain settings check them).

    Returns the new local rotations of the idx joints, and the head's world position and
    world forward after the turn."""
    head = idx[-1]
    path = [head]
    while parents[path[-1]] >= 0:
        path.append(parents[path[-1]])
    path.reverse()
    at = {j: k for k, j in enumerate(path)}

    # World rotations and positions along the path, updated in place by each turn.
    q = rot[path[0]]
    p = trans[path[0]]
    world, pos = [q], [p]
    for j in path[1:]:
        p = _add(p, qrot(q, trans[j]))
        q = qmul(q, rot[j])
        world.append(q)
        pos.append(p)
    ref_fwd = qrot(world[-1], fwd)
    ref_up = qrot(world[-1], up)

    # The cone's axis: the look-at joints at rest, everything else as posed.
    k0 = at[idx[0]]
    q = world[k0 - 1] if k0 > 0 else IDENTITY
    rest_of = dict(zip(idx, rest))
    for j in path[k0:]:
        q = qmul(q, rest_of.get(j, rot[j]))
    cone_axis = qrot(q, fwd)

    left = [0.0] * len(shares)
    acc = 0.0
    for k in range(len(shares) - 1, -1, -1):
        acc += shares[k]
        left[k] = acc
    last = max(k for k, w in enumerate(shares) if w > 0.0)
    turned = set()
    for k, (j, w) in enumerate(zip(idx, shares)):
        if w <= 0.0:
            continue
        frac = 1.0 if k == last else w / left[k]
        cur_fwd = qrot(world[-1], fwd)
        offset = _sub(target, pos[-1])
        if norm(offset) <= TINY:
            offset = cur_fwd  # a target on the head gives no direction: keep looking ahead
        aim = qrot(_swing(cone_axis, offset, 1.0, max_angle), cone_axis)
        if blend < 1.0:
            aim = qrot(_swing(ref_fwd, aim, blend, pi), ref_fwd)
        _turn_at(at[j], world, pos, _swing(cur_fwd, aim, frac, pi))
        turned.add(at[j])

    if max_twist is not None:
        new_fwd = qrot(world[-1], fwd)
        roll = head_roll_floats(ref_up, new_fwd, qrot(world[-1], up))
        _turn_at(len(path) - 1, world, pos, _about(new_fwd, min(max(roll, -max_twist), max_twist) - roll))
        turned.add(len(path) - 1)

    local = []
    for j in idx:
        k = at[j]
        if k not in turned:
            local.append(rot[j])
        elif k == 0:
            local.append(qnormalize(world[0]))
        else:
            local.append(qnormalize(qmul(qconj(world[k - 1]), world[k])))
    return local, pos[-1], qrot(world[-1], fwd)


def head_roll_floats(ref_up, fwd, up) -> float:
    """look_at.head_roll for one frame: the head's signed roll (radians) about `fwd` away
    from level (`ref_up` made perpendicular to fwd); 0 where level is undefined."""
    d = dot(ref_up, fwd)
    level = (ref_up[0] - fwd[0] * d, ref_up[1] - fwd[1] * d, ref_up[2] - fwd[2] * d)
    if norm(level) <= 1e-9:
        return 0.0
    d = dot(up, fwd)
    b = (up[0] - fwd[0] * d, up[1] - fwd[1] * d, up[2] - fwd[2] * d)
    return atan2(dot(cross(level, b), fwd), dot(level, b))


def ray_miss(head, fwd, target) -> float:
    """Distance (metres) from `target` to the ray from `head` along unit `fwd`; behind the
    head, the ray's nearest point is the head itself."""
    to = _sub(target, head)
    along = dot(to, fwd)
    if along <= 0.0:
        return norm(to)
    return norm((to[0] - along * fwd[0], to[1] - along * fwd[1], to[2] - along * fwd[2]))


def _turn_at(k: int, world: list, pos: list, turn) -> None:
    """Turn path joint k by world rotation `turn` about its own position; the joints below follow."""
    pk = pos[k]
    for m in range(k, len(world)):
        world[m] = qmul(turn, world[m])
        if m > k:
            pos[m] = _add(pk, qrot(turn, _sub(pos[m], pk)))


def _swing(a, b, frac: float, max_angle: float):
    """The rotation turning unit direction a toward direction b along the shortest arc, by
    `frac` of the angle between them after capping it at `max_angle` (look_at._swing)."""
    nb = norm(b)
    b = (b[0] / nb, b[1] / nb, b[2] / nb)
    axis = cross(a, b)
    s = norm(axis)
    c = dot(a, b)
    if s <= TINY:
        # Opposite (or equal) directions: a fixed perpendicular, as quat_between picks.
        axis = cross(a, (1.0, 0.0, 0.0) if abs(a[0]) < 0.9 else (0.0, 1.0, 0.0))
    return _about(axis, min(atan2(s, c), max_angle) * frac)


def _about(axis, angle: float):
    """The rotation by `angle` radians about `axis` (any length; none: no turn)."""
    n = norm(axis)
    if n <= TINY:
        return IDENTITY
    s = sin(0.5 * angle) / n
    return (axis[0] * s, axis[1] * s, axis[2] * s, cos(0.5 * angle))


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def unit(v) -> tuple[float, float, float]:
    n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    return (v[0] / n, v[1] / n, v[2] / n)
