"""plotly.js served from the installed ``plotly`` package: no CDN, works offline."""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from importlib import resources

from flask import Response, request
from markupsafe import Markup, escape

from leaderboard.scoring.printing import shown
from leaderboard.web.public.blueprint import bp

ONE_YEAR = 365 * 24 * 3600


@lru_cache(maxsize=1)
def _plotly_js() -> bytes:
    return resources.files("plotly").joinpath("package_data", "plotly.min.js").read_bytes()


_RULE = re.compile(r'"([^"]+)":(?:\'([^\']*)\'|"([^"]*)")')


@lru_cache(maxsize=1)
def _plotly_css() -> bytes:
    """plotly.js's own style rules as a stylesheet.

    plotly.js normally injects them into a ``<style>`` element at run time, which our strict
    Content-Security-Policy (``style-src 'self'``) forbids. The rules sit in the bundle as
    one object literal starting with ``"X,X div"``; selectors use X for the plot container
    and Y for the notifier, as in plotly.js's ``src/css/_plotcss.js``.
    """
    js = _plotly_js().decode("utf-8", "replace")
    start = js.find('"X,X div":')
    end = js.find("}", js.find('"Y .notifier-close:hover"', start))
    rules = []
    for selector, single, double in _RULE.findall(js[start:end + 1]):
        css_selector = (selector.replace("X", ".js-plotly-plot .plotly")
                        .replace("Y", ".plotly-notifier"))
        rules.append(f"{css_selector}{{{single or double}}}")
    return ("/* generated from the installed plotly.js */\n" + "\n".join(rules)).encode()


@lru_cache(maxsize=1)
def plotly_style_ids() -> tuple[str, ...]:
    """Ids of the ``<style>`` elements plotly.js creates at load time unless an element with
    that id exists (the map library's CSS; we draw no maps): the page puts empty markers."""
    js = _plotly_js().decode("utf-8", "replace")
    pattern = r'getElementById\("([0-9a-f]{32,64})"\)\)\{var \w+=document\.createElement\("style"\)'
    return tuple(dict.fromkeys(re.findall(pattern, js)))


@lru_cache(maxsize=4)
def _gzipped(name: str) -> bytes:
    """A vendor file compressed once per process (plotly.min.js is large and compresses to
    well under half)."""
    body = _plotly_js() if name == "js" else _plotly_css()
    return gzip.compress(body, 9, mtime=0)


def warm() -> None:
    """Make now what the first page with a chart would make in a web process: the gzipped
    plotly.js (compressing it at level 9 would hold every other reader of the process for
    its first request), its style rules and the ids of its style elements."""
    _gzipped("js")
    _gzipped("css")
    plotly_style_ids()


def _long_cached(name: str, body: bytes, mimetype: str) -> Response:
    """``body`` with year-long cache headers, gzipped when the client accepts it."""
    import plotly

    compressed = "gzip" in request.headers.get("Accept-Encoding", "").lower()
    response = Response(_gzipped(name) if compressed else body, mimetype=mimetype)
    if compressed:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    response.set_etag(plotly.__version__ + ("-gz" if compressed else ""))
    return response.make_conditional(request)


@bp.get("/static/vendor/plotly.css")
def plotly_css():
    """plotly.js's style rules as a file (CSP forbids the ``<style>`` it would inject)."""
    return _long_cached("css", _plotly_css(), "text/css")


@bp.get("/static/vendor/plotly.min.js")
def plotly_js():
    """plotly.min.js with long cache headers (the URL carries the version), gzipped for
    every browser (they all send Accept-Encoding: gzip)."""
    return _long_cached("js", _plotly_js(), "text/javascript")


@bp.get("/favicon.ico")
def favicon():
    """The site icon (browsers ask for /favicon.ico whatever the page says)."""
    from flask import current_app, send_from_directory

    response = send_from_directory(current_app.static_folder, "favicon.ico",
                                   mimetype="image/vnd.microsoft.icon", max_age=86400)
    return response


@bp.app_context_processor
def template_helpers() -> dict[str, object]:
    """The plotly version (cache-busting query string on the script URL) and cell renderers."""
    import plotly

    from leaderboard.scoring.version import SCORER_VERSION
    from leaderboard.web.public.common import board_bar, board_nav, shown_board_has_pos
    from leaderboard.web.public.render import (
        cell_html,
        matrix_rows_html,
        reported_rows_html,
        rows_html,
    )

    return {"plotly_version": plotly.__version__, "plotly_style_ids": plotly_style_ids,
            "cell_html": cell_html, "rows_html": rows_html, "matrix_rows_html": matrix_rows_html,
            "inputs_url": inputs_url,
            "reported_rows_html": reported_rows_html,
            "board_nav": board_nav, "board_bar": board_bar, "scorer_version": SCORER_VERSION,
            "shown_board_has_pos": shown_board_has_pos}


def inputs_url() -> str | None:
    """Download URL of the shown split's inputs (contexts, targets, candidates; no labels),
    or None before any benchmark is imported."""
    from flask import url_for

    from leaderboard.web.public.common import shown_benchmark

    bench = shown_benchmark()
    if bench is None:
        return None
    return url_for("downloads.split_inputs", name=bench.name, version=bench.version,
                   split=bench.split)


@bp.app_template_filter("metric_html")
def metric_html(label: str) -> Markup:
    """'F_c^10 strict' as F<sub>c</sub><sup>10</sup> strict (labels are our own constants)."""
    text = str(escape(label))
    text = re.sub(r"_(\w)\^(\d+)", r"<sub>\1</sub><sup>\2</sup>", text)
    return Markup(re.sub(r"\^(\d+)", r"<sup>\1</sup>", text))


bp.app_template_filter("score")(shown)   # a score as its family's script prints it


@bp.app_template_filter("metric_text")
def metric_text(label: str) -> str:
    """'F_c^10 strict' as 'Fc¹⁰ strict', for places that take no markup (select options)."""
    return str(label).replace("_c", "c").replace("^10", "¹⁰")
