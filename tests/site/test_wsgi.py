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
