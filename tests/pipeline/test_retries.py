"""Our failures: retried with backoff through the reconciler, then ``failed`` with the reason;
stale running rows; the queue commands."""

from __future__ import annotations

from datetime import timedelta

from rq import Queue
from sqlmodel import select

from leaderboard.models import Benchmark, Result, Submission, utcnow
from leaderboard.queue import get_redis
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.reconcile import reconcile
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from tests.factories import make_team
from tests.pipeline.conftest import demo_bytes


def queued(session, benchmark, settings, raw=None):
    team, _ = make_team(session)
    return create_submission(session=session, team=team,
                                 board=import_board(session, benchmark),
                             raw=raw or demo_bytes(), system_name="s",
                             settings=settings).submission


def run(app, sid):
    return score_submission_now(engine_or_session=app.extensions["db_engine"],
                                submission_id=sid, settings=app.config["LEADERBOARD"])


def reconcile_now(app, session, settings, **kw):
    with app.app_context():
        return reconcile(session=session, connection=get_redis(),
                         queue_name=settings["QUEUE_NAME"], settings=settings,
                         grace_seconds=0, **kw)


def test_our_failure_is_retried_with_backoff_then_failed_with_reason(app, session, benchmark,
                                                                     settings):
    settings.update(MAX_JOB_RETRIES=1, RETRY_BACKOFF_SECONDS=30)
    sid = queued(session, benchmark, settings).id
    # Break the stored gold so scoring fails on our side (not the participant's).
    bench = session.get(Benchmark, benchmark.id)
    bench.prepared_bytes, bench.checksum = b"broken", "0" * 64
    session.add(bench)
    session.commit()
    assert run(app, sid) == "queued"
    row = session.get(Submission, sid)
    session.refresh(row)
    assert row.attempts == 1
    assert row.failure_reason.startswith("attempt 1 of 2 failed on our side (")
    assert row.failure_reason.endswith("retrying in 30 s")
    # Not due yet: the reconciler waits for the backoff.
    assert reconcile_now(app, session, settings).waiting == [sid]
    report = reconcile_now(app, session, settings, now=utcnow() + timedelta(seconds=31))
    assert report.requeued == [sid]
    with app.app_context():
        queue = Queue(settings["QUEUE_NAME"], connection=get_redis())
        assert f"score-{queue.name}-{sid}-2" in queue.job_ids
    assert run(app, sid) == "failed"
    session.refresh(row)
    assert row.failure_reason.startswith("failed on our side after 2 attempts: ")
    assert session.exec(select(Result)).all() == []


def test_stale_running_row_is_requeued_then_failed_when_out_of_attempts(app, session,
                                                                        benchmark, settings):
    settings.update(MAX_JOB_RETRIES=1, HEARTBEAT_STALE_SECONDS=60)
    row = queued(session, benchmark, settings)
    long_ago = utcnow() - timedelta(minutes=5)
    row.status, row.attempts, row.started_at, row.heartbeat_at = "running", 1, long_ago, long_ago
    session.add(row)
    session.commit()
    assert reconcile_now(app, session, settings).requeued == [row.id]
    session.refresh(row)
    assert row.status == "queued"
    assert row.failure_reason == ("attempt 1 stopped because its worker stopped responding "
                                  "(no heartbeat for 300 s); re-queued")
    row.status, row.attempts, row.heartbeat_at = "running", 2, long_ago
    session.add(row)
    session.commit()
    assert reconcile_now(app, session, settings).failed == [row.id]
    session.refresh(row)
    assert row.status == "failed"
    assert row.failure_reason == ("failed on our side: attempt 2 stopped because its worker "
                                  "stopped responding (no heartbeat for 300 s); no attempts left")


def test_fresh_running_row_and_live_job_are_left_alone(app, session, benchmark, settings):
    row = queued(session, benchmark, settings)
    with app.app_context():
        from leaderboard.queue import enqueue_scoring
        enqueue_scoring(row.id, connection=get_redis(), queue_name=settings["QUEUE_NAME"])
    assert reconcile_now(app, session, settings).live == [row.id]


def test_rescoring_keeps_one_current_result(app, session, benchmark, settings):
    sid = queued(session, benchmark, settings).id
    assert run(app, sid) == "scored"
    row = session.get(Submission, sid)
    row.status = "queued"  # what a re-score does before enqueueing
    session.add(row)
    session.commit()
    assert run(app, sid) == "scored"
    results = session.exec(select(Result).where(Result.submission_id == sid)).all()
    assert [r.is_current for r in results] == [False, True]


def test_queue_commands(app, runner, session, benchmark, settings):
    sid = queued(session, benchmark, settings).id
    status = runner.invoke(args=["queue", "status"])
    assert status.exit_code == 0, status.output
    assert "database: queued 1, running 0, scored 0, invalid 0, failed 0" in status.output
    assert f"queue {settings['QUEUE_NAME']}: 0 waiting" in status.output
    result = runner.invoke(args=["queue", "reconcile", "--grace", "0"])
    assert result.exit_code == 0, result.output
    assert result.output == f"re-enqueued 1, failed 0, live 0, waiting 0\nre-enqueued: {sid}\n"
