"""Quotas and duplicate detection hold under parallel uploads, on SQLite and PostgreSQL.

Real threads, each with its own test client, released together by a barrier, against a real
database: before the team row was locked, 16 parallel uploads with a quota of 5 got 8
accepted on PostgreSQL, and 6 identical files with different Idempotency-Keys made 3
submissions.
"""

from __future__ import annotations

import io
import threading
from collections import Counter

from sqlmodel import Session, select

from leaderboard.models import Submission
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes


def parallel_uploads(app, token: str, files: list[bytes], keys: list[str | None]) -> list[int]:
    barrier = threading.Barrier(len(files))
    statuses: list[int] = [0] * len(files)

    def one(i: int) -> None:
        client = app.test_client()
        headers = {"Authorization": f"Bearer {token}"}
        if keys[i]:
            headers["Idempotency-Key"] = keys[i]
        barrier.wait()
        response = client.post("/api/v1/submissions", headers=headers, data={
            "name": f"parallel {i}", "file": (io.BytesIO(files[i]), "r.json")})
        statuses[i] = response.status_code

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(files))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return statuses


def distinct_files(n: int) -> list[bytes]:
    base = demo_bytes()
    return [base[:-1] + b', "run": %d}' % i for i in range(n)]


@ALL_DATABASES
def test_sixteen_parallel_uploads_with_a_quota_of_five_accept_exactly_five(
        app, benchmark, team_token, settings):
    team, _user, token = team_token
    settings.update(DAILY_SCORED_QUOTA=5, DAILY_ATTEMPT_CAP=100, API_RATE_LIMIT="1000/minute")
    statuses = parallel_uploads(app, token, distinct_files(16), [None] * 16)
    assert Counter(statuses) == {202: 5, 429: 11}
    with Session(app.extensions["db_engine"]) as session:
        rows = session.exec(select(Submission).where(Submission.team_id == team.id)).all()
    assert len(rows) == 5


@ALL_DATABASES
def test_six_parallel_identical_files_with_different_keys_make_one_submission(
        app, benchmark, team_token, settings):
    team, _user, token = team_token
    settings.update(DAILY_SCORED_QUOTA=50, DAILY_ATTEMPT_CAP=100, API_RATE_LIMIT="1000/minute")
    same = distinct_files(1) * 6
    statuses = parallel_uploads(app, token, same, [f"key-{i}" for i in range(6)])
    with Session(app.extensions["db_engine"]) as session:
        rows = session.exec(select(Submission).where(Submission.team_id == team.id)).all()
    assert len(rows) == 1
    assert statuses == [202] * 6  # one created, five answered "duplicate" with that one
