"""A web process makes before it serves what its first readers would otherwise pay for
(``wsgi.py`` calls ``leaderboard.web.warmup.warm_web_process``)."""

from __future__ import annotations

import gzip

from leaderboard.config import PROJECT_ROOT
from leaderboard.web.warmup import compile_templates


def test_wsgi_warms_the_process_before_it_serves():
    text = (PROJECT_ROOT / "wsgi.py").read_text()
    assert text.count("warm_web_process(app)") == 1
    assert text.index("warm_web_process(app)") < text.index("gc.freeze()")


def test_every_page_template_is_compiled_at_start(app):
    pages = sorted(str(p.relative_to(PROJECT_ROOT / "templates"))
                   for p in (PROJECT_ROOT / "templates").rglob("*.html"))
    assert compile_templates(app) == len(pages) > 40
    cached = {key[1] for key in app.jinja_env.cache}
    assert set(pages) <= cached   # a request finds each one compiled


def test_plotly_js_is_gzipped_at_start(app, client):
    """The first browser to fetch plotly.js does not wait for it to be gzipped at level 9
    (nor makes every other reader of the process wait)."""
    from leaderboard.web.public import vendor
    from leaderboard.web.warmup import warm_web_process

    vendor._gzipped.cache_clear()
    vendor.plotly_style_ids.cache_clear()
    warm_web_process(app)
    assert vendor._gzipped.cache_info().currsize == 2
    assert vendor.plotly_style_ids.cache_info().currsize == 1
    hits = vendor._gzipped.cache_info().hits
    response = client.get("/static/vendor/plotly.min.js", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "gzip"
    assert vendor._gzipped.cache_info().hits == hits + 1   # served from what the warm-up made
    assert gzip.decompress(response.data) == vendor._plotly_js()


def test_the_warm_up_gets_the_ranking_then_its_first_system_and_team(site_app):
    """Through the app itself, as a reader: the ranking, then the first system and team it
    links to (the top-ranked one), each answered 200; the process then holds the board's
    parsed snapshot before its first reader."""
    from sqlmodel import Session, col, select

    from leaderboard.models import LeaderboardSnapshot
    from leaderboard.services.ranking import snapshot_reader
    from leaderboard.web.warmup import warm_requests

    html = site_app.test_client().get("/").get_data(as_text=True)
    system = html[html.index("/systems/"):].split('"')[0]
    team = html[html.index("/teams/"):].split('"')[0]
    snapshot_reader.clear_caches()
    assert warm_requests(site_app) == [("/", 200), (system, 200), (team, 200)]
    with Session(site_app.extensions["db_engine"]) as session:
        latest = session.exec(select(LeaderboardSnapshot)
                              .order_by(col(LeaderboardSnapshot.id).desc())).first()
    assert [key for key in snapshot_reader._data.values() if key[0][2] == latest.id]
    snapshot_reader.clear_caches()


def test_the_warm_up_stops_at_a_database_it_cannot_read(tmp_path):
    """No tables yet (a web process started before the migrations): the ranking answers
    503 (backend unavailable), the warm-up stops there and the process starts anyway."""
    from leaderboard import create_app
    from leaderboard.web.warmup import warm_requests

    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "x", "REDIS_URL": "",
                      "DATABASE_URL": f"sqlite:///{tmp_path}/empty.db", "LOG_REQUESTS": False})
    assert warm_requests(app) == [("/", 503)]
    app.extensions["db_engine"].dispose()
