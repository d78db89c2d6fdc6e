"""plotly.js served from the installed ``plotly`` package: no CDN, works offline."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from flask import Response, request
from markupsafe import Markup, escape

from leaderboard.blueprints.public import bp

ONE_YEAR = 365 * 24 * 3600


@lru_cache(maxsize=1)
def _plotly_js() -> bytes:
    return resources.files("plotly").joinpath("package_data", "plotly.min.js").read_bytes()


@bp.get("/static/vendor/plotly.min.js")
def plotly_js():
    """plotly.min.js with long cache headers (the URL carries the version)."""
    import plotly

    response = Response(_plotly_js(), mimetype="text/javascript")
    response.headers["Cache-Control"] = f"public, max-age={ONE_YEAR}, immutable"
    response.set_etag(plotly.__version__)
    return response.make_conditional(request)


@bp.app_context_processor
def template_helpers() -> dict[str, object]:
    """The plotly version (cache-busting query string on the script URL) and cell renderers."""
    import plotly

    from leaderboard.blueprints.public.render import cell_html, rows_html

    return {"plotly_version": plotly.__version__, "cell_html": cell_html, "rows_html": rows_html}


@bp.app_template_filter("metric_html")
def metric_html(label: str) -> Markup:
    """'F_c^10 strict' as F<sub>c</sub><sup>10</sup> strict (labels are our own constants)."""
    text = str(escape(label))
    text = re.sub(r"_(\w)\^(\d+)", r"<sub>\1</sub><sup>\2</sup>", text)
    return Markup(re.sub(r"\^(\d+)", r"<sup>\1</sup>", text))
