"""A ClipQuality as plain data: the flat numbers of result.py's keys, and the per-frame series
the report plots (lists, JSON-able and cheap to send back from a worker)."""
from __future__ import annotations

from collections import Counter

import numpy as np


def _r(x) -> float:
    """A plain float (JSON-able), at full precision: scripts compare them."""
    return float(x)


def summarize(q) -> dict:
    b = q.body
    out: dict = {
        "frames": b.n_frames, "fps": _r(b.fps), "height_m": _r(b.height), "first_frame": b.first,
        "ground": "y = 0",
    }
    out.update(_feet(q))
    out.update(_penetration(q))
    out.update(_mesh(q))
    j = q.jitter
    out.update({"jitter_mean_jerk_height_per_s3": _r(j.mean_jerk), "jitter_spike_count": len(j.spikes),
                "jitter_spike_frames": list(j.spikes), "jitter_threshold_height_per_s3": _r(j.threshold),
                "jitter_spike_joints": [b.skeleton.names[k] for k in j.spike_joints]})
    lim = q.limits
    out.update({
        "limit_max_deg": None if lim is None else _r(lim.max_deg),
        "limit_seconds": None if lim is None else _r(lim.seconds),
        "limit_share": None if lim is None else _r(lim.share),
        "limit_joints": None if lim is None else [
            {"chain": p.chain, "joint": p.joint, "max_deg": _r(p.max_deg), "seconds": _r(p.seconds)} for p in lim.joints],
    })
    kinds: dict[str, Counter] = {}
    for f in q.lint.findings:
        kinds.setdefault(f.kind, Counter())[f.severity] += 1
    out["lint_findings"] = {k: dict(v) for k, v in sorted(kinds.items())}
    out["lint_findings_total"] = len(q.lint.findings)
    out["lint_errors"] = sum(1 for f in q.lint.findings if f.severity == "error")
    moving = max(b.n_frames - b.first, 1)
    shares = [out["foot_skate_share"], out["ground_penetration_share"], out["self_penetration_frame_share"],
              out["mesh_penetration_frame_share"], out["limit_share"], len(j.spikes) / moving]
    out["fault_share_sum"] = _r(sum(s for s in shares if s is not None))
    out["notes"] = q.notes()
    return out


def _feet(q) -> dict:
    keys = ("foot_skate_share", "foot_contact_share", "grounded_share", "locked_share", "locked_spans",
            "slide_mm", "slide_per_height", "contacts")
    if q.skate is None:
        return dict.fromkeys(keys)
    b, first = q.body, q.body.first
    per = {side: {"grounded_share": _r(c.share(c.grounded, first)), "locked_share": _r(c.share(c.locked, first)),
                  "locked_spans": len(c.spans), "slide_mm": _r(1000 * c.slide)} for side, c in q.contacts.items()}
    cs = list(q.contacts.values())
    slide = sum(c.slide for c in cs)
    return {
        "foot_skate_share": _r(q.skate.share), "foot_contact_share": _r(q.skate.contact_share),
        "grounded_share": _r(np.mean([c.share(c.grounded, first) for c in cs])),
        "locked_share": _r(np.mean([c.share(c.locked, first) for c in cs])),
        "locked_spans": sum(len(c.spans) for c in cs),
        "slide_mm": _r(1000 * slide), "slide_per_height": _r(slide / b.height),
        "contacts": per,
    }


def _penetration(q) -> dict:
    g, s = q.ground, q.self_pen
    if g is None:
        return dict.fromkeys(("ground_penetration_share", "ground_penetration_max_height", "ground_penetration_max_mm",
                              "ground_penetration_frame", "self_penetration_frame_share", "self_penetration_point_share",
                              "self_penetration_max_height", "self_penetration_frame", "self_penetration_parts",
                              "self_penetration_joint"))
    h = q.body.height
    return {
        "ground_penetration_share": _r(g.share), "ground_penetration_max_height": _r(g.deepest),
        "ground_penetration_max_mm": _r(1000 * g.deepest * h), "ground_penetration_frame": g.deepest_frame,
        "self_penetration_frame_share": _r(s.frame_share), "self_penetration_point_share": _r(s.point_share),
        "self_penetration_max_height": _r(s.deepest), "self_penetration_frame": s.deepest_frame,
        "self_penetration_parts": {k: _r(v) for k, v in s.parts.items()},
        "self_penetration_joint": None if s.deepest_joint is None else q.body.skeleton.names[s.deepest_joint],
    }


def _mesh(q) -> dict:
    m = q.mesh_pen
    if m is None:
        return dict.fromkeys(("mesh_penetration_vertex_share", "mesh_penetration_frame_share",
                              "mesh_penetration_max_height", "mesh_penetration_frame", "mesh_limb_vertices",
                              "mesh_penetration_joint"))
    return {"mesh_penetration_vertex_share": _r(m.vertex_share), "mesh_penetration_frame_share": _r(m.frame_share),
            "mesh_penetration_max_height": _r(m.deepest), "mesh_penetration_frame": m.deepest_frame,
            "mesh_limb_vertices": m.limb_vertices,
            "mesh_penetration_joint": None if m.deepest_joint is None else q.body.skeleton.names[m.deepest_joint]}


def _list(a: np.ndarray, digits: int = 5) -> list:
    return np.round(np.asarray(a, dtype=np.float64), digits).tolist()


def tracks_of(q) -> dict:
    """Per-frame series: time (s), per foot its height and speed (heights, heights/s), grounded
    and locked masks, the skate frames, ground and self-penetration depth (heights), the
    largest joint jerk (heights/s^3) and, with limits, degrees past them."""
    b = q.body
    out: dict = {"time": _list(np.arange(b.n_frames) / b.fps, 6), "first": b.first,
                 "jerk": _list(q.jitter.per_frame, 3), "jerk_threshold": q.jitter.threshold, "spikes": list(q.jitter.spikes),
                 "spike_joints": [b.skeleton.names[k] for k in q.jitter.spike_joints]}
    if q.contacts is not None:
        out["feet"] = {side: {"height": _list(c.height), "speed": _list(c.speed), "grounded": c.grounded.astype(int).tolist(),
                              "locked": c.locked.astype(int).tolist()} for side, c in q.contacts.items()}
        out["skating"] = q.skate.skating.astype(int).tolist()
        out["ground_depth"] = _list(q.ground.depth)
        out["self_depth"] = _list(q.self_pen.depth)
    if q.mesh_pen is not None:
        out["mesh_depth"] = _list(q.mesh_pen.depth)
    if q.limits is not None:
        out["limit_deg"] = _list(q.limits.per_frame, 3)
    return out
