"""Links in templates are built once per process (``template_urls``): kept by endpoint,
values, app root and shown board, so one board's link is never served on another's page."""

from __future__ import annotations

from types import SimpleNamespace

from flask import g, url_for

from leaderboard.web.template_urls import template_url_for


def test_a_kept_link_is_the_one_url_for_builds_in_each_context(app):
    other = SimpleNamespace(slug="semeval07-test", is_default=False)
    default = SimpleNamespace(slug="swords", is_default=True)
    seen = {}
    for root in ("", "/lb"):
        for board in (None, default, other):
            for _ in range(2):   # built, then kept
                with app.test_request_context("/", base_url=f"http://localhost{root}"):
                    if board is not None:
                        g.board = board
                    kept = template_url_for("public.ranking", sort="date", dir=None)
                    assert kept == url_for("public.ranking", sort="date", dir=None)
                    assert template_url_for("public.ranking", leaderboard=None) == url_for(
                        "public.ranking", leaderboard=None)
                    seen[(root, board and board.slug)] = kept
    assert seen[("", None)] == seen[("", "swords")] == "/?sort=date"
    assert seen[("", "semeval07-test")] == "/?sort=date&leaderboard=semeval07-test"
    assert seen[("/lb", "semeval07-test")] == "/lb/?sort=date&leaderboard=semeval07-test"
    with app.test_request_context("/"):
        # Not kept: options (an absolute link) and unhashable values.
        assert template_url_for("public.about", _external=True) == "http://localhost/about"
        assert template_url_for("public.ranking", sort=["a"]) == url_for("public.ranking",
                                                                         sort=["a"])
