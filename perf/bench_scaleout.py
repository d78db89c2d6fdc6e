"""Scale-out shape: two gunicorn instances and up to four workers on one PostgreSQL and one
Redis, 500 accepted uploads.

Everything runs as separate processes, as on several machines: a PostgreSQL schema of its
own on the service at 127.0.0.1:5432 (dropped afterwards), a redis-server of its own on a
free port (stopped afterwards), two gunicorn instances on two ports with separate instance
directories, and ``leaderboard worker`` processes. The demo split is the board (release
full), team A's daily quota is exactly 500.

1. Throughput: three batches of 100 uploads (alternating between the two web instances)
   are queued with no worker running, then scored by 1, 2 and 4 workers; the time from the
   workers' start to the last result of the batch.
2. Quota: 230 more uploads are sent at once (16 client threads, both instances) while four
   workers score: exactly 200 may be accepted (500 in all), the rest answer 429.
3. Duplicates: team B sends one file six times at once with one Idempotency-Key, three to
   each instance: one submission.
4. Checks from the database: every accepted upload has exactly one current result; then
   both instances' ranking (API, all entries, 1,000 a page) are compared after the last
   refresh.
5. Warm refreshes: four ``leaderboard ranker`` processes run from the start; every refresh
   they do is counted warm (the board's rank state was in the ranker's memory) or cold,
   incremental or full (``leaderboard/ranker/refresh.py`` writes the counts to Redis and one
   log line per refresh). The share of warm refreshes is reported, and each refresh listed.

With ``--burst N`` only one burst runs: N uploads from 20 client threads over both web
instances, scored by four workers while four rankers refresh (target: >= 90% warm).

    .venv/bin/python perf/bench_scaleout.py [--burst 200]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import request, seed  # noqa: E402
from ops_harness import (  # noqa: E402
    FINAL,
    RedisServer,
    free_port,
    start_gunicorn,
    start_workers,
    stop,
    wait_for,
)

SLUG = "swords-demo-v1-test-generative"
QUEUE = "scoring"  # the default queue name: the bench sets none
REFRESH_LINE = re.compile(r"refresh of board (\d+): (warm|cold), (incremental|full) "
                          r"\(state from (\w+)\), (\d+) systems")


def upload(bases: list[str], token: str, tids: list[str], start: int, n: int,
           threads: int = 16) -> Counter:
    """``n`` distinct public uploads (numbered from ``start``), alternating between web
    instances, from ``threads`` client threads; returns the HTTP statuses counted."""
    def one(i: int) -> int:
        doc = {"substitutes_lemmatized": False,
               "substitutes": {t: [[w, float(10 - k)] for k, w in enumerate(
                   ("fast", "quick", "rapid", "swift", "speedy", f"w{i}", f"x{i % 7}"))]
                   for t in tids}}
        return request(bases[i % len(bases)], "POST", "/api/v1/submissions", token=token,
                       fields={"name": f"System {i:04d}", "public": "true"},
                       file=json.dumps(doc).encode())[0]

    with ThreadPoolExecutor(threads) as pool:
        return Counter(pool.map(one, range(start, start + n)))


def wait_scored(engine, n: int, timeout: float = 900) -> float:
    """Seconds until ``n`` submissions are final."""
    from sqlalchemy import func
    from sqlmodel import Session, select

    from leaderboard.models import Submission

    def final() -> int:
        with Session(engine) as session:
            return session.exec(select(func.count(Submission.id))
                                .where(Submission.status.in_(FINAL))).one()

    return wait_for(lambda: final() >= n, timeout, f"{n} scored")


def refreshes_settled(redis_url: str, timeout: float = 300, quiet: float = 5.0) -> dict:
    """Wait until no refresh is queued, pending or running for ``quiet`` seconds; returns
    the site's refresh counters (warm, cold, incremental, full)."""
    from redis import Redis

    from leaderboard.infra.queue import refresh_stats_key, running_refreshes_key
    from leaderboard.ranker.placement import ranking_queue_name

    redis = Redis.from_url(redis_url)
    deadline, calm_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        queued = sum(redis.llen(f"rq:queue:{ranking_queue_name(QUEUE, name)}")
                     for name in [None, *(f"ranker-{i}" for i in range(8))])
        busy = (queued or redis.hlen(running_refreshes_key(QUEUE))
                or redis.keys(f"leaderboard:refresh:{QUEUE}:board-*:pending"))
        if busy:
            calm_since = None
        elif calm_since is None:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            break
        time.sleep(0.5)
    return {k.decode(): int(v) for k, v in redis.hgetall(refresh_stats_key(QUEUE)).items()}


def refresh_log(tmp: str, n: int) -> list[dict]:
    """Every refresh the rankers logged, in their order per ranker."""
    out = []
    for i in range(n):
        with open(f"{tmp}/ranker-{i}.log", errors="replace") as log:
            for line in log:
                match = REFRESH_LINE.search(line)
                if match:
                    out.append({"ranker": f"ranker-{i}", "board": int(match[1]),
                                "warmth": match[2], "kind": match[3], "state": match[4],
                                "systems": int(match[5]), "at": line[:23]})
    return sorted(out, key=lambda r: r["at"])


def warm_report(out: dict, counts: dict, log: list[dict]) -> None:
    warm, cold = counts.get("warm", 0), counts.get("cold", 0)
    share = warm / (warm + cold) if warm + cold else 0.0
    out["refreshes"] = {**counts, "warm_share": round(share, 3),
                        "by_ranker": dict(Counter(r["ranker"] for r in log))}
    for r in log:
        print(f"  {r['at']} {r['ranker']} board {r['board']}: {r['warmth']}, {r['kind']} "
              f"(state from {r['state']}), {r['systems']} systems", flush=True)
    print(f"refreshes: {warm} warm, {cold} cold ({100 * share:.1f}% warm); "
          f"{counts.get('incremental', 0)} incremental, {counts.get('full', 0)} full",
          flush=True)


def ranking(base: str) -> dict:
    request(base, "GET", "/")  # warm
    return request(base, "GET", f"/api/v1/leaderboards/{SLUG}/ranking?entries=all"
                   "&per_page=1000")[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=0,
                        help="only one burst of this many uploads (4 workers, 4 rankers)")
    args = parser.parse_args()
    from sqlmodel import Session, select

    from leaderboard.db import make_engine
    from leaderboard.models import Board
    from tests import backends

    if not backends.postgres_available():
        print(f"SKIPPED: PostgreSQL does not answer at {backends.POSTGRES_URL}")
        return 0
    schema, url = backends.new_postgres_schema()
    procs: list = []
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            redis = RedisServer(tmp)
            procs.append(redis.proc)
            log_dir = Path(tmp)
            # A shared database refuses an app without the site's Redis URL.
            ((token_a,), (token_b,)), tids = seed(url, f"{tmp}/seed", REDIS_URL=redis.url)
            engine = make_engine(url)
            with Session(engine) as session:
                board = session.exec(select(Board)).one()
                board.release = "full"
                session.add(board)
                session.commit()
            env = _site_env(url, redis.url)
            ports = [free_port(), free_port()]
            procs += [start_gunicorn(dict(env, LEADERBOARD_INSTANCE_PATH=f"{tmp}/web-{i}"), p)
                      for i, p in enumerate(ports)]
            bases = [f"http://127.0.0.1:{p}" for p in ports]
            procs += start_workers(env, redis.client, 4, log_dir, "ranker")
            if args.burst:
                procs += start_workers(env, redis.client, 4, log_dir)
                _one_burst(out, args.burst, bases, token_a, tids, engine, tmp, redis.url)
                engine.dispose()
                print(json.dumps(out))
                return 0
            accepted = _worker_batches(out, bases, token_a, tids, engine, env, log_dir, redis)
            procs += start_workers(env, redis.client, 4, log_dir)
            accepted = _quota_burst(out, bases, token_a, tids, engine, accepted)
            dup = _idempotent_twins(bases, token_b, tids)
            wait_scored(engine, accepted + 1)
            team_a = _count_results(out, engine, dup)
            _same_ranking_on_both(out, bases, len(team_a))
            warm_report(out, refreshes_settled(redis.url), refresh_log(tmp, 4))
            engine.dispose()
        finally:
            stop(*reversed(procs))
            backends.drop_postgres_schema(schema)
    print(json.dumps(out))
    return 0


def _site_env(url: str, redis_url: str) -> dict[str, str]:
    """The environment of the site's processes: quotas and rate limits out of the way."""
    return dict(os.environ, LEADERBOARD_DATABASE_URL=url,
                LEADERBOARD_REDIS_URL=redis_url, LEADERBOARD_SECRET_KEY="bench",
                LEADERBOARD_LOG_REQUESTS="0", LEADERBOARD_DAILY_SCORED_QUOTA="500",
                LEADERBOARD_TOTAL_SCORED_QUOTA="10000",
                LEADERBOARD_DAILY_ATTEMPT_CAP="10000",
                LEADERBOARD_API_RATE_LIMIT="1000000 per minute",
                WEB_CONCURRENCY="2")


def _one_burst(out: dict, n: int, bases: list[str], token: str, tids: list[str], engine,
               tmp: str, redis_url: str) -> None:
    """``n`` uploads from 20 clients at once, timed until scored and until refreshed."""
    start = time.monotonic()
    answers = upload(bases, token, tids, 0, n, threads=20)
    took = wait_scored(engine, answers.get(202, 0))
    counts = refreshes_settled(redis_url)
    out["burst"] = {"uploads": n, "answers": dict(answers),
                    "seconds_to_all_scored": round(took, 1),
                    "seconds_to_last_refresh": round(time.monotonic() - start, 1)}
    print(f"{n} uploads from 20 clients, 4 workers, 4 rankers: answers "
          f"{dict(answers)}, all scored in {took:.1f} s", flush=True)
    warm_report(out, counts, refresh_log(tmp, 4))


def _worker_batches(out: dict, bases: list[str], token: str, tids: list[str], engine,
                    env: dict[str, str], log_dir: Path, redis: RedisServer) -> int:
    """100 uploads scored by 1, 2 then 4 workers; the uploads accepted in all."""
    accepted = 0
    for k, n_workers in enumerate((1, 2, 4)):
        answers = upload(bases, token, tids, accepted, 100)
        accepted += answers.get(202, 0)
        started = start_workers(env, redis.client, n_workers, log_dir)
        took = wait_scored(engine, accepted)
        out[f"batch_{k + 1}"] = {"workers": n_workers, "uploads": dict(answers),
                                 "seconds": round(took, 1),
                                 "results_per_s": round(100 / took, 2)}
        print(f"100 uploads scored by {n_workers} worker(s): {took:.1f} s "
              f"({100 / took:.2f} results/s); answers {dict(answers)}", flush=True)
        stop(*started)
    return accepted


def _quota_burst(out: dict, bases: list[str], token: str, tids: list[str], engine,
                 accepted: int) -> int:
    """230 uploads at once against the daily quota; the uploads accepted in all."""
    start = time.monotonic()
    answers = upload(bases, token, tids, 300, 230)
    accepted += answers.get(202, 0)
    wait_scored(engine, accepted)
    out["quota_burst"] = {"uploads": 230, "answers": dict(answers),
                          "seconds_to_all_scored": round(time.monotonic() - start, 1)}
    print(f"230 uploads at once with 4 workers running: answers {dict(answers)}",
          flush=True)
    return accepted


def _idempotent_twins(bases: list[str], token: str, tids: list[str]) -> list[int]:
    """The same file with one Idempotency-Key six times at once; the statuses answered."""
    barrier = threading.Barrier(6)
    same = json.dumps({"substitutes": {t: [["fast", 1.0]] for t in tids}}).encode()
    dup: list[int] = []

    def twin(i: int) -> None:
        barrier.wait()
        dup.append(request(bases[i % 2], "POST", "/api/v1/submissions",
                           token=token, fields={"name": "twin"}, file=same,
                           headers={"Idempotency-Key": "one-key"})[0])

    threads = [threading.Thread(target=twin, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return dup


def _count_results(out: dict, engine, dup: list[int]) -> list[int]:
    """Team A's submissions with exactly one result, and the twins stored; team A's ids."""
    from sqlmodel import Session, select

    from leaderboard.models import Result, Submission

    with Session(engine) as session:
        team_a = session.exec(select(Submission.id).where(
            Submission.system_name.startswith("System "))).all()
        twins = session.exec(select(Submission.id).where(
            Submission.system_name == "twin")).all()
        current = Counter(session.exec(select(Result.submission_id).where(
            Result.is_current)).all())
        results = Counter(session.exec(select(Result.submission_id)).all())
    out["team_a_submissions"] = len(team_a)
    out["exactly_one_result"] = sum(1 for i in team_a
                                    if current.get(i) == 1 and results.get(i) == 1)
    out["idempotent_twins"] = {"answers": dict(Counter(dup)),
                               "submissions": len(twins)}
    print(f"team A: {len(team_a)} submissions, {out['exactly_one_result']} with exactly "
          f"one result; one key six times: answers {dict(Counter(dup))}, "
          f"{len(twins)} submission(s)", flush=True)
    return list(team_a)


def _same_ranking_on_both(out: dict, bases: list[str], n_rows: int) -> None:
    """Wait (at most 300 s) until both instances list team A's ``n_rows`` alike."""
    deadline = time.monotonic() + 300
    while True:
        views = [ranking(b) for b in bases]
        # Team B's twin is private: the ranking lists team A's 500.
        if all(v.get("total_rows") == n_rows for v in views) and \
                views[0]["rows"] == views[1]["rows"]:
            break
        if time.monotonic() > deadline:
            break
        time.sleep(1)
    out["ranking_rows"] = [v.get("total_rows") for v in views]
    out["same_ranking_on_both"] = views[0]["rows"] == views[1]["rows"]
    print(f"ranking on both instances: {out['ranking_rows']} rows, identical: "
          f"{out['same_ranking_on_both']}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
