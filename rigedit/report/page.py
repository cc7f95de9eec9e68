"""The report as one HTML file: plotly.js inlined once in the head (no network needed), a
library summary first (a table sorted worst first that sorts on any column when its header is
clicked, histograms of each measure), then a section per clip (its numbers, lint findings and
its measures over time). Compare pages put A and B side by side with the change."""
from __future__ import annotations

import html
import json

from plotly.offline import get_plotlyjs

from rigedit.core.quality import HIGHER_IS_BETTER, METRICS

from .plots import clip_timeline, compare_bars, histograms

STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 13px; }
.wide { overflow-x: auto; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
td:first-child, th:first-child { text-align: left; }
.worse { color: #b00; } .better { color: #070; } .note { color: #666; } .error { color: #b00; }
section { border-top: 2px solid #ccc; margin-top: 2em; }
.stills { display: flex; flex-wrap: wrap; gap: 12px; }
.stills figure { margin: 0; max-width: 480px; } .stills img { width: 100%; border: 1px solid #ccc; }
.stills figcaption { font-size: 13px; color: #444; }
"""
# Sorting is a few lines of page script: click a header to sort by it, again to reverse.
SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function (th, col) {
  th.addEventListener('click', function () {
    var body = th.closest('table').tBodies[0], rows = Array.from(body.rows);
    var dir = th.dataset.dir === 'desc' ? 1 : -1; th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
      var nx = parseFloat(x), ny = parseFloat(y);
      if (!isNaN(nx) && !isNaN(ny)) return dir * (nx - ny);
      if (isNaN(nx) !== isNaN(ny)) return isNaN(nx) ? 1 : -1;
      return dir * String(x).localeCompare(String(y));
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""
COLUMNS = [("height_m", "height (m)", "number"), ("frames", "frames", "count"), ("fault_share_sum", "fault shares", "share")] + list(METRICS)


def _e(text) -> str:
    return html.escape(str(text))


def _fmt(value, kind: str) -> str:
    if value is None:
        return "–"
    if kind == "share":
        return f"{100 * value:.1f} %"
    if kind == "count":
        return str(int(value))
    return f"{value:.4g}"


def _cell(value, kind: str, extra: str = "") -> str:
    v = "" if value is None else value
    return f'<td data-v="{_e(v)}"{extra}>{_fmt(value, kind)}</td>'


def document(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{STYLE}</style>"
            f"<script type=\"text/javascript\">{get_plotlyjs()}</script></head>\n<body>\n"
            + "\n".join(body) + f"\n<script>{SORT_JS}</script>\n</body></html>\n")


def library_page(measured: list, failed: list, header: str, stills_note: str = "") -> str:
    """measured: Measured results with summaries (and stills), worst first; failed: results
    with an error; stills_note: why no clip has stills, when none has."""
    summaries = [m.summary for m in measured]
    body = [f"<h1>rigedit report</h1><p>{_e(header)}</p>", _about()]
    if stills_note:
        body.append(f'<p class="error" id="stills-note">{_e(stills_note)}</p>')
    body.append("<h2>Library</h2>" + _library_table(measured))
    if failed:
        body.append("<h3>Not measured</h3><ul>" + "".join(f'<li class="error">{_e(r.name)}: {_e(r.error)}</li>' for r in failed) + "</ul>")
    if len(summaries) >= 3:  # a histogram of one or two clips says nothing the table does not
        body.append("<h2>Histograms</h2>" + histograms(summaries))
    for i, m in enumerate(measured):
        body.append(_clip_section(i, m))
    return document("rigedit report", body)


def _about() -> str:
    return ("<p class=\"note\">Every measure is on the clip's own skeleton, in units of the figure's height (its top joint "
            "above its lowest, standing; the height column). The ground is y = 0. Foot skate: frames in which a foot point "
            "within 5 cm of the foot's floor (for a 1.75 m figure, scaled) moves more than 2.5 cm horizontally over 1/20 s; "
            "contact frames are those with a foot point that low at both ends of the step. Grounded: a foot within 1 % of "
            "the height of its floor; locked: grounded and slower than 0.1 % of the height per 1/30 s frame; slide: travel "
            "over the locked spans. Self-penetration: hand, forearm, shin or foot inside capsules fitted to the torso and "
            "the other leg. Jerk at the file's frame rate. Worst clips first: by the sum of the fault shares.</p>")


def _library_table(measured: list) -> str:
    head = "<tr><th>clip</th>" + "".join(f"<th>{_e(label)}</th>" for _, label, _ in COLUMNS) + "</tr>"
    rows = []
    for i, m in enumerate(measured):
        s = m.summary
        cells = "".join(_cell(s.get(k), kind) for k, _, kind in COLUMNS)
        rows.append(f'<tr><td data-v="{_e(m.name)}"><a href="#clip-{i}">{_e(m.name)}</a></td>{cells}</tr>')
    return f'<div class="wide"><table class="sortable" id="library"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'


def _numbers(s: dict) -> str:
    flat = {k: v for k, v in s.items() if not isinstance(v, (dict, list)) and k != "notes"}
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in flat.items())
    return f"<details><summary>all numbers</summary><table>{rows}</table><pre>{_e(json.dumps({k: v for k, v in s.items() if isinstance(v, (dict, list))}, indent=1))}</pre></details>"


def _clip_section(i: int, m) -> str:
    s = m.summary
    notes = "".join(f'<li class="note">{_e(n)}</li>' for n in s["notes"])
    lint = ", ".join(f"{k}: " + ", ".join(f"{n} {sev}" for sev, n in v.items()) for k, v in s["lint_findings"].items()) or "none"
    feet = "; ".join(f"{side}: {', '.join(j)}" for side, j in m.about.get("feet", {}).items()) or "no feet found"
    return (f'<section id="clip-{i}"><h2>{_e(m.name)}</h2><p>{_e(m.path)}: {s["frames"]} frames at {s["fps"]:.4g} fps; '
            f"height used {s['height_m']:.3f} m; feet {_e(feet)}</p><ul>{notes}</ul><p>lint findings: {_e(lint)}</p>"
            + _stills(m) + _numbers(s) + clip_timeline(s, m.tracks) + "</section>")


def _stills(m) -> str:
    """The clip's stills as PNGs inside the page (data URIs: no file beside it, no network)."""
    figs = "".join(f'<figure class="still" data-frame="{st.frame.frame}"><img alt="{_e(st.caption)}" src="{st.data_uri()}">'
                   f"<figcaption>{_e(st.caption)}</figcaption></figure>" for st in m.stills)
    missing = f'<p class="error">stills: {_e(m.stills_error)}</p>' if m.stills_error else ""
    return (f'<div class="stills">{figs}</div>' if figs else "") + missing


def _change_class(key: str, d) -> str:
    if not d:
        return ""
    return ' class="better"' if (d < 0) != (key in HIGHER_IS_BETTER) else ' class="worse"'


def _changes_table(rows) -> str:
    """One row a pair: each measure's change, sortable (the largest rises first on a click)."""
    head = "<tr><th>clip</th>" + "".join(f"<th>{_e(label)}</th>" for _, label, _ in METRICS) + "</tr>"
    trs = []
    for i, (name, _, _, delta) in enumerate(rows):
        cells = "".join(_cell(delta.get(k), kind, _change_class(k, delta.get(k))) for k, _, kind in METRICS)
        trs.append(f'<tr><td data-v="{_e(name)}"><a href="#pair-{i}">{_e(name)}</a></td>{cells}</tr>')
    return f'<div class="wide"><table class="sortable" id="changes"><thead>{head}</thead><tbody>{"".join(trs)}</tbody></table></div>'


def compare_page(rows: list[tuple[str, object, object, dict]], unmatched: list[str], labels: tuple[str, str], header: str) -> str:
    """rows: (name, Measured of A, Measured of B, change B - A)."""
    body = [f"<h1>rigedit report: compare</h1><p>{_e(header)}</p>", _about()]
    a_lab, b_lab = (_e(x) for x in labels)
    body.append("<h2>Changes (B - A)</h2>" + _changes_table(rows))
    for i, (name, a, b, delta) in enumerate(rows):
        trs = []
        for key, label, kind in METRICS:
            d = delta.get(key)
            cls = _change_class(key, d)
            trs.append(f"<tr><td>{_e(label)}</td>{_cell(a.summary.get(key), kind)}{_cell(b.summary.get(key), kind)}"
                       f"{_cell(d, kind, cls)}</tr>")
        body.append(f"<section id=\"pair-{i}\"><h2>{_e(name)}</h2><p>A: {_e(a.path)} (height {a.summary['height_m']:.3f} m); "
                    f"B: {_e(b.path)} (height {b.summary['height_m']:.3f} m)</p>"
                    f'<table class="sortable compare"><thead><tr><th>measure</th><th>A: {a_lab}</th><th>B: {b_lab}</th>'
                    f"<th>change (B - A)</th></tr></thead><tbody>{''.join(trs)}</tbody></table>"
                    + compare_bars(name, a.summary, b.summary, labels) + "</section>")
    if unmatched:
        body.append("<h3>Not matched</h3><ul>" + "".join(f'<li class="note">{_e(u)}</li>' for u in unmatched) + "</ul>")
    return document("rigedit report: compare", body)
