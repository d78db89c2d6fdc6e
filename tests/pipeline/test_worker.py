"""Real workers (``leaderboard worker`` subprocesses) on a real Redis: nothing is lost."""

from __future__ import annotations

import io
import json
import signal

from rq import Queue

from leaderboard.commands.score import score_command
from leaderboard.models import SubmissionStatus
from leaderboard.queue import get_redis
from leaderboard.services.reconcile import reconcile
from tests.backends import ALL_REDIS
from tests.factories import make_team, make_token
from tests.pipeline.conftest import DEMO_SPLIT, DEMO_SUBMISSIONS, demo_bytes, wait_for_status

DONE = (SubmissionStatus.SCORED, SubmissionStatus.INVALID, SubmissionStatus.FAILED)


def upload(client, token, raw, name="system", **headers):
    response = client.post("/api/v1/submissions",
                           data={"name": name, "file": (io.BytesIO(raw), "r.json")},
                           headers={"Authorization": f"Bearer {token}", **headers})
    assert response.status_code == 202, response.get_data(as_text=True)
    return response.get_json()["id"]


def cli_scores(runner, stem):
    result = runner.invoke(score_command, ["--split", str(DEMO_SPLIT), "--submission",
                                           str(DEMO_SUBMISSIONS / f"{stem}.json"), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@ALL_REDIS
def test_api_submission_reaches_scored_with_the_cli_numbers(app, client, runner, session,
                                                            benchmark, team_token,
                                                            start_worker):
    _team, _user, token = team_token
    start_worker()
    sid = upload(client, token, demo_bytes("demo_baseline"))
    row = wait_for_status(session, sid, DONE)
    assert row.status == "scored", row.failure_reason
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    expected = cli_scores(runner, "demo_baseline")
    assert body["result"]["metrics"] == expected["metrics"]
    assert body["result"]["intervals"] == expected["intervals"]
    assert body["result"]["by_pos"] == expected["by_pos"]


@ALL_REDIS
def test_sigkill_mid_job_then_reconcile_and_a_new_worker_scores_it(app, client, session,
                                                                    benchmark, team_token,
                                                                    start_worker, settings):
    _team, _user, token = team_token
    # A huge bootstrap makes the job slow enough to be killed in the middle of it.
    doomed = start_worker(BOOTSTRAP_SAMPLES=150_000, RECONCILE_SECONDS=3600)
    sid = upload(client, token, demo_bytes())
    row = wait_for_status(session, sid, ("running",) + DONE)
    wait_for_status(session, sid, ("running",))
    assert row.status == "running" and row.progress in ("validating", "scoring")
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    session.expire_all()
    assert session.get(type(row), sid).status == "running"
    settings["HEARTBEAT_STALE_SECONDS"] = 1.0
    import time
    time.sleep(1.5)
    with app.app_context():
        report = reconcile(session=session, connection=get_redis(),
                           queue_name=settings["QUEUE_NAME"], settings=settings,
                           grace_seconds=0)
    assert report.requeued == [sid]
    row = session.get(type(row), sid)
    assert row.status == "queued" and "stopped responding" in row.failure_reason
    start_worker()
    row = wait_for_status(session, sid, DONE)
    assert row.status == "scored" and row.attempts == 2


@ALL_REDIS
def test_flushed_redis_loses_nothing_after_reconcile(app, client, session, benchmark,
                                                    start_worker, settings):
    ids = []
    for n, stem in enumerate(("demo_strong", "demo_baseline", "demo_weak")):
        team, _ = make_team(session, name=f"Team {n}", email=f"t{n}@example.org")
        ids.append(upload(client, make_token(session, team), demo_bytes(stem)))
    with app.app_context():
        redis = get_redis()
        queue = Queue(settings["QUEUE_NAME"], connection=redis)
        assert len(queue.job_ids) == 3
        redis.flushdb()
        assert queue.job_ids == []
        report = reconcile(session=session, connection=redis,
                           queue_name=settings["QUEUE_NAME"], settings=settings,
                           grace_seconds=0)
    assert sorted(report.requeued) == sorted(ids)
    start_worker()
    for sid in ids:
        assert wait_for_status(session, sid, DONE).status == "scored"


def test_worker_reconciles_at_start(app, client, session, benchmark, team_token,
                                    start_worker, settings):
    _team, _user, token = team_token
    sid = upload(client, token, demo_bytes())
    with app.app_context():
        get_redis().delete(f"rq:queue:{settings['QUEUE_NAME']}")
    # Rows younger than the grace period are left to their uploader; age this one.
    from datetime import timedelta

    row = session.get(__import__("leaderboard.models", fromlist=["Submission"]).Submission, sid)
    row.queued_at = row.queued_at - timedelta(minutes=5)
    session.add(row)
    session.commit()
    start_worker()
    assert wait_for_status(session, sid, DONE).status == "scored"
