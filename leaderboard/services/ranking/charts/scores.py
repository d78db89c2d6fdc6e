"""The figures of ``/charts``: the precision-recall scatter and the dot plot of one metric."""

from __future__ import annotations

from typing import Any

from leaderboard.services.ranking.charts import (
    error_bars,
    errors,
    label,
    layout,
    line_at,
    line_label,
    title,
)
from leaderboard.services.ranking.set_apart import is_apart

LABELLED_TOP = 8
SHORT_NAME = 22  # characters of a y-axis system name: longer ones overflow a phone
ISO_F = (10, 20, 30, 40, 50, 60, 70, 80)
ISO_MARGIN = 40  # pixels right of the precision-recall plot, for the iso-F labels
_REF_SYMBOLS = {"human": "star", "oracle": "diamond"}


def _point_trace(entries: list[dict[str, Any]], px: str, py: str, name: str,
                 symbol: str, size: int) -> dict[str, Any] | None:
    xs, ys, ex, ey, labels = [], [], [], [], []
    for e in entries:
        x, y = e["metrics"].get(px), e["metrics"].get(py)
        if x is None or y is None:
            continue
        ex.append(errors(x, e["intervals"].get(px)))
        ey.append(errors(y, e["intervals"].get(py)))
        xs.append(x)
        ys.append(y)
        labels.append(e["label"])
    if not xs:
        return None
    return {"type": "scatter", "x": xs, "y": ys, "mode": "markers", "name": name,
            "text": labels, "marker": {"symbol": symbol, "size": size},
            "error_x": error_bars(ex), "error_y": error_bars(ey),
            "hovertemplate": "%{text}<br>R %{x:.1f}<br>P %{y:.1f}<extra></extra>"}


def _iso_f(limit: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Dotted curves of constant F (P = F·R / (2R − F)) and their labels, in the right
    margin where each meets the plot's edge: off the plot, so never on a system's name or
    marker."""
    traces, labels = [], []
    for f in ISO_F:
        rs = [f / 2 + (limit - f / 2) * i / 60 for i in range(1, 61)]
        pts = [(r, f * r / (2 * r - f)) for r in rs if 2 * r - f > 0]
        pts = [(r, p) for r, p in pts if p <= limit]
        if not pts:
            continue
        traces.append({"type": "scatter", "x": [r for r, _ in pts], "y": [p for _, p in pts],
                       "mode": "lines", "line": {"color": "#c4cbd3", "width": 1, "dash": "dot"},
                       "hoverinfo": "skip", "showlegend": False})
        # named so that a phone-width chart can keep every other one (static/js/charts.js)
        labels.append({"x": 1, "xref": "paper", "xanchor": "left", "xshift": 3,
                       "y": pts[-1][1], "yref": "y", "text": f"F={f}", "showarrow": False,
                       "font": {"size": 9, "color": "#8a939e"}, "name": "iso-f"})
    return traces, labels


def _named_top(systems: list[dict[str, Any]], references: list[dict[str, Any]], px: str,
               py: str, pf: str) -> list[dict[str, Any]]:
    """The best systems on F whose names the scatter prints, skipping a name that would sit
    on a name already drawn or on a reference marker (within 3 points of either)."""
    ranked = sorted((e for e in systems if pf in e["metrics"] and px in e["metrics"]
                     and py in e["metrics"]), key=lambda e: -e["metrics"][pf])
    taken = [(r["metrics"][px], r["metrics"][py]) for r in references
             if r["metrics"].get(px) is not None and r["metrics"].get(py) is not None]
    top: list[dict[str, Any]] = []
    for e in ranked:
        x, y = e["metrics"][px], e["metrics"][py]
        if all(abs(x - tx) + abs(y - ty) > 3 for tx, ty in taken):
            top.append(e)
            taken.append((x, y))
        if len(top) == LABELLED_TOP:
            break
    return top


def precision_recall(data: dict[str, Any], mode: str = "strict", ref: str = "a") -> dict[str, Any]:
    """Precision vs recall at 10 of every public system and reference row, with 95% bars,
    iso-F curves and the names of the top systems on F."""
    px, py, pf = f"{mode}_{ref}_r@10", f"{mode}_{ref}_p@10", f"{mode}_{ref}_f@10"
    systems = [{"metrics": s["metrics"], "intervals": s["intervals"],
                "label": f"{s['system']} ({s['team']})", "name": s["system"]}
               for s in data.get("systems", [])]
    references = data.get("references", [])
    values = [v for e in systems + references
              for v in (e["metrics"].get(px), e["metrics"].get(py)) if v is not None]
    traces, iso_labels = _iso_f(min(100.0, max([*values, 10.0]) * 1.1))
    traces.append(_point_trace(systems, px, py, "Systems", "circle", 9))
    top = _named_top(systems, references, px, py, pf)
    if top:
        # Names drawn above the points, in a trace of their own so reference markers
        # (drawn later, larger) cannot hide a system's label.
        traces.append({
            "type": "scatter", "x": [e["metrics"][px] for e in top],
            "y": [e["metrics"][py] for e in top], "mode": "text",
            "text": [e["name"] for e in top],
            # Names lean away from the nearer edge so they are not cut off on a phone.
            "textposition": ["top left" if e["metrics"][px] > 60 else "top right"
                             for e in top],
            "textfont": {"size": 11}, "hoverinfo": "skip", "showlegend": False})
    for r in references:
        name = r["name"] + (" (subset)" if r.get("subset") else "")
        entry = {"metrics": r["metrics"], "intervals": r["intervals"], "label": name}
        traces.append(_point_trace([entry], px, py, name,
                                   _REF_SYMBOLS.get(r["kind"], "square"), 13))
    ref_name = "acceptable" if ref == "a" else "conceivable"
    figure = layout(title("Precision vs recall at 10", f"{mode}, {ref_name} gold · dotted: "
                          "equal F"), xaxis={"title": {"text": f"Recall@10 ({mode})"}},
                    yaxis={"title": {"text": f"Precision@10 ({mode})"}}, annotations=iso_labels)
    figure["margin"]["r"] = ISO_MARGIN
    return {"data": [t for t in traces if t is not None], "layout": figure}


def score_dots(data: dict[str, Any], metric: str, top: int = 30) -> dict[str, Any]:
    """Labelled dot plot of one metric: the top systems best first with 95% bars, reference
    rows as labelled dashed lines."""
    name = label(metric)
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
    errs = [errors(s["metrics"][metric], s["intervals"].get(metric)) for s in systems]
    # Rows by index, not by name: two names cut to the same label stay two rows.
    rows = list(range(len(systems)))
    traces = [{"type": "scatter", "x": xs[:ranked], "y": rows[:ranked], "mode": "markers",
               "name": "Systems", "marker": {"size": 9}, "text": names[:ranked],
               "error_x": error_bars(errs[:ranked]),
               "hovertemplate": "%{text}: %{x:.1f}<extra></extra>"}]
    if len(systems) > ranked:
        traces.append({
            "type": "scatter", "x": xs[ranked:], "y": rows[ranked:], "mode": "markers",
            "marker": {"size": 9, "symbol": "x", "color": "#8a939e"},
            "name": "Set apart: repeats answers (not ranked)", "text": names[ranked:],
            "hovertemplate": "%{text}: %{x:.1f}, set apart: repeats answers the scorer "
                             "credits each time<extra></extra>"})
        labels[ranked:] = [f"{t}<br>(set apart)" for t in labels[ranked:]]
    refs = sorted((r for r in data.get("references", []) if r["metrics"].get(metric) is not None),
                  key=lambda r: r["metrics"][metric])
    # Reference lines often sit close together: neighbours alternate top and bottom, and
    # the names of the lower half run left of their line, the upper half right, so the
    # labels spread apart instead of piling up between the lines.
    places = [("top" if n % 2 == 0 else "bottom") + (" left" if 2 * n < len(refs) - 1
                                                    else " right") for n in range(len(refs))]
    shown = f"top {ranked}" if len(data.get("systems", [])) > len(systems) else "all"
    lines = sum(t.count("<br>") + 1 for t in labels)
    sub = "95% interval bars" + (" · × set apart: repeats answers"  # fits 390 px
                                 if len(systems) > ranked else "")
    return {"data": traces, "layout": layout(
        title(f"{name}: {shown} systems", sub), xaxis={"title": {"text": f"{name} (%)"}},
        showlegend=False, height=150 + 14 * lines + 10 * len(systems),
        yaxis={"autorange": "reversed", "automargin": True, "tickmode": "array",
               "tickvals": rows, "ticktext": labels, "zeroline": False},
        shapes=[line_at("x", r["metrics"][metric], "dash", "#8a939e") for r in refs],
        annotations=[line_label("x", r["metrics"][metric], r["name"], place)
                     for r, place in zip(refs, places, strict=True)])}


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
