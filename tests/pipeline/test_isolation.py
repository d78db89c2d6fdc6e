"""Jobs on uploaded bytes run in a child killed at its limits; the reconciler leaves a
running job alone while its worker lives."""

from __future__ import annotations

import time
from datetime import timedelta

from rq import Queue, SimpleWorker
from rq.job import Job

from leaderboard.infra.queue import get_redis, job_id_for
from leaderboard.models import Submission, SubmissionStatus, utcnow
from tests.backends import ALL_DATABASES, ALL_REDIS
from tests.demo import demo_bytes
from tests.jobs import wait_for_status
from tests.pipeline.test_retries import queued, reconcile_now
from tests.pipeline.test_worker import DONE, upload


@ALL_DATABASES
@ALL_REDIS
def test_a_file_past_the_time_limit_fails_once_saying_which_limit(app, client, session,
                                                                  benchmark, team_token,
                                                                  start_worker, settings):
    _team, _user, token = team_token
    # 150,000 resamples take far longer than one second: the child is killed at 1 s. Two
    # workers, each reconciling every second: neither may run it again.
    for _ in range(2):
        start_worker(JOB_TIMEOUT=1, BOOTSTRAP_SAMPLES=150_000, RECONCILE_SECONDS=1)
    started = time.monotonic()
    sid = upload(client, token, demo_bytes())
    row = wait_for_status(session, sid, DONE, timeout=60)
    assert time.monotonic() - started < 30
    assert row.status == SubmissionStatus.FAILED
    assert row.attempts == 1
    assert row.failure_reason == (
        "Stopped: checking and scoring this file took longer than 1 s (the limit for one "
        "file). It is not retried; make the file smaller or simpler and upload it again.")
    assert row.failure_detail == "attempt 1: time limit: took longer than 1 s"
    time.sleep(2.5)  # the worker's own reconciler ran meanwhile: nothing re-queued
    session.expire_all()
    again = session.get(Submission, sid)
    assert (again.status, again.attempts) == (SubmissionStatus.FAILED, 1)


@ALL_DATABASES
@ALL_REDIS
def test_the_reconciler_leaves_a_running_job_alone_while_its_worker_lives(app, session,
                                                                          benchmark, settings):
    row = queued(session, benchmark, settings)
    long_ago = utcnow() - timedelta(hours=1)
    row.status, row.attempts = SubmissionStatus.RUNNING, 1
    row.started_at = row.heartbeat_at = long_ago  # silent for an hour
    session.add(row)
    session.commit()
    with app.app_context():
        conn = get_redis()
    queue = Queue(settings["QUEUE_NAME"], connection=conn)
    worker = SimpleWorker([queue], connection=conn)
    worker.register_birth()  # a real RQ worker key, as a live worker keeps it
    job = Job.create("leaderboard.worker.jobs.score_submission_job", args=(row.id,),
                     connection=conn,
                     id=job_id_for(row.id, 1, settings["QUEUE_NAME"]))
    job.worker_name = worker.name
    job.save()
    try:
        report = reconcile_now(app, session, settings)
        assert report.live == [row.id] and report.requeued == []
        session.expire_all()
        assert session.get(Submission, row.id).status == SubmissionStatus.RUNNING
    finally:
        worker.register_death()
    report = reconcile_now(app, session, settings)  # its worker is gone now
    assert report.requeued == [row.id]
    session.expire_all()
    assert session.get(Submission, row.id).status == SubmissionStatus.QUEUED
