"""Outages answer 503 with Retry-After: a friendly page, or the API's JSON error envelope.

The database is a private PostgreSQL cluster this test starts and stops (never the shared
service); Redis a private redis-server. Stopped, the site answers 503; restarted, 200 again.
"""

from __future__ import annotations

import pytest
from redis import Redis

from tests.demo import DEMO_SPLIT
from tests.factories import login, make_team, make_token
from tests.faults import PrivatePostgres, PrivateRedis

PAGES = ["/", "/account/", "/api/v1/leaderboard"]


@pytest.fixture
def private_postgres(app_overrides, tmp_path):
    cluster = PrivatePostgres()
    cluster.start()
    app_overrides["DATABASE_URL"] = cluster.url
    yield cluster
    cluster.remove()


def assert_outage_answer(response, path: str) -> None:
    assert response.status_code == 503, (path, response.get_data(as_text=True)[:500])
    # Ours, also on rate-limited API routes (where Flask-Limiter sets its window's reset).
    assert response.headers["Retry-After"] == "15"
    if path.startswith("/api/"):
        error = response.get_json()["error"]
        assert error["status"] == 503 and error["code"] == "service_unavailable"
        assert "briefly unavailable" in error["message"]
    else:
        page = response.get_data(as_text=True)
        assert response.mimetype == "text/html"
        assert "<h1>Briefly unavailable</h1>" in page
        assert "Nothing you submitted is lost" in page


def test_database_down_answers_503_and_recovers(private_postgres, app, client, session):
    from leaderboard.services.catalog.benchmarks import import_benchmark

    import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                     version="1", split="test", hidden=True, make_default=True)
    team, _user = make_team(session, name="Outage Lab", email="outage@example.org")
    bearer = {"Authorization": f"Bearer {make_token(session, team)}"}
    session.close()
    assert login(client, "outage@example.org").status_code == 302
    for path in PAGES:
        assert client.get(path).status_code == 200, path

    private_postgres.stop("fast")
    for path in PAGES + ["/systems/1", "/teams/1", "/matrix"]:
        assert_outage_answer(client.get(path), path)
    assert_outage_answer(client.get("/api/v1/submissions", headers=bearer), "/api/")
    # A form post too: the login page's answer, not a bare 500.
    assert_outage_answer(client.post("/account/login", data={"email": "x@example.org",
                                                             "password": "wrong pass"}),
                         "/account/login")

    private_postgres.start()
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    assert client.get("/api/v1/submissions", headers=bearer).status_code == 200
    assert "Outage Lab" in client.get("/account/").get_data(as_text=True)


@pytest.fixture
def private_redis(app_overrides, tmp_path):
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    app_overrides["REDIS_URL"] = server.url
    yield server
    server.stop()


def test_redis_down_answers_503_where_a_request_needs_it(private_redis, app, client):
    """Pages that need Redis only when they have it (uploads are queued by the reconciler)
    keep answering; a request that cannot do without it gets 503, not 500."""

    @app.get("/api/v1/_needs_redis")
    def needs_redis():
        Redis.from_url(private_redis.url, socket_connect_timeout=1).ping()
        return {"ok": True}

    @app.get("/_needs_redis")
    def page_needs_redis():
        Redis.from_url(private_redis.url, socket_connect_timeout=1).ping()
        return "ok"

    assert client.get("/api/v1/_needs_redis").status_code == 200
    private_redis.kill()
    assert_outage_answer(client.get("/api/v1/_needs_redis"), "/api/")
    assert_outage_answer(client.get("/_needs_redis"), "/")
    # Rate-limit counters live in Redis too: login is answered, not refused, meanwhile.
    assert client.get("/account/login").status_code == 200
    assert client.get("/").status_code == 200
    private_redis.start()
    assert client.get("/api/v1/_needs_redis").status_code == 200


def test_a_missing_table_is_still_a_500_not_an_outage(app, client):
    """SQLite reports a missing table as OperationalError: that is a bug, not an outage."""
    from sqlalchemy import text

    from leaderboard.db import get_session

    @app.get("/_broken")
    def broken():
        get_session().execute(text("SELECT * FROM no_such_table"))
        return "unreachable"

    app.config["PROPAGATE_EXCEPTIONS"] = False
    response = client.get("/_broken")
    assert response.status_code == 500
    assert "Retry-After" not in response.headers


def _serve_in_thread(app, port: int = 0):
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread


def _submit(url: str, token: str, path, retry_for: float = 60):
    import subprocess

    from tests.jobs import LEADERBOARD_BIN

    return subprocess.Popen([LEADERBOARD_BIN, "submit", str(path), "--url", url, "--token",
                             token, "--name", "patient", "--retry-for", str(retry_for)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_submit_retries_while_the_database_is_down(private_postgres, app, session, tmp_path):

    from sqlmodel import select

    from leaderboard.models import Submission
    from leaderboard.services.catalog.benchmarks import import_benchmark
    from tests.demo import demo_bytes

    import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                     version="1", split="test", hidden=True, make_default=True)
    team, _user = make_team(session, name="Patient Lab", email="patient@example.org")
    token = make_token(session, team)
    session.close()
    file = tmp_path / "run.json"
    file.write_bytes(demo_bytes())
    server, thread = _serve_in_thread(app)
    try:
        private_postgres.stop("fast")
        client = _submit(f"http://127.0.0.1:{server.server_port}", token, file)
        # The first attempt got a 503 (Retry-After 15 s at most); then the database returns.
        assert client.stderr.readline().startswith("HTTP 503; retrying in")
        private_postgres.start()
        out, err = client.communicate(timeout=90)
    finally:
        server.shutdown()
        thread.join(timeout=10)
    assert client.returncode == 0, err
    assert "queued" in out
    rows = session.exec(select(Submission).where(Submission.team_id == team.id)).all()
    assert [row.system_name for row in rows] == ["patient"]


@pytest.mark.usefixtures("benchmark")
def test_submit_retries_until_the_server_listens(app, session, tmp_path):

    from tests.demo import demo_bytes
    from tests.faults import free_port

    token = make_token(session, make_team(session, name="Early Lab")[0])
    file = tmp_path / "run.json"
    file.write_bytes(demo_bytes())
    port = free_port()
    client = _submit(f"http://127.0.0.1:{port}", token, file)
    # Its first attempt failed (nothing listens yet); only then does the server start.
    first = client.stderr.readline()
    assert first.strip() == "cannot reach the server (ConnectionError); retrying in 1 s"
    server, thread = _serve_in_thread(app, port)
    try:
        out, err = client.communicate(timeout=60)
    finally:
        server.shutdown()
        thread.join(timeout=10)
    assert client.returncode == 0, err
    assert "queued" in out


def test_submit_gives_up_after_retry_for(tmp_path):
    from tests.faults import free_port

    file = tmp_path / "run.json"
    file.write_bytes(b"{}")
    client = _submit(f"http://127.0.0.1:{free_port()}", "swl_x", file, retry_for=2)
    out, err = client.communicate(timeout=30)
    assert client.returncode == 1
    assert "cannot reach http://127.0.0.1:" in err
