"""Our failures: retried with backoff through the reconciler, then ``failed`` with the reason;
stale running rows; the queue commands."""

from __future__ import annotations

import json
from datetime import timedelta

from markupsafe import escape
from rq import Queue
from sqlmodel import select

from leaderboard.infra.queue import get_redis
from leaderboard.models import Result, Split, Submission, utcnow
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.reconcile import reconcile
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes
from tests.factories import csrf_token_from, login, make_team, make_token


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
    bench = session.get(Split, benchmark.id)
    bench.prepared_bytes, bench.checksum = b"broken", "0" * 64
    session.add(bench)
    session.commit()
    assert run(app, sid) == "queued"
    row = session.get(Submission, sid)
    session.refresh(row)
    assert row.attempts == 1
    assert row.failure_reason == ("Attempt 1 of 2 failed because of an internal error; the "
                                  "hosts can see what went wrong. Retrying in 30 s.")
    assert row.failure_detail.startswith("attempt 1 of 2: ")
    # Not due yet: the reconciler waits for the backoff.
    assert reconcile_now(app, session, settings).waiting == [sid]
    report = reconcile_now(app, session, settings, now=utcnow() + timedelta(seconds=31))
    assert report.requeued == [sid]
    with app.app_context():
        queue = Queue(settings["QUEUE_NAME"], connection=get_redis())
        assert f"score-{queue.name}-{sid}-2" in queue.job_ids
    assert run(app, sid) == "failed"
    session.refresh(row)
    assert row.failure_reason == FAILED_FOR_TEAMS.format(attempts="2 attempts")
    assert row.failure_detail.startswith("attempt 2 of 2: ")
    assert session.exec(select(Result)).all() == []


FAILED_FOR_TEAMS = ("Scoring failed because of an internal error after {attempts}; "
                    "the hosts can see what went wrong. Your file is not at fault as far as we "
                    "can tell: you may upload it again.")


@ALL_DATABASES
def test_teams_see_a_stable_message_and_hosts_the_exception(app, client, session, benchmark,
                                                            settings):
    """Teams get one stable message on the API, their page and the e-mail, never our
    exception text (file paths, SQL, library internals); the exception is kept for the
    hosts (admin page, log). Problems with the file itself are
    still named to the team."""
    settings.update(MAX_JOB_RETRIES=0)
    team, user = make_team(session, name="Lab One", email="one@example.org")
    token = make_token(session, team)
    board = import_board(session, benchmark)
    session.commit()
    sid = create_submission(session=session, team=team, board=board, raw=demo_bytes(),
                            system_name="s", settings=settings).submission.id
    bench = session.get(Split, benchmark.id)
    good = bench.prepared_bytes, bench.checksum
    bench.prepared_bytes, bench.checksum = b"broken", "0" * 64
    session.add(bench)
    session.commit()
    assert run(app, sid) == "failed"
    row = session.get(Submission, sid)
    session.refresh(row)
    detail = row.failure_detail
    assert detail.startswith("attempt 1 of 1: ") and len(detail) > len("attempt 1 of 1: ")
    headers = {"Authorization": f"Bearer {token}"}
    body = client.get(f"/api/v1/submissions/{sid}", headers=headers).get_json()
    assert body["status"] == "failed"
    assert body["failure_reason"] == FAILED_FOR_TEAMS.format(attempts="1 attempt")
    exception_text = detail.removeprefix("attempt 1 of 1: ")
    assert exception_text not in json.dumps(body) and "failure_detail" not in body
    assert login(client, user.email).status_code == 302
    page = client.get(f"/account/submissions/{sid}").get_data(as_text=True)
    assert "Scoring failed because of an internal error after 1 attempt;" in page
    assert str(escape(exception_text)) not in page
    client.post("/account/logout", data={"csrf_token": csrf_token_from(page)})
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    assert login(client, "host@example.org").status_code == 302
    admin = client.get("/admin/submissions?status=failed").get_data(as_text=True)
    assert str(escape(detail)) in admin
    # A file at fault is still told exactly what is wrong with it.
    bench.prepared_bytes, bench.checksum = good
    session.add(bench)
    session.commit()
    bad = create_submission(session=session, team=team, board=board,
                            raw=b'{"substitutes": []}', system_name="bad",
                            settings=settings).submission.id
    assert run(app, bad) == "invalid"
    body = client.get(f"/api/v1/submissions/{bad}", headers=headers).get_json()
    assert body["failure_reason"] == ""
    assert [e["code"] for e in body["errors"]] == ["wrong_type"]


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
        from leaderboard.infra.queue import enqueue_scoring
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
