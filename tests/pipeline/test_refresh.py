"""Coalesced ranking refreshes: a burst of public results queues at most two refresh jobs."""

from __future__ import annotations

import io
import time

from rq import Queue, SimpleWorker
from sqlmodel import col, select

from leaderboard.infra.queue import (
    get_redis,
    refresh_keys,
    release_refresh,
    request_snapshot_refresh,
)
from leaderboard.models import LeaderboardSnapshot, SubmissionStatus
from leaderboard.ranker import refresh as ranking
from leaderboard.ranker.placement import ranking_queue_name
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from leaderboard.worker import jobs
from tests.backends import ALL_REDIS
from tests.demo import demo_bytes
from tests.factories import make_team, make_token
from tests.jobs import wait_for_status

STEMS = ("demo_strong", "demo_baseline", "demo_weak")


def public_submissions(session, benchmark, settings, n):
    ids = []
    for i in range(n):
        team, _ = make_team(session, name=f"Burst {i}")
        ids.append(create_submission(session=session, team=team,
                                 board=import_board(session, benchmark),
                                     raw=demo_bytes(STEMS[i % 3]), system_name=f"s{i}",
                                     settings=settings, is_public=True).submission.id)
    return ids


def refresh_jobs(conn, queue_name):
    return [j for j in Queue(ranking_queue_name(queue_name), connection=conn).job_ids
            if j.startswith("refresh-")]


def latest_systems(session, split_id):
    session.expire_all()
    snap = session.exec(select(LeaderboardSnapshot)
                        .where(LeaderboardSnapshot.split_id == split_id)
                        .order_by(col(LeaderboardSnapshot.id).desc())).first()
    return sorted(s["id"] for s in snap.data["systems"]) if snap else []


@ALL_REDIS
def test_a_burst_queues_at_most_two_refresh_jobs_and_the_last_one_shows_all(
        app, session, benchmark, board, settings):
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    queue_name = settings["QUEUE_NAME"]
    with app.app_context():
        conn = get_redis()
    ids = public_submissions(session, benchmark, settings, 6)
    requested = []

    def request(board_id):
        requested.append(request_snapshot_refresh(board_id, connection=conn,
                                                  queue_name=queue_name))

    for sid in ids[:3]:
        assert score_submission_now(engine_or_session=app.extensions["db_engine"],
                                    submission_id=sid, settings=settings,
                                    request_refresh=request) == "scored"
    first = refresh_jobs(conn, queue_name)
    assert len(first) == 1 and requested == [first[0], None, None]
    # The queued job starts (it clears its marker first): later results queue exactly one more.
    release_refresh(conn, board.id, queue_name, first[0])
    for sid in ids[3:]:
        score_submission_now(engine_or_session=app.extensions["db_engine"], submission_id=sid,
                             settings=settings, request_refresh=request)
    queued = refresh_jobs(conn, queue_name)
    assert len(queued) == 2 and requested[3:] == [queued[1], None, None]
    assert latest_systems(session, benchmark.id) == []  # nothing refreshed synchronously

    queue = Queue(ranking_queue_name(queue_name), connection=conn)
    SimpleWorker([queue], connection=conn).work(burst=True)
    assert [queue.fetch_job(j).return_value() for j in queued] == ["refreshed", "refreshed"]
    assert latest_systems(session, benchmark.id) == sorted(ids)
    assert conn.get(refresh_keys(board.id, queue_name)["pending"]) is None
    assert refresh_jobs(conn, queue_name) == []
    # The next result queues a new job again.
    assert request_snapshot_refresh(board.id, connection=conn, queue_name=queue_name)


@ALL_REDIS
def test_refresh_job_is_safe_to_run_twice(app, session, benchmark, board, settings):
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    ids = public_submissions(session, benchmark, settings, 2)
    for sid in ids:
        score_submission_now(engine_or_session=app.extensions["db_engine"], submission_id=sid,
                             settings=settings)  # no request function: refreshes in place
    assert latest_systems(session, benchmark.id) == sorted(ids)
    assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    assert ranking.refresh_snapshot_job(board.id) == "refreshed"
    assert latest_systems(session, benchmark.id) == sorted(ids)


@ALL_REDIS
def test_refresh_finding_another_running_goes_to_the_back_of_the_queue(
        app, session, benchmark, board, settings, monkeypatch):
    monkeypatch.setattr(ranking, "DEFER_SECONDS", 0)
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    queue_name = settings["QUEUE_NAME"]
    with app.app_context():
        conn = get_redis()
    job_id = request_snapshot_refresh(board.id, connection=conn, queue_name=queue_name)
    lease = refresh_keys(board.id, queue_name)["lock"]
    assert conn.set(lease, "another ranker", nx=True, px=30_000)  # "another refresh runs"
    queue = Queue(ranking_queue_name(queue_name), connection=conn)
    job = queue.dequeue_any([queue], None, connection=conn)[0]
    assert job.id == job_id
    SimpleWorker([queue], connection=conn).execute_job(job, queue)
    assert queue.fetch_job(job_id).return_value() == "deferred"
    again = refresh_jobs(conn, queue_name)
    assert len(again) == 1 and again[0] != job_id
    conn.delete(lease)
    SimpleWorker([queue], connection=conn).work(burst=True)
    assert queue.fetch_job(again[0]).return_value() == "refreshed"


def test_public_uploads_scored_by_a_real_worker_all_reach_the_ranking(app, client, session,
                                                                       benchmark, start_worker):
    start_worker()
    start_worker("ranker")
    ids = []
    for i, stem in enumerate(STEMS):
        _team, _ = make_team(session, name=f"Real {i}")
        token = make_token(session, _team)
        response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                               data={"name": f"r{i}", "public": "true",
                                     "file": (io.BytesIO(demo_bytes(stem)), "r.json")})
        assert response.status_code == 202, response.get_data(as_text=True)
        ids.append(response.get_json()["id"])
    for sid in ids:
        assert wait_for_status(session, sid, (SubmissionStatus.SCORED,)).status == "scored"
    deadline = time.monotonic() + 30
    while latest_systems(session, benchmark.id) != sorted(ids):
        assert time.monotonic() < deadline, latest_systems(session, benchmark.id)
        time.sleep(0.2)
