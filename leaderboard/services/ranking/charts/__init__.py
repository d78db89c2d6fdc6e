"""Plotly figures of the public site, one module per page, for ``static/js/charts.js``.

Each figure is a plain dict in plotly's JSON figure schema (``data`` and ``layout``, the
keys plotly's ``to_plotly_json()`` writes), serialised once by :func:`to_json`: plotly's
figure objects would validate every property, costing a page many times what the dict
does. Figures carry only public aggregates: point estimates, 95% intervals and per-POS
aggregates. No Flask here.
"""

from __future__ import annotations

import functools
import html
import json
from importlib import resources
from typing import Any

import msgspec

from leaderboard.services.ranking.metric_info import LABELS


def layout(title: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """The layout every chart shares (font, margins, legend below the plot) with ``fields``."""
    return {"title": title, "margin": {"l": 55, "r": 15, "t": 70, "b": 60},
            "font": {"family": "system-ui, sans-serif", "size": 13},
            "legend": {"orientation": "h", "y": -0.2}, **fields}


def title(text: str, sub: str = "") -> dict[str, Any]:
    """A title that fits a phone: left-aligned, the detail on a second, smaller line."""
    full = text + (f"<br>{sub}" if sub else "")
    return {"text": full, "x": 0.01, "xanchor": "left", "font": {"size": 15}}


def label(key: str) -> str:
    """A metric's label for chart text: 'F_c^10' as 'Fc¹⁰' (plotly's <sup> would write an
    inline style, which our CSP blocks)."""
    return LABELS.get(key, key).replace("_c", "c").replace("^10", "¹⁰")


def errors(value: float, interval: list[float] | None) -> tuple[float, float]:
    """The (up, down) lengths of ``value``'s 95% interval bar, none below zero."""
    if not interval:
        return 0.0, 0.0
    return max(interval[1] - value, 0.0), max(value - interval[0], 0.0)


def error_bars(errs: list[tuple[float, float]]) -> dict[str, Any]:
    """Interval bars of a trace from its :func:`errors`."""
    return {"type": "data", "array": [e[0] for e in errs], "arrayminus": [e[1] for e in errs],
            "thickness": 1}


def line_at(axis: str, value: float, dash: str, colour: str) -> dict[str, Any]:
    """A line across the plot at ``value`` on ``axis`` (``"x"``: a vertical line), the shape
    plotly's ``add_vline``/``add_hline`` write."""
    other = "y" if axis == "x" else "x"
    return {"type": "line", "line": {"color": colour, "dash": dash}, f"{axis}0": value,
            f"{axis}1": value, f"{axis}ref": axis, f"{other}0": 0, f"{other}1": 1,
            f"{other}ref": f"{other} domain"}


def line_label(axis: str, value: float, text: str, place: str) -> dict[str, Any]:
    """The name of a :func:`line_at` line at ``place`` ("top left", "bottom right", ...),
    where ``add_vline``/``add_hline`` put it: beside a vertical line, on a horizontal one."""
    top, left = place.startswith("top"), place.endswith("left")
    if axis == "x":
        where = {"x": value, "xref": "x", "xanchor": "right" if left else "left",
                 "y": 1 if top else 0, "yref": "y domain", "yanchor": "top" if top else "bottom"}
    else:
        where = {"x": 0 if left else 1, "xref": "x domain", "xanchor": "left" if left else "right",
                 "y": value, "yref": "y", "yanchor": "bottom" if top else "top"}
    return {"text": text, "showarrow": False, "font": {"size": 10}, **where}


@functools.cache
def _template() -> dict[str, Any]:
    """plotly.py's ``plotly_white`` template (white plot, light grid, its colours), read as
    plotly writes it into a figure: plotly.js knows no templates by name."""
    path = resources.files("plotly").joinpath("package_data", "templates", "plotly_white.json")
    return json.loads(path.read_text())


#: Fields plotly draws as its subset of HTML (``<a href>``, ``<b>``, entities): trace text,
#: hover text, legend names and category values, axis tick labels and categories, and
#: annotations. Team, system and reference names go there; titles are our own and keep
#: their markup (``<br>``).
_TRACE_TEXT = ("text", "hovertext", "name", "x", "y")
_AXIS_TEXT = ("ticktext", "categoryarray")


def _escaped(value: Any) -> Any:
    """Strings in ``value`` with ``&``, ``<`` and ``>`` as entities (plotly shows them as
    typed); numbers and dates unchanged."""
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
    """``figure`` with every text field plotly renders as markup escaped: the one place
    user strings are made safe for a chart (a system named ``<a href=...>x</a>`` would
    otherwise be a live link in the heatmap's tick labels). Escaped once, after names are
    cut, so no entity is cut in half."""
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
    """A copy of ``value`` (plotly JSON) with every float rounded. Leaves are handled in
    place, not by a call each: a heatmap has a shape of eight numbers per cell."""
    if isinstance(value, float):
        return round(value, decimals)
    if isinstance(value, dict):
        return {k: round(v, decimals) if type(v) is float else v if type(v) in _LEAVES
                else round_numbers(v, decimals) for k, v in value.items()}
    if isinstance(value, list):
        return [round(v, decimals) if type(v) is float else v if type(v) in _LEAVES
                else round_numbers(v, decimals) for v in value]
    return value


_LEAVES = {str, int, bool, type(None)}


def to_json(figure: dict[str, Any]) -> str:
    """``figure`` as the page embeds it: its numbers rounded (:func:`round_numbers`; axis
    ranges and shapes derive from scores too), plotly's white template added, user text
    escaped (:func:`escape_text`), and safe inside a ``<script type=application/json>``.

    Written by msgspec, a fraction of ``json.dumps``' CPU (a heatmap is large: every cell is
    a shape and a hover text)."""
    figure = round_numbers(figure)
    figure["layout"]["template"] = _template()
    text = msgspec.json.encode(escape_text(figure)).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
