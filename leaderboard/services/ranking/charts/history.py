"""The figure of ``/history``: the best score so far over time."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from leaderboard.services.ranking.charts import label, layout, line_at, line_label, title
from leaderboard.services.ranking.set_apart import is_apart

REPORTED_NAMED = 4  # reported rows named on /history at most (the others by hover)
_REFERENCE_PLACES = ("top left", "bottom right", "top right", "bottom left")


def history(data: dict[str, Any], metric: str) -> dict[str, Any]:
    """Best score so far by submission date (step line with the best system's 95% band),
    every public system as a point, reference rows as dashed lines and a publication's
    reported numbers as dotted ones (they have no submission date here)."""
    name = label(metric)
    every = sorted((s for s in data.get("systems", []) if metric in s["metrics"]),
                   key=lambda s: (s["date"], s["id"]))
    systems = [s for s in every if not is_apart(s, metric)]
    apart = [s for s in every if is_apart(s, metric)]
    steps = _best_so_far(systems, metric)
    traces = _best_traces(systems, metric, steps) if systems else []
    if apart:
        traces.append({
            "type": "scatter", "x": [s["date"][:10] for s in apart],
            "y": [s["metrics"][metric] for s in apart], "mode": "markers",
            "name": "Set apart: repeats answers (never the best)",
            "marker": {"size": 8, "symbol": "x", "color": "#b0b7c0"},
            "text": [f"{s['system']} ({s['team']})" for s in apart],
            "hovertemplate": "%{text}<br>%{x}: %{y:.1f}, set apart: repeats answers the "
                             "scorer credits each time<extra></extra>"})
    refs = [r for r in data.get("references", []) if r["metrics"].get(metric) is not None]
    # Reference rows as dashed lines, their names at the four corners in turn.
    shapes = [line_at("y", r["metrics"][metric], "dash", "#8a939e") for r in refs]
    annotations = [line_label("y", r["metrics"][metric],
                              r["name"] + (" (subset)" if r.get("subset") else ""),
                              _REFERENCE_PLACES[n % 4]) for n, r in enumerate(refs)]
    reported = _reported(data.get("reported", []), metric, refs, steps)
    # "best so far" reads oddly as "Best best R": the metric's own name comes first there.
    heading = (f"{name}: best so far over time" if name.lower().startswith("best")
               else f"Best {name} over time")
    return {"data": traces + reported["traces"], "layout": layout(
        title(heading, "step: best so far · band: its 95% interval"),
        xaxis={"title": {"text": "submission date"}, "ticklabelstandoff": 6,
               **_date_axis([s["date"][:10] for s in every])},
        # The lowest y label kept clear of the first date label at the corner.
        yaxis={"title": {"text": f"{name} (%)"}, "ticklabelstandoff": 6, "automargin": True},
        shapes=shapes + reported["shapes"], annotations=annotations + reported["annotations"])}


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


def _best_traces(systems: list[dict[str, Any]], metric: str,
                 steps: dict[str, list]) -> list[dict[str, Any]]:
    """The band, the step line of the best so far, and every ranked system as a point."""
    dates = steps["dates"]
    return [
        {"type": "scatter", "x": dates, "y": steps["hi"], "mode": "lines",
         "line": {"width": 0, "shape": "hv"}, "hoverinfo": "skip", "showlegend": False},
        {"type": "scatter", "x": dates, "y": steps["lo"], "mode": "lines", "fill": "tonexty",
         "fillcolor": "rgba(10,88,184,.15)", "line": {"width": 0, "shape": "hv"},
         "name": "95% interval of the best", "hoverinfo": "skip"},
        {"type": "scatter", "x": dates, "y": steps["best"], "mode": "lines",
         "name": "Best so far", "line": {"shape": "hv", "width": 2.5, "color": "#0a58b8"},
         "text": steps["names"],
         "hovertemplate": "%{x}: best %{y:.1f} (%{text})<extra></extra>"},
        {"type": "scatter", "x": [s["date"][:10] for s in systems],
         "y": [s["metrics"][metric] for s in systems], "mode": "markers",
         "name": "Public systems", "marker": {"size": 7, "color": "#5b6470"},
         "text": [f"{s['system']} ({s['team']})" for s in systems],
         "hovertemplate": "%{text}<br>%{x}: %{y:.1f}<extra></extra>"}]


def _reported(rows: list[dict[str, Any]], metric: str, refs: list[dict[str, Any]],
              steps: dict[str, list]) -> dict[str, list[dict[str, Any]]]:
    """A publication's reported rows as dotted lines (shapes), the far-apart ones named
    (annotations), and every one by hover at the right end (traces): most lines are not
    named, as their names would pile up; the legend says what the dotted lines are."""
    reported = [r for r in rows if r.get("metrics", {}).get(metric) is not None]
    values = [r["metrics"][metric] for r in reported]
    named = _spaced(values, [r["metrics"][metric] for r in refs], steps["best"])
    end = max(steps["dates"]) if steps["dates"] else str(date.today())
    hover = {"type": "scatter", "x": [end] * len(reported), "y": values, "mode": "markers",
             "name": "Reported, not re-scored (dotted)",
             "marker": {"symbol": "diamond-open", "size": 8, "color": "#b07d2b"},
             "hovertext": [f"{r['name']}: reported, not re-scored" for r in reported],
             "hovertemplate": "%{hovertext}<br>%{y:.1f}<extra></extra>"}
    return {"shapes": [line_at("y", v, "dot", "#b07d2b") for v in values],
            "annotations": [line_label("y", values[n], f"{r['name']} (reported, not "
                                       "re-scored)", "top right")
                            for n, r in enumerate(reported) if n in named],
            "traces": [hover] if reported else []}


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
    axis: dict[str, Any] = {"type": "date", "tickformat": "%Y-%m-%d", "tickangle": 0,
                            "nticks": 4}
    if days:
        first, last = date.fromisoformat(min(days)), date.fromisoformat(max(days))
        if last - first < timedelta(days=1):
            axis["range"] = [str(first - timedelta(days=1)), str(last + timedelta(days=1))]
        if last - first < timedelta(days=3):
            axis["dtick"] = 24 * 3600 * 1000  # one tick a day, never one every few hours
    return axis
