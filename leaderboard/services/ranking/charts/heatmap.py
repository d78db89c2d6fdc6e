"""The figure of ``/significance``: P(row beats column) as a grid of coloured squares."""

from __future__ import annotations

import bisect
import functools
from typing import Any

from plotly.colors import diverging

from leaderboard.services.ranking.charts import label, layout, title

HEATMAP_GAP = 0.02  # between two cells of the significance grid, in cells: a hairline


def heatmap(table: dict[str, Any]) -> dict[str, Any]:
    """P(row beats column) among the top systems as a grid of touching coloured squares
    (blue: the row system wins, red: it loses, white: even), significant cells marked ✱.

    Cells are rectangles in data units, so they fill the grid at any width (markers have a
    size in pixels and left gaps, or overlapped, as the page's width changed). Not a
    plotly heatmap trace: plotly.js writes inline styles for its image and colour bar,
    which our CSP blocks; the page prints the colour scale below the chart instead."""
    first = table.get("first_rank", 1)  # a window around a system starts lower down
    names = [f"{first + n}. {s['system']}" for n, s in enumerate(table["systems"])]
    n = len(names)
    row = 30 if n <= 10 else 22  # pixels per row; the figure's height follows
    cells = [(i, j) for i in range(n) for j in range(n) if i != j]
    beats = table["p_beats"]
    shapes = [_cell(i, j, _rdbu(min(1.0, max(0.0, beats[i][j])))) for i, j in cells]
    shapes += [_cell(k, k, "#e9ecef") for k in range(n)]
    data: list[dict[str, Any]] = [{
        "type": "scatter", "x": [j for _, j in cells], "y": [i for i, _ in cells],
        "mode": "markers", "marker": {"symbol": "square", "size": row, "opacity": 0},  # hover
        "text": [f"P({names[i]} beats {names[j]})" for i, j in cells],
        "customdata": [beats[i][j] for i, j in cells], "showlegend": False,
        "hovertemplate": "%{text} = %{customdata:.3f}<extra></extra>"}]
    marks = [(j, i) for i, line in enumerate(table["significant"])
             for j, sig in enumerate(line) if sig]
    if marks:
        data.append({"type": "scatter", "x": [x for x, _ in marks], "y": [y for _, y in marks],
                     "mode": "text", "text": ["✱"] * len(marks), "hoverinfo": "skip",
                     "showlegend": False, "textfont": {"size": 11, "color": "#ffffff"}})
    ticks = {"tickmode": "array", "tickvals": list(range(n)), "ticktext": names,
             "showgrid": False, "zeroline": False, "automargin": True}
    return {"data": data, "layout": layout(
        title(f"P(row beats column) · {label(table['metric'])}",
              "blue: row wins · red: row loses · ✱ significant"),
        height=max(360, 230 + row * n), shapes=shapes,
        yaxis={"autorange": False, **ticks, "range": [n - 0.5, -0.5]},
        xaxis={"tickangle": -60, **ticks, "range": [-0.5, n - 0.5]})}


def _cell(i: int, j: int, colour: str) -> dict[str, Any]:
    half = 0.5 - HEATMAP_GAP
    return {"type": "rect", "xref": "x", "yref": "y", "x0": j - half, "x1": j + half,
            "y0": i - half, "y1": i + half, "line": {"width": 0}, "fillcolor": colour,
            "layer": "below"}


def _rdbu(value: float) -> str:
    """The colour of P = ``value`` on plotly's RdBu scale as ``sample_colorscale("RdBu",
    [value])`` writes it (the same interpolation between the same stops, rounded half to
    even): plotly's own function parses and validates the whole scale at each call, and a
    grid asks for a colour per cell."""
    positions, colours = _rdbu_stops()
    high = bisect.bisect_left(positions, value)
    low = high - 1
    between = (value - positions[low]) / (positions[high] - positions[low])
    red, green, blue = (round((a + between * (b - a)) * 255.0)
                        for a, b in zip(colours[low], colours[high], strict=True))
    return f"rgb({red}, {green}, {blue})"


@functools.cache
def _rdbu_stops() -> tuple[list[float], list[tuple[float, ...]]]:
    """RdBu's stop positions and colours (0-1), as plotly's sampling reads them (its own
    reader would import plotly's figure validators into a web process)."""
    stops = diverging.RdBu  # "rgb(103,0,31)", ...
    return ([k * (1.0 / (len(stops) - 1)) for k in range(len(stops))],
            [tuple(int(c) / 255.0 for c in s[4:-1].split(",")) for s in stops])
