"""A worker outlives Redis: killed and restarted while jobs finish, it reconnects and goes on.

Redis is a private redis-server without persistence (never the shared service): every
restart comes back empty, as after a crash. Each submission's job is slowed by a large
bootstrap so Redis can be killed while it runs; RQ then fails to record the job's end
(``_finalize_success``), which used to take the worker down with it.
"""

from __future__ import annotations

import json
import time

import pytest
from sqlmodel import select

from leaderboard.models import Result, Submission, SubmissionStatus
from tests.demo import demo_bytes
from tests.faults import PrivateRedis
from tests.jobs import wait_for_status
from tests.pipeline.test_worker import upload

DONE = (SubmissionStatus.SCORED, SubmissionStatus.INVALID, SubmissionStatus.FAILED)
OUTAGES = 5


@pytest.fixture
def private_redis(app_overrides, tmp_path):
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    app_overrides["REDIS_URL"] = server.url
    app_overrides["DAILY_SCORED_QUOTA"] = 50
    yield server
    server.stop()


def variant(index: int) -> bytes:
    """The strong demo run, re-indented: same answers, different bytes (not a duplicate)."""
    return json.dumps(json.loads(demo_bytes()), indent=index + 1).encode()


def test_worker_survives_redis_restarts_mid_job_and_every_submission_ends_once(
        private_redis, app, client, session, benchmark, team_token, start_worker):
    _team, _user, token = team_token
    worker = start_worker(BOOTSTRAP_SAMPLES=60_000, RECONCILE_SECONDS=1.0,
                          HEARTBEAT_STALE_SECONDS=600)
    ids = [upload(client, token, variant(i), name=f"run {i}") for i in range(OUTAGES)]
    for sid in ids:
        # Redis goes away while this job runs; RQ cannot record its end.
        wait_for_status(session, sid, ("running",) + DONE, timeout=120)
        private_redis.kill()
        wait_for_status(session, sid, DONE, timeout=120)
        time.sleep(1.0)  # RQ's finalize has failed by now (the database row came first)
        assert worker.poll() is None, "the worker exited when Redis went away"
        private_redis.start()
    for sid in ids:
        wait_for_status(session, sid, DONE, timeout=180)
    assert worker.poll() is None, "the worker exited after Redis came back"
    session.expire_all()
    rows = session.exec(select(Submission).where(Submission.id.in_(ids))).all()
    assert sorted(row.status for row in rows) == ["scored"] * OUTAGES
    for sid in ids:
        results = session.exec(select(Result).where(Result.submission_id == sid)).all()
        assert len(results) == 1, f"submission {sid} has {len(results)} results"
    # And it still takes new work on the restarted (empty) Redis.
    late = upload(client, token, variant(OUTAGES), name="after the outages")
    assert wait_for_status(session, late, DONE, timeout=120).status == "scored"
    assert worker.poll() is None
