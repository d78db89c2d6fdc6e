"""A web process compiles its page templates before it serves (``wsgi.py``)."""

from __future__ import annotations

from leaderboard import compile_templates
from leaderboard.config import PROJECT_ROOT


def test_every_page_template_is_compiled_at_start(app):
    pages = sorted(str(p.relative_to(PROJECT_ROOT / "templates"))
                   for p in (PROJECT_ROOT / "templates").rglob("*.html"))
    assert compile_templates(app) == len(pages) > 40
    cached = {key[1] for key in app.jinja_env.cache}
    assert set(pages) <= cached   # a request finds each one compiled


def test_a_web_process_makes_the_charts_template_and_colour_scale_at_start():
    """wsgi.py calls charts.warm(): what the first significance chart would otherwise make
    (plotly's template, RdBu's stops, a system chart's layout) is there before the first request."""
    from leaderboard.services.ranking import charts

    charts._TEMPLATE.clear()
    charts._rdbu_stops.cache_clear()
    charts._pos_bars_layout.cache_clear()
    assert (PROJECT_ROOT / "wsgi.py").read_text().count("charts.warm()") == 1
    charts.warm()
    assert charts._TEMPLATE and charts._TEMPLATE[0]["layout"]["font"]
    assert charts._rdbu_stops.cache_info().currsize == 1
    assert charts._pos_bars_layout.cache_info().currsize == 1
