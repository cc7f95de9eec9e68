"""The report's plotly figures, each returned as an HTML <div> without plotly.js (page.py
inlines the library once per file, so the page opens offline)."""
from __future__ import annotations

import json
import math
from functools import lru_cache

import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from rigedit.core.quality import METRICS

CONFIG = {"displaylogo": False, "responsive": True}
FOOT_COLOURS = {"left": "#1f77b4", "right": "#d62728"}


def div(fig: go.Figure) -> str:
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, config=CONFIG)


def histograms(summaries: list[dict]) -> str:
    """One histogram a measure over the clips that have it."""
    shown = [(k, label) for k, label, _ in METRICS if any(s.get(k) is not None for s in summaries)]
    cols = 3
    rows = max(1, math.ceil(len(shown) / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[label for _, label in shown])
    for i, (key, label) in enumerate(shown):
        values = [s[key] for s in summaries if s.get(key) is not None]
        fig.add_trace(go.Histogram(x=values, name=label, showlegend=False, marker_color="#4c72b0"), row=i // cols + 1, col=i % cols + 1)
    fig.update_layout(height=230 * rows, margin=dict(t=40, b=20, l=40, r=20), bargap=0.05)
    return div(fig)


@lru_cache(maxsize=8)
def _timeline_layout(titles: tuple[str, ...]) -> str:
    """The four stacked panels' layout as JSON text (built once: plotly's checked figure
    objects cost ~0.1 s a clip, the page's largest cost on a library)."""
    fig = make_subplots(rows=len(titles), cols=1, shared_xaxes=True, subplot_titles=list(titles), vertical_spacing=0.06)
    fig.update_xaxes(title_text="seconds", row=len(titles), col=1)
    fig.update_layout(height=820, margin=dict(t=40, b=40, l=50, r=20), legend=dict(orientation="h", y=-0.08))
    return json.dumps(fig.layout.to_plotly_json())


def _line(row: int, x, y, name: str, **style) -> dict:
    """A scatter trace on panel `row` as plain data (the axes make_subplots names x, x2...)."""
    axis = "" if row == 1 else str(row)
    return {"type": "scatter", "x": x, "y": y, "name": name, "xaxis": f"x{axis}", "yaxis": f"y{axis}", "mode": "lines", **style}


def _band(t, mask, top, name, colour) -> dict:
    """A 0/1 mask over time as a shaded band up to `top` (contact spans) on the first panel."""
    return _line(1, t, [top if m else 0 for m in mask], name, line={"width": 0, "shape": "hv"}, fill="tozeroy",
                 fillcolor=colour, hoverinfo="skip")


def clip_timeline(summary: dict, tracks: dict) -> str:
    """A clip's measures over time: foot heights with the grounded / locked bands and the skate
    frames, foot speeds, jerk with its spikes, penetration (and degrees past limits)."""
    t = tracks["time"]
    feet = tracks.get("feet") or {}
    titles = ("foot height (% of height) with grounded / locked bands, skate frames",
              "foot speed (heights/s)", "largest joint jerk (heights/s³), spikes",
              "penetration depth (% of height)" + (", degrees past limits" if "limit_deg" in tracks else ""))
    data = []
    top = max([max(f["height"][tracks["first"]:] or [0]) for f in feet.values()] + [0.01]) * 100
    for side, f in feet.items():
        c = FOOT_COLOURS.get(side, "#555")
        data.append(_band(t, f["grounded"], top, f"{side} grounded", "rgba(120,120,120,0.12)"))
        data.append(_band(t, f["locked"], top * 0.5, f"{side} locked", "rgba(44,160,44,0.25)"))
        data.append(_line(1, t, [100 * h for h in f["height"]], f"{side} foot", line={"color": c}))
        data.append(_line(2, t, f["speed"], f"{side} speed", line={"color": c}, showlegend=False))
    if "skating" in tracks:
        sk = [t[i] for i, m in enumerate(tracks["skating"]) if m]
        data.append(_line(1, sk, [0] * len(sk), "skate frames", mode="markers",
                          marker={"symbol": "line-ns-open", "size": 10, "color": "#ff7f0e"}))
    data.append(_line(3, t, tracks["jerk"], "jerk", line={"color": "#555"}))
    data.append(_line(3, [t[0], t[-1]], [tracks["jerk_threshold"]] * 2, "spike threshold", line={"color": "#999", "dash": "dot"}))
    spikes = tracks["spikes"]
    data.append(_line(3, [t[i] for i in spikes], [tracks["jerk"][i] for i in spikes], "jerk spikes", mode="markers",
                      marker={"color": "#d62728", "size": 8}))
    for key, name, colour in (("ground_depth", "below ground", "#8c564b"), ("self_depth", "inside the body", "#9467bd"),
                              ("mesh_depth", "mesh inside the body", "#17becf")):
        if key in tracks:
            data.append(_line(4, t, [100 * d for d in tracks[key]], name, line={"color": colour}))
    if "limit_deg" in tracks:
        data.append(_line(4, t, tracks["limit_deg"], "degrees past limits", line={"color": "#e377c2", "dash": "dash"}))
    fig = {"data": data, "layout": json.loads(_timeline_layout(titles))}
    return pio.to_html(fig, full_html=False, include_plotlyjs=False, config=CONFIG, validate=False)


def compare_bars(name: str, a: dict, b: dict, labels: tuple[str, str]) -> str:
    """The share measures of A and B side by side."""
    keys = [(k, label) for k, label, kind in METRICS if kind == "share" and (a.get(k) is not None or b.get(k) is not None)]
    fig = go.Figure()
    for side, s in zip(labels, (a, b)):
        fig.add_trace(go.Bar(x=[label for _, label in keys], y=[s.get(k) or 0 for k, _ in keys], name=side))
    fig.update_layout(barmode="group", height=320, title=f"{name}: shares of frames", margin=dict(t=40, b=40, l=40, r=20),
                      yaxis_title="share of frames")
    return div(fig)
