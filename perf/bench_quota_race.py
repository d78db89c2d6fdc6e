"""16-parallel quota race: real HTTP uploads to gunicorn, on SQLite and PostgreSQL.

For each database: a fresh instance with the demo split and two teams, gunicorn (2
processes x 4 threads) with a daily quota of 5, then 16 distinct files uploaded at once by
16 client threads (team A), and 6 identical files with different Idempotency-Keys at once
(team B). Prints, per database, how many uploads were accepted and how many submissions
exist, and the wall time. PostgreSQL runs in a schema of its own on the service at
127.0.0.1:5432 (dropped afterwards); it is skipped when that does not answer.

    .venv/bin/python perf/bench_quota_race.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench_bad_inputs import request, seed
from bench_load import free_port, start_gunicorn, stop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parallel(base: str, token: str, files: list[bytes], keys: list[str | None]) -> list[str]:
    """Upload ``files`` at once (one thread each); return each answer's summary."""
    barrier = threading.Barrier(len(files))
    answers = [""] * len(files)

    def one(i: int) -> None:
        headers = {"Idempotency-Key": keys[i]} if keys[i] else {}
        barrier.wait()
        status, _text = request(base, "POST", "/api/v1/submissions", token=token,
                                fields={"name": f"race {i}"}, file=files[i], headers=headers)
        answers[i] = str(status)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(files))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def count_rows(url: str) -> dict[int, int]:
    from sqlalchemy import func
    from sqlmodel import Session, select

    from leaderboard.db import make_engine
    from leaderboard.models import Submission

    engine = make_engine(url)
    with Session(engine) as session:
        rows = session.exec(select(Submission.team_id, func.count())
                            .group_by(Submission.team_id)).all()
    engine.dispose()
    return dict(rows)


def run(label: str, url: str, tmp: str) -> None:
    instance = f"{tmp}/instance-{label}"
    token_a, token_b, ids = seed(url, instance)
    port = free_port()
    env = dict(os.environ, LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
               LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_REDIS_URL="",
               LEADERBOARD_LOG_REQUESTS="0", LEADERBOARD_DAILY_SCORED_QUOTA="5",
               LEADERBOARD_DAILY_ATTEMPT_CAP="100",
               LEADERBOARD_API_RATE_LIMIT="1000000 per minute", WEB_CONCURRENCY="2")
    proc = start_gunicorn(env, port)
    base = f"http://127.0.0.1:{port}"
    try:
        files = [json.dumps({"substitutes": {t: [["w", 1.0]] for t in ids}, "run": i}).encode()
                 for i in range(16)]
        start = time.perf_counter()
        quota = Counter(parallel(base, token_a, files, [None] * 16))
        quota_s = time.perf_counter() - start
        start = time.perf_counter()
        same = Counter(parallel(base, token_b, [files[0]] * 6, [f"k{i}" for i in range(6)]))
        same_s = time.perf_counter() - start
    finally:
        stop(proc)
    rows = count_rows(url)
    print(f"| {label} | 16 distinct, quota 5 | {dict(quota)} | {rows.get(1, 0)} | "
          f"{quota_s:.2f} s |")
    print(f"| {label} | 6 identical, 6 keys | {dict(same)} | {rows.get(2, 0)} | "
          f"{same_s:.2f} s |", flush=True)


def main() -> int:
    from tests import backends

    print("| database | uploads at once | answers | submissions stored | wall time |")
    print("|---|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        run("SQLite", f"sqlite:///{tmp}/race.db", tmp)
        if not backends.postgres_available():
            print(f"| PostgreSQL | skipped: {backends.POSTGRES_URL} does not answer | | | |")
            return 0
        schema, url = backends.new_postgres_schema()
        try:
            run("PostgreSQL", url, tmp)
        finally:
            backends.drop_postgres_schema(schema)
    return 0


if __name__ == "__main__":
    sys.exit(main())
