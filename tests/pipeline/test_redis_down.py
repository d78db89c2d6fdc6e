"""An upload while Redis is unreachable: stored, answered as usual, enqueued by the reconciler."""

from __future__ import annotations

import io
import logging

import pytest
from redis import Redis

from leaderboard.models import Submission
from leaderboard.services.intake.reconcile import reconcile
from leaderboard.worker import jobs
from tests.backends import ALL_REDIS
from tests.demo import demo_bytes
from tests.jobs import drain
from tests.pipeline.test_web import form_data, logged_in

CLOSED_PORT_REDIS = "redis://127.0.0.1:1/0"


@pytest.fixture
def redis_down(app_overrides, redis_url):
    """The app's REDIS_URL points at a closed port; returns the live Redis URL for later.

    Request it before ``app``: the app reads its settings when it is built.
    """
    app_overrides["REDIS_URL"] = CLOSED_PORT_REDIS
    return redis_url


def live_connection(app, url: str) -> Redis:
    from leaderboard.infra.redis_conn import connect_redis

    return connect_redis(url, app.config["LEADERBOARD"]["INSTANCE_PATH"])


def reconcile_and_work(app, session, conn: Redis) -> None:
    settings = app.config["LEADERBOARD"]
    report = reconcile(session=session, connection=conn, queue_name=settings["QUEUE_NAME"],
                       settings=settings, grace_seconds=0)
    assert len(report.requeued) == 1
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    drain(conn, settings)


@ALL_REDIS
def test_api_upload_while_redis_is_down_answers_202_and_reconcile_scores_it(
        redis_down, app, client, session, benchmark, team_token, caplog):
    _team, _user, token = team_token
    with caplog.at_level(logging.WARNING, logger="leaderboard.infra.queue"):
        response = client.post("/api/v1/submissions",
                               headers={"Authorization": f"Bearer {token}"},
                               data={"name": "outage",
                                     "file": (io.BytesIO(demo_bytes()), "r.json")})
    assert response.status_code == 202, response.get_data(as_text=True)
    body = response.get_json()
    assert body["status"] == "queued"
    assert f"could not enqueue submission {body['id']} (Redis unreachable)" in caplog.text
    session.expire_all()
    assert session.get(Submission, body["id"]).status == "queued"
    reconcile_and_work(app, session, live_connection(app, redis_down))
    session.expire_all()
    assert session.get(Submission, body["id"]).status == "scored"


def test_form_upload_while_redis_is_down_redirects_and_reconcile_scores_it(
        redis_down, app, client, session, benchmark):
    logged_in(client, session)
    response = client.post("/account/submit", data=form_data(client, demo_bytes()))
    assert response.status_code == 303
    sid = int(response.headers["Location"].rsplit("/", 1)[1])
    assert session.get(Submission, sid).status == "queued"
    reconcile_and_work(app, session, live_connection(app, redis_down))
    session.expire_all()
    assert session.get(Submission, sid).status == "scored"
