"""Plotly figures of the public site, as JSON for ``static/js/charts.js`` (no Flask here).

Figures carry only public aggregates: point estimates, 95% intervals and per-POS aggregates.
"""

from __future__ import annotations

import base64
import bisect
import functools
import html
import json
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import msgspec
import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import (
    colorscale_to_colors,
    colorscale_to_scale,
    convert_to_RGB_255,
    find_intermediate_color,
    get_colorscale,
    label_rgb,
    sample_colorscale,
    validate_colors,
)

from leaderboard.services.ranking.metric_info import LABELS, POS_VALUES
from leaderboard.services.ranking.set_apart import is_apart

_LAYOUT = dict(template="plotly_white", margin=dict(l=55, r=15, t=70, b=60),
               font=dict(family="system-ui, sans-serif", size=13),
               legend=dict(orientation="h", y=-0.2))
LABELLED_TOP = 8
SHORT_NAME = 22  # characters of a y-axis system name: longer ones overflow a phone
HEATMAP_GAP = 0.02  # between two cells of the significance grid, in cells: a hairline
ISO_F = (10, 20, 30, 40, 50, 60, 70, 80)
ISO_MARGIN = 40  # pixels right of the precision-recall plot, for the iso-F labels


def _label(key: str) -> str:
    """A metric's label for chart text: 'F_c^10' as 'Fc¹⁰' (plotly's <sup> would write an
    inline style, which our CSP blocks)."""
    return LABELS.get(key, key).replace("_c", "c").replace("^10", "¹⁰")


def _title(text: str, sub: str = "") -> dict[str, Any]:
    """A title that fits a phone: left-aligned, the detail on a second, smaller line."""
    full = text + (f"<br>{sub}" if sub else "")
    return dict(text=full, x=0.01, xanchor="left", font=dict(size=15))
_REF_SYMBOLS = {"human": "star", "oracle": "diamond"}


def _errors(value: float, interval: list[float] | None) -> tuple[float, float]:
    if not interval:
        return 0.0, 0.0
    return max(interval[1] - value, 0.0), max(value - interval[0], 0.0)


def _point_trace(entries: list[dict[str, Any]], px: str, py: str, name: str,
                 symbol: str, size: int) -> go.Scatter | None:
    xs, ys, ex, exm, ey, eym, labels = [], [], [], [], [], [], []
    for e in entries:
        x, y = e["metrics"].get(px), e["metrics"].get(py)
        if x is None or y is None:
            continue
        up, down = _errors(x, e["intervals"].get(px))
        ex.append(up)
        exm.append(down)
        up, down = _errors(y, e["intervals"].get(py))
        ey.append(up)
        eym.append(down)
        xs.append(x)
        ys.append(y)
        labels.append(e["label"])
    if not xs:
        return None
    return go.Scatter(
        x=xs, y=ys, mode="markers", name=name, text=labels,
        marker=dict(symbol=symbol, size=size),
        error_x=dict(type="data", array=ex, arrayminus=exm, thickness=1),
        error_y=dict(type="data", array=ey, arrayminus=eym, thickness=1),
        hovertemplate="%{text}<br>R %{x:.1f}<br>P %{y:.1f}<extra></extra>")


def _iso_f(fig: go.Figure, limit: float) -> None:
    """Dotted curves of constant F (P = F·R / (2R − F)), labelled in the right margin where
    each meets the plot's edge: off the plot, so never on a system's name or marker."""
    for f in ISO_F:
        rs = [f / 2 + (limit - f / 2) * i / 60 for i in range(1, 61)]
        pts = [(r, f * r / (2 * r - f)) for r in rs if 2 * r - f > 0]
        pts = [(r, p) for r, p in pts if p <= limit]
        if not pts:
            continue
        fig.add_trace(go.Scatter(x=[r for r, _ in pts], y=[p for _, p in pts], mode="lines",
                                 line=dict(color="#c4cbd3", width=1, dash="dot"),
                                 hoverinfo="skip", showlegend=False))
        _, p = pts[-1]
        # named so that a phone-width chart can keep every other one (static/js/charts.js)
        fig.add_annotation(x=1, xref="paper", xanchor="left", xshift=3, y=p, yref="y",
                           text=f"F={f}", showarrow=False, font=dict(size=9, color="#8a939e"),
                           name="iso-f")


def precision_recall(data: dict[str, Any], mode: str = "strict", ref: str = "a") -> go.Figure:
    """Precision vs recall at 10 of every public system and reference row, with 95% bars,
    iso-F curves and the names of the top systems on F."""
    px, py, pf = f"{mode}_{ref}_r@10", f"{mode}_{ref}_p@10", f"{mode}_{ref}_f@10"
    fig = go.Figure()
    systems = [{"metrics": s["metrics"], "intervals": s["intervals"],
                "label": f"{s['system']} ({s['team']})", "name": s["system"]}
               for s in data.get("systems", [])]
    values = [v for e in systems + data.get("references", [])
              for v in (e["metrics"].get(px), e["metrics"].get(py)) if v is not None]
    _iso_f(fig, min(100.0, max([*values, 10.0]) * 1.1))
    trace = _point_trace(systems, px, py, "Systems", "circle", 9)
    if trace is not None:
        fig.add_trace(trace)
    ranked = sorted((e for e in systems if pf in e["metrics"] and px in e["metrics"]
                     and py in e["metrics"]), key=lambda e: -e["metrics"][pf])
    # Skip a name that would sit on a name already drawn or on a reference marker (within
    # 3 points of either).
    taken = [(r["metrics"][px], r["metrics"][py]) for r in data.get("references", [])
             if r["metrics"].get(px) is not None and r["metrics"].get(py) is not None]
    top: list[dict[str, Any]] = []
    for e in ranked:
        x, y = e["metrics"][px], e["metrics"][py]
        if all(abs(x - tx) + abs(y - ty) > 3 for tx, ty in taken):
            top.append(e)
            taken.append((x, y))
        if len(top) == LABELLED_TOP:
            break
    if top:
        # Names drawn above the points, in a trace of their own so reference markers
        # (drawn later, larger) cannot hide a system's label.
        fig.add_trace(go.Scatter(
            x=[e["metrics"][px] for e in top], y=[e["metrics"][py] for e in top],
            mode="text", text=[e["name"] for e in top],
            # Names lean away from the nearer edge so they are not cut off on a phone.
            textposition=["top left" if e["metrics"][px] > 60 else "top right" for e in top],
            textfont=dict(size=11), hoverinfo="skip", showlegend=False))
    for r in data.get("references", []):
        label = r["name"] + (" (subset)" if r.get("subset") else "")
        entry = {"metrics": r["metrics"], "intervals": r["intervals"], "label": label}
        trace = _point_trace([entry], px, py, label, _REF_SYMBOLS.get(r["kind"], "square"), 13)
        if trace is not None:
            fig.add_trace(trace)
    ref_name = "acceptable" if ref == "a" else "conceivable"
    fig.update_layout(title=_title("Precision vs recall at 10",
                                   f"{mode}, {ref_name} gold · dotted: equal F"),
                      xaxis_title=f"Recall@10 ({mode})", yaxis_title=f"Precision@10 ({mode})",
                      **{**_LAYOUT, "margin": {**_LAYOUT["margin"], "r": ISO_MARGIN}})
    return fig


def _pos_series(detail: dict[str, Any], keys: list[str]) -> Iterator[tuple[
        str, list[str], list[float], list[tuple[float, float]]]]:
    """(POS, metrics shown, values, interval errors) of each bar group of a system's chart:
    all, then each POS the result has a block of."""
    for pos in ("ALL", *POS_VALUES):
        if pos == "ALL":
            metrics, intervals = detail["metrics"], detail["intervals"]
        else:
            block = detail["by_pos"].get(pos)
            if not block:
                continue
            metrics, intervals = block.get("metrics", {}), block.get("intervals", {})
        shown = [k for k in keys if k in metrics]
        yield (pos, shown, [metrics[k] for k in shown],
               [_errors(metrics[k], intervals.get(k)) for k in shown])


def pos_bars(detail: dict[str, Any], keys: list[str]) -> go.Figure:
    """One system: the given metrics grouped by POS, with 95% interval bars."""
    fig = go.Figure()
    for pos, shown, values, errs in _pos_series(detail, keys):
        fig.add_trace(go.Bar(
            name=pos, x=[_label(k) for k in shown], y=values,
            error_y=dict(type="data", array=[e[0] for e in errs],
                         arrayminus=[e[1] for e in errs], thickness=1),
            hovertemplate=f"{pos} · %{{x}}: %{{y:.1f}}<extra></extra>"))
    fig.update_layout(barmode="group", title=_title("Metrics by part of speech",
                                                    "95% interval bars"),
                      yaxis_title="score (%)", **_LAYOUT)
    return fig


def pos_bars_json(detail: dict[str, Any], keys: list[str]) -> str:
    """``to_json(pos_bars(detail, keys))``, the same text, written without plotly's figure
    objects, whose validation and template deep copies a ranker would pay for every system
    of a board's first prepare, so that a large board's first prepare would take minutes.
    ``tests/site/test_charts.py`` compares the two."""
    data = [{"error_y": {"array": [e[0] for e in errs], "arrayminus": [e[1] for e in errs],
                         "thickness": 1, "type": "data"},
             "hovertemplate": f"{pos} · %{{x}}: %{{y:.1f}}<extra></extra>",
             "name": pos, "x": [_label(k) for k in shown], "y": values, "type": "bar"}
            for pos, shown, values, errs in _pos_series(detail, keys)]
    layout = dict(_pos_bars_layout())
    template = layout.pop("template")
    figure = round_numbers({"data": data, "layout": layout})
    figure["layout"]["template"] = template
    return _dumps(figure)


@functools.cache
def _pos_bars_layout() -> dict[str, Any]:
    """:func:`pos_bars`'s layout as plotly writes it (the same for every system)."""
    return json.loads(pos_bars({"metrics": {}, "intervals": {}, "by_pos": {}}, []).to_json())[
        "layout"]


def score_dots(data: dict[str, Any], metric: str, top: int = 30) -> go.Figure:
    """Labelled dot plot of one metric: the top systems best first with 95% bars, reference
    rows as labelled dashed lines."""
    label = _label(metric)
    every = sorted((s for s in data.get("systems", []) if metric in s["metrics"]),
                   key=lambda s: -s["metrics"][metric])
    # set apart (repeated answers inflate this metric): their own rows below the ranked ones
    systems = [s for s in every if not is_apart(s, metric)][:top]
    ranked = len(systems)
    systems += [s for s in every if is_apart(s, metric)]
    names = [f"{s['system']} ({s['team']})" for s in systems]
    # The name wrapped, the team on a line of its own: nothing cut on a phone.
    labels = [_wrapped(s["system"]) + "<br>" + _short(s["team"]) for s in systems]
    xs = [s["metrics"][metric] for s in systems]
    errs = [_errors(s["metrics"][metric], s["intervals"].get(metric)) for s in systems]
    # Rows by index, not by name: two names cut to the same label stay two rows.
    rows = list(range(len(systems)))
    fig = go.Figure(go.Scatter(
        x=xs[:ranked], y=rows[:ranked], mode="markers", name="Systems", marker=dict(size=9),
        text=names[:ranked],
        error_x=dict(type="data", array=[e[0] for e in errs[:ranked]],
                     arrayminus=[e[1] for e in errs[:ranked]], thickness=1),
        hovertemplate="%{text}: %{x:.1f}<extra></extra>"))
    if len(systems) > ranked:
        fig.add_trace(go.Scatter(
            x=xs[ranked:], y=rows[ranked:], mode="markers", marker=dict(size=9, symbol="x",
                                                                         color="#8a939e"),
            name="Set apart: repeats answers (not ranked)", text=names[ranked:],
            hovertemplate="%{text}: %{x:.1f}, set apart: repeats answers the scorer "
                          "credits each time<extra></extra>"))
        labels[ranked:] = [f"{t}<br>(set apart)" for t in labels[ranked:]]
    refs = sorted((r for r in data.get("references", []) if r["metrics"].get(metric) is not None),
                  key=lambda r: r["metrics"][metric])
    for n, r in enumerate(refs):
        # Reference lines often sit close together: neighbours alternate top and bottom, and
        # the names of the lower half run left of their line, the upper half right, so the
        # labels spread apart instead of piling up between the lines.
        place = ("top" if n % 2 == 0 else "bottom") + (" left" if 2 * n < len(refs) - 1
                                                      else " right")
        fig.add_vline(x=r["metrics"][metric], line_dash="dash", line_color="#8a939e",
                      annotation_text=r["name"], annotation_position=place,
                      annotation_font_size=10)
    shown = f"top {ranked}" if len(data.get("systems", [])) > len(systems) else "all"
    lines = sum(label.count("<br>") + 1 for label in labels)
    sub = "95% interval bars" + (" · × set apart: repeats answers"  # fits 390 px
                                 if len(systems) > ranked else "")
    fig.update_layout(title=_title(f"{label}: {shown} systems", sub),
                      xaxis_title=f"{label} (%)", showlegend=False,
                      height=150 + 14 * lines + 10 * len(systems), **_LAYOUT)
    fig.update_yaxes(autorange="reversed", automargin=True, tickmode="array", tickvals=rows,
                     ticktext=labels, zeroline=False)
    return fig


def _wrapped(name: str, width: int = SHORT_NAME, lines: int = 3) -> str:
    """``name`` in lines of at most ``width`` characters (broken at spaces where it can),
    at most ``lines`` of them, the last cut with an ellipsis (the hover text keeps it)."""
    out: list[str] = []
    for word in name.split():
        while len(word) > width:  # a word longer than a line: hard break
            out.append(word[:width])
            word = word[width:]
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    if len(out) > lines:
        out = out[:lines - 1] + [_short(" ".join(out[lines - 1:]), width)]
    return "<br>".join(out)


def _short(name: str, limit: int = SHORT_NAME) -> str:
    """``name`` cut to ``limit`` characters with an ellipsis (the hover text keeps it whole)."""
    return name if len(name) <= limit else name[:limit - 1].rstrip() + "…"


def history(data: dict[str, Any], metric: str) -> go.Figure:
    """Best score so far by submission date (step line with the best system's 95% band),
    every public system as a point, reference rows as dashed lines and a publication's
    reported numbers as dotted ones (they have no submission date here)."""
    label = _label(metric)
    every = sorted((s for s in data.get("systems", []) if metric in s["metrics"]),
                   key=lambda s: (s["date"], s["id"]))
    systems = [s for s in every if not is_apart(s, metric)]
    apart = [s for s in every if is_apart(s, metric)]
    fig = go.Figure()
    steps = _best_so_far(systems, metric)
    if systems:
        _add_best_traces(fig, systems, metric, steps)
    if apart:
        fig.add_trace(go.Scatter(
            x=[s["date"][:10] for s in apart], y=[s["metrics"][metric] for s in apart],
            mode="markers", name="Set apart: repeats answers (never the best)",
            marker=dict(size=8, symbol="x", color="#b0b7c0"),
            text=[f"{s['system']} ({s['team']})" for s in apart],
            hovertemplate="%{text}<br>%{x}: %{y:.1f}, set apart: repeats answers the "
                          "scorer credits each time<extra></extra>"))
    refs = [r for r in data.get("references", []) if r["metrics"].get(metric) is not None]
    _add_reference_lines(fig, refs, metric)
    _add_reported_lines(fig, data.get("reported", []), metric, refs, steps)
    # "best so far" reads oddly as "Best best R": the metric's own name comes first there.
    heading = (f"{label}: best so far over time" if label.lower().startswith("best")
               else f"Best {label} over time")
    fig.update_layout(title=_title(heading, "step: best so far · band: its "
                                   "95% interval"),
                      xaxis_title="submission date", yaxis_title=f"{label} (%)", **_LAYOUT)
    fig.update_xaxes(**_date_axis([s["date"][:10] for s in every]), ticklabelstandoff=6)
    # The lowest y label kept clear of the first date label at the corner.
    fig.update_yaxes(ticklabelstandoff=6, automargin=True)
    return fig


def _best_so_far(systems: list[dict[str, Any]], metric: str) -> dict[str, list]:
    """The step line's points: per system in date order, the best so far, its 95% interval
    (lo, hi) and its name."""
    dates, best, lo, hi, names = [], [], [], [], []
    current: dict[str, Any] | None = None
    for s in systems:
        if current is None or s["metrics"][metric] > current["metrics"][metric]:
            current = s
        interval = current["intervals"].get(metric) or [current["metrics"][metric]] * 2
        dates.append(s["date"][:10])
        best.append(current["metrics"][metric])
        lo.append(interval[0])
        hi.append(interval[1])
        names.append(current["system"])
    if dates and min(dates) == max(dates):
        # All on one day: a step line of one x has no length. Carry the best to the next
        # day (the axis shows the day before and after), so the line and band are drawn.
        dates.append(str(date.fromisoformat(dates[-1]) + timedelta(days=1)))
        best.append(best[-1])
        lo.append(lo[-1])
        hi.append(hi[-1])
        names.append(names[-1])
    return {"dates": dates, "best": best, "lo": lo, "hi": hi, "names": names}


def _add_best_traces(fig: go.Figure, systems: list[dict[str, Any]], metric: str,
                     steps: dict[str, list]) -> None:
    """The band, the step line of the best so far, and every ranked system as a point."""
    dates = steps["dates"]
    fig.add_trace(go.Scatter(x=dates, y=steps["hi"], mode="lines",
                             line=dict(width=0, shape="hv"), hoverinfo="skip",
                             showlegend=False))
    fig.add_trace(go.Scatter(x=dates, y=steps["lo"], mode="lines", fill="tonexty",
                             fillcolor="rgba(10,88,184,.15)",
                             line=dict(width=0, shape="hv"), name="95% interval of the best",
                             hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=dates, y=steps["best"], mode="lines", name="Best so far",
                             line=dict(shape="hv", width=2.5, color="#0a58b8"),
                             text=steps["names"],
                             hovertemplate="%{x}: best %{y:.1f} (%{text})<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[s["date"][:10] for s in systems], y=[s["metrics"][metric] for s in systems],
        mode="markers", name="Public systems", marker=dict(size=7, color="#5b6470"),
        text=[f"{s['system']} ({s['team']})" for s in systems],
        hovertemplate="%{text}<br>%{x}: %{y:.1f}<extra></extra>"))


def _add_reference_lines(fig: go.Figure, refs: list[dict[str, Any]], metric: str) -> None:
    """Reference rows as dashed lines, their names at the four corners in turn."""
    places = ("top left", "bottom right", "top right", "bottom left")
    for n, r in enumerate(refs):
        fig.add_hline(y=r["metrics"][metric], line_dash="dash", line_color="#8a939e",
                      annotation_text=r["name"] + (" (subset)" if r.get("subset") else ""),
                      annotation_position=places[n % 4], annotation_font_size=10)


def _add_reported_lines(fig: go.Figure, rows: list[dict[str, Any]], metric: str,
                        refs: list[dict[str, Any]], steps: dict[str, list]) -> None:
    """A publication's reported rows as dotted lines, the far-apart ones named."""
    reported = [r for r in rows if r.get("metrics", {}).get(metric) is not None]
    values = [r["metrics"][metric] for r in reported]
    named = _spaced(values, [r["metrics"][metric] for r in refs], steps["best"])
    for n, r in enumerate(reported):
        fig.add_hline(y=values[n], line_dash="dot", line_color="#b07d2b",
                      **(dict(annotation_text=f"{r['name']} (reported, not re-scored)",
                              annotation_position="top right", annotation_font_size=10)
                         if n in named else {}))
    if reported:
        # Every reported row by hover at the right end (most lines are not named, their
        # names would pile up), and the legend saying what the dotted lines are.
        end = max(steps["dates"]) if steps["dates"] else str(date.today())
        fig.add_trace(go.Scatter(
            x=[end] * len(reported), y=values, mode="markers",
            name="Reported, not re-scored (dotted)",
            marker=dict(symbol="diamond-open", size=8, color="#b07d2b"),
            hovertext=[f"{r['name']}: reported, not re-scored" for r in reported],
            hovertemplate="%{hovertext}<br>%{y:.1f}<extra></extra>"))


REPORTED_NAMED = 4  # reported rows named on /history at most (the others by hover)


def _spaced(values: list[float], references: list[float], others: list[float]) -> set[int]:
    """Indexes of ``values`` (reported rows) to name on the history chart: highest first, at
    most :data:`REPORTED_NAMED`, each a tenth of the chart's span from every value named
    before and a sixth from the reference lines (whose names may sit above or below)."""
    span = (max([*values, *references, *others], default=0.0)
            - min([*values, *references, *others], default=0.0)) or 1.0
    named: set[int] = set()
    for n in sorted(range(len(values)), key=lambda n: -values[n]):
        if (len(named) < REPORTED_NAMED
                and all(abs(values[n] - values[m]) > span / 10 for m in named)
                and all(abs(values[n] - v) > span / 6 for v in references)):
            named.add(n)
    return named


def _date_axis(days: list[str]) -> dict[str, Any]:
    """A submission-date x axis readable on a phone: whole days, horizontal labels, few ticks.

    Submissions all on one day would give plotly a sub-millisecond range, labelled in hours:
    such a range is widened to the day before and the day after."""
    axis: dict[str, Any] = dict(type="date", tickformat="%Y-%m-%d", tickangle=0, nticks=4)
    if days:
        first, last = date.fromisoformat(min(days)), date.fromisoformat(max(days))
        if last - first < timedelta(days=1):
            axis["range"] = [str(first - timedelta(days=1)), str(last + timedelta(days=1))]
        if last - first < timedelta(days=3):
            axis["dtick"] = 24 * 3600 * 1000  # one tick a day, never one every few hours
    return axis


def heatmap(table: dict[str, Any]) -> go.Figure:
    """P(row beats column) among the top systems as a grid of touching coloured squares
    (blue: the row system wins, red: it loses, white: even), significant cells marked ✱.

    Cells are rectangles in data units, so they fill the grid at any width (markers have a
    size in pixels and left gaps, or overlapped, as the page's width changed). Not
    ``go.Heatmap``: plotly.js writes inline styles for its image and colour bar, which our
    CSP blocks; the page prints the colour scale below the chart instead."""
    first = table.get("first_rank", 1)  # a window around a system starts lower down
    names = [f"{first + n}. {s['system']}" for n, s in enumerate(table["systems"])]
    n = len(names)
    row = 30 if n <= 10 else 22  # pixels per row; the figure's height follows
    cells = [(i, j) for i in range(n) for j in range(n) if i != j]
    colours = sample_colorscale("RdBu", [min(1.0, max(0.0, table["p_beats"][i][j]))
                                         for i, j in cells]) if cells else []
    half = 0.5 - HEATMAP_GAP
    shapes = [dict(type="rect", xref="x", yref="y", x0=j - half, x1=j + half, y0=i - half,
                   y1=i + half, line=dict(width=0), fillcolor=colour, layer="below")
              for (i, j), colour in zip(cells, colours, strict=True)]
    shapes += [dict(type="rect", xref="x", yref="y", x0=k - half, x1=k + half, y0=k - half,
                    y1=k + half, line=dict(width=0), fillcolor="#e9ecef", layer="below")
               for k in range(n)]
    # Not validated by plotly: checking every rectangle's properties would hold a web
    # process's CPU for each window it draws; they are fixed above (test_charts).
    fig = go.Figure(go.Scatter(
        x=[j for _, j in cells], y=[i for i, _ in cells], mode="markers",
        marker=dict(symbol="square", size=row, opacity=0),  # hover targets only
        text=[f"P({names[i]} beats {names[j]})" for i, j in cells],
        customdata=[table["p_beats"][i][j] for i, j in cells], showlegend=False,
        hovertemplate="%{text} = %{customdata:.3f}<extra></extra>"), _validate=False)
    marks = [(j, i) for i, line in enumerate(table["significant"])
             for j, sig in enumerate(line) if sig]
    if marks:
        fig.add_trace(go.Scatter(x=[x for x, _ in marks], y=[y for _, y in marks],
                                 mode="text", text=["✱"] * len(marks), hoverinfo="skip",
                                 showlegend=False, textfont=dict(size=11, color="#ffffff")))
    fig.update_layout(title=_title(f"P(row beats column) · {_label(table['metric'])}",
                                   "blue: row wins · red: row loses · ✱ significant"),
                      height=max(360, 230 + row * n), shapes=shapes,
                      # unvalidated, the template's name would stay a name plotly.js ignores
                      **{**_LAYOUT, "template": pio.templates[_LAYOUT["template"]]})
    ticks = dict(tickmode="array", tickvals=list(range(n)), ticktext=names, showgrid=False,
                 zeroline=False, automargin=True, range=[-0.5, n - 0.5])
    fig.update_yaxes(autorange=False, **{**ticks, "range": [n - 0.5, -0.5]})
    fig.update_xaxes(tickangle=-60, **ticks)
    return fig


def heatmap_json(table: dict[str, Any]) -> str:
    """``to_json(heatmap(table))``, the same text, written without plotly's figure objects:
    building the figure, then its JSON, through plotly costs a web process many times what
    writing the JSON directly does. ``tests/site/test_charts.py`` compares the
    two on grids with and without significant cells, of 2 to 30 systems, and on names with
    markup."""
    first = table.get("first_rank", 1)
    names = [f"{first + n}. {s['system']}" for n, s in enumerate(table["systems"])]
    n = len(names)
    row = 30 if n <= 10 else 22
    cells = [(i, j) for i in range(n) for j in range(n) if i != j]
    colours = [_rdbu(min(1.0, max(0.0, table["p_beats"][i][j]))) for i, j in cells]
    half = 0.5 - HEATMAP_GAP
    # Every number rounded as :func:`round_numbers` rounds it, here once.
    low = [round(k - half, CHART_DECIMALS) for k in range(n)]
    high = [round(k + half, CHART_DECIMALS) for k in range(n)]
    shapes = [{"type": "rect", "xref": "x", "yref": "y", "x0": low[j], "x1": high[j],
               "y0": low[i], "y1": high[i], "line": {"width": 0}, "fillcolor": colour,
               "layer": "below"} for (i, j), colour in zip(cells, colours, strict=True)]
    shapes += [{"type": "rect", "xref": "x", "yref": "y", "x0": low[k], "x1": high[k],
                "y0": low[k], "y1": high[k], "line": {"width": 0}, "fillcolor": "#e9ecef",
                "layer": "below"} for k in range(n)]
    data: list[dict[str, Any]] = [{
        "customdata": [round(table["p_beats"][i][j], CHART_DECIMALS) for i, j in cells],
        "hovertemplate": "%{text} = %{customdata:.3f}<extra></extra>",
        "marker": {"opacity": 0, "size": row, "symbol": "square"}, "mode": "markers",
        "showlegend": False, "text": [f"P({names[i]} beats {names[j]})" for i, j in cells],
        "x": [j for _, j in cells], "y": [i for i, _ in cells], "type": "scatter"}]
    marks = [(j, i) for i, line in enumerate(table["significant"])
             for j, sig in enumerate(line) if sig]
    if marks:
        data.append({"hoverinfo": "skip", "mode": "text", "showlegend": False,
                     "text": ["✱"] * len(marks),
                     "textfont": {"color": "#ffffff", "size": 11},
                     "x": [x for x, _ in marks], "y": [y for _, y in marks], "type": "scatter"})
    title = _title(f"P(row beats column) · {_label(table['metric'])}",
                   "blue: row wins · red: row loses · ✱ significant")
    ticks = {"tickmode": "array", "tickvals": list(range(n)), "ticktext": names,
             "showgrid": False, "zeroline": False, "automargin": True}
    layout = {"title": {"font": title["font"], "text": title["text"], "x": title["x"],
                        "xanchor": title["xanchor"]},
              "height": max(360, 230 + row * n), "shapes": shapes,
              "margin": _LAYOUT["margin"], "font": _LAYOUT["font"], "legend": _LAYOUT["legend"],
              "yaxis": {"autorange": False, **ticks, "range": [round(n - 0.5, CHART_DECIMALS),
                                                                -0.5]},
              "xaxis": {"tickangle": -60, **ticks, "range": [-0.5, round(n - 0.5,
                                                                          CHART_DECIMALS)]},
              "template": _template_json()}
    return _dumps({"data": data, "layout": layout})


@functools.lru_cache(maxsize=20_000)
def _rdbu(value: float) -> str:
    """The colour of P = ``value`` on plotly's RdBu scale, as ``sample_colorscale("RdBu",
    [value])`` writes it: the same interpolation and rounding, on the scale's stops parsed
    once (plotly parses and validates the whole scale for each call, and a significance
    window asks for one colour per cell). P has 4 decimals: few values, each computed once
    a process."""
    positions, colours = _rdbu_stops()
    high = bisect.bisect_left(positions, value)
    low = high - 1
    between = (value - positions[low]) / (positions[high] - positions[low])
    return label_rgb(convert_to_RGB_255(find_intermediate_color(colours[low], colours[high],
                                                                between)))


@functools.cache
def _rdbu_stops() -> tuple[list[float], list[tuple[float, float, float]]]:
    """RdBu's stop positions and colours (0-1 tuples), as plotly's sampling reads them."""
    scale = get_colorscale("RdBu")
    return colorscale_to_scale(scale), validate_colors(colorscale_to_colors(scale), "tuple")


#: A heatmap's P values have 4 decimals (``pairwise._table``): 10,001 colours in all.
P_STEPS = 10_000


def warm() -> None:
    """Make now what the first charts of a process would make: plotly's layout template
    (plotly's figure modules imported and a figure written), RdBu's colour of every P a
    heatmap shows and a system chart's layout: CPU that a web process pays at start, not a
    reader."""
    _template_json()
    for k in range(P_STEPS + 1):  # every P a heatmap shows, so that the process's first
        _rdbu(k / P_STEPS)        # significance windows do not compute their colours
    _pos_bars_layout()


_TEMPLATE: list[dict[str, Any]] = []


def _template_json() -> dict[str, Any]:
    """The layout template as plotly writes it into a figure's JSON (made once)."""
    if not _TEMPLATE:
        two = {"systems": [{"system": "a"}, {"system": "b"}], "metric": "gap",
               "p_beats": [[0.5, 0.5], [0.5, 0.5]], "significant": [[False] * 2] * 2}
        _TEMPLATE.append(json.loads(heatmap(two).to_json())["layout"]["template"])
    return _TEMPLATE[0]


#: Fields plotly draws as its subset of HTML (``<a href>``, ``<b>``, entities): trace text,
#: hover text, legend names and category values, axis tick labels and categories, and
#: annotations. Team, system and reference names go there; titles are our own and keep
#: their markup (``<br>``).
_TRACE_TEXT = ("text", "hovertext", "name", "x", "y")
_AXIS_TEXT = ("ticktext", "categoryarray")


def _escaped(value: Any) -> Any:
    """Strings in ``value`` with ``&``, ``<`` and ``>`` as entities (plotly shows them as
    typed); numbers, dates and encoded arrays unchanged."""
    if isinstance(value, str):
        return html.escape(value, quote=False)
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    return value


def _unbreak(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("&lt;br&gt;", "<br>")
    if isinstance(value, list):
        return [_unbreak(v) for v in value]
    return value


def escape_text(figure: dict[str, Any]) -> dict[str, Any]:
    """``figure`` (plotly JSON) with every text field plotly renders as markup escaped: the
    one place user strings are made safe for a chart (a system named
    ``<a href=...>x</a>`` would otherwise be a live link in the heatmap's tick labels).
    Escaped once, after names are cut (:func:`_short`), so no entity is cut in half."""
    for trace in figure.get("data", []):
        for key in _TRACE_TEXT:
            if key in trace:
                trace[key] = _escaped(trace[key])
    layout = figure.get("layout", {})
    for annotation in layout.get("annotations", []):
        if "text" in annotation:
            annotation["text"] = _escaped(annotation["text"])
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            for field in _AXIS_TEXT:
                if field in axis:
                    # tick labels may be wrapped by us: <br> is the one tag left to plotly
                    axis[field] = _unbreak(_escaped(axis[field]))
    return figure


#: Decimals of every number a chart carries: what the tables print. Full float64 values in
#: a chart's data helped read hidden labels back.
CHART_DECIMALS = 2


def round_numbers(value: Any, decimals: int = CHART_DECIMALS) -> Any:
    """``value`` (plotly JSON) with every float rounded, typed arrays (``bdata``) included."""
    if isinstance(value, float):
        return round(value, decimals)
    if isinstance(value, list):
        return [round_numbers(v, decimals) for v in value]
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            if "shape" in value:
                array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
            return round_numbers(array.tolist(), decimals)
        return {k: round_numbers(v, decimals) for k, v in value.items()}
    return value


def to_json(fig: go.Figure) -> str:
    """The figure as JSON for the page: its numbers rounded (:func:`round_numbers`),
    user text escaped (:func:`escape_text`), and safe inside a
    ``<script type=application/json>``."""
    figure = json.loads(fig.to_json())
    template = figure.get("layout", {}).pop("template", None)
    figure = round_numbers(figure)   # axis ranges and shapes derive from scores too
    if template is not None:
        figure["layout"]["template"] = template
    return _dumps(figure)


def _dumps(figure: dict[str, Any]) -> str:
    """Plotly JSON as the page embeds it: user text escaped (:func:`escape_text`), and safe
    inside a ``<script type=application/json>``.

    Written by msgspec, a fraction of ``json.dumps``' CPU (a window's heatmap is large: every
    cell is a shape and a hover text). Its text is ``json.dumps``' with
    ``separators=(",", ":"), ensure_ascii=False`` but for numbers under 1e-4 or from 1e16,
    which it writes without an exponent's zero and plus sign (``0.00001``, ``1e16``): the
    same numbers to a JSON reader. Charts print rounded numbers (:func:`round_numbers`)."""
    text = msgspec.json.encode(escape_text(figure)).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
