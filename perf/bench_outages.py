"""Outages: Redis killed as jobs finish (5 times), PostgreSQL stopped for 10 s and 60 s.

Real test split, real ``leaderboard worker`` processes, a private redis-server (persistence
off) and a private PostgreSQL cluster this script starts itself (never the shared services).
Prints what a user sees during each outage (API status body, the ranking page) and checks in
the database that every submission ends final with exactly one current result.

    .venv/bin/python perf/bench_outages.py [--only redis|postgres]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from bench_faults import SETTINGS, TEAM, Api, free_port, report, running_id, wait_for
from ops_harness import Instance, RedisServer, require_split

RESTARTS = 5


def redis_mid_finalize(raw: bytes) -> None:
    print(f"\n1. Redis SIGKILLed while a job runs, so RQ cannot record its end; {RESTARTS} times")
    server = RedisServer(free_port())
    server.start()
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, redis_url=server.url, **SETTINGS)
        try:
            bench = inst.import_split(raw)
            inst.add_submissions(bench, raw, 0, team_name=TEAM)
            api = Api(inst)
            ids = inst.add_submissions(bench, raw, RESTARTS, team_name=TEAM)
            [worker] = inst.start_workers(1)
            inst.enqueue(ids)
            started = time.monotonic()
            done: set[int] = set()
            for round_ in range(1, RESTARTS + 1):
                victim = wait_for(lambda: running_id(inst, ids), 300, 0.01)
                server.kill()
                down = time.monotonic()
                wait_for(lambda v=victim: api.status(v)["status"] in ("scored", "invalid",
                                                                       "failed"), 300, 0.05)
                time.sleep(1.0)
                seen = api.status(victim)
                alive = worker.poll() is None
                server.start()
                inst.redis.connection_pool.disconnect()
                done.add(victim)
                print(f"  round {round_}: submission {victim} ended while Redis was down "
                      f"({time.monotonic() - down:.1f} s outage); submitter saw "
                      f"{seen['status']} (attempt {seen['attempts']}); worker alive: {alive}")
            inst.wait_final(ids, 900)
            print(f"  all {len(ids)} final {time.monotonic() - started:.1f} s after the first "
                  f"job started; worker {worker.pid} alive at the end: {worker.poll() is None}")
            report(inst, ids, "database")
            inst.stop_workers()
        finally:
            inst.close()
            server.kill()


def _user_view(api: Api, sid: int) -> tuple[str, str | None, str | None]:
    """(what the API and the ranking page answer, their Retry-After headers)."""
    status = api.client.get(f"/api/v1/submissions/{sid}", headers=api.headers)
    page = api.client.get("/")
    body = status.json or {}
    detail = body.get("error", {}).get("code") or body.get("status", "")
    html = page.get_data(as_text=True)
    title = "Briefly unavailable" if "<h1>Briefly unavailable</h1>" in html else "ranking"
    return (f"API {status.status_code} {detail}; page {page.status_code} {title!r}",
            status.headers.get("Retry-After"), page.headers.get("Retry-After"))


def postgres_stopped(raw: bytes, seconds: float, number: int) -> None:
    from tests.faults import PrivatePostgres

    print(f"\n{number}. PostgreSQL (a private cluster) stopped for {seconds:.0f} s during a job")
    server = RedisServer(free_port())
    server.start()
    cluster = PrivatePostgres()
    cluster.start()
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, database_url=cluster.url, redis_url=server.url, **SETTINGS)
        try:
            bench = inst.import_split(raw)
            inst.add_submissions(bench, raw, 0, team_name=TEAM)
            api = Api(inst)
            ids = inst.add_submissions(bench, raw, 4, team_name=TEAM)
            [worker] = inst.start_workers(1, f"pg-{seconds:.0f}")
            inst.enqueue(ids)
            victim = wait_for(lambda: running_id(inst, ids), 300, 0.01)
            print(f"  before: {_user_view(api, victim)[0]}")
            cluster.stop("fast")
            stopped = time.monotonic()
            views: dict[str, list] = {}
            while time.monotonic() - stopped < seconds:
                view, api_retry, page_retry = _user_view(api, victim)
                seen = views.setdefault(view, [time.monotonic() - stopped, 0, set(), set()])
                seen[1] += 1
                seen[2].add(api_retry)
                seen[3].add(page_retry)
                time.sleep(1.0)
            cluster.start()
            for view, (first, count, api_retry, page_retry) in views.items():
                print(f"  during the outage, {count} polls from +{first:.1f} s: {view}; "
                      f"Retry-After API {sorted(api_retry)}, page {sorted(page_retry)}")
            back = wait_for(lambda: api.client.get("/").status_code == 200 and
                            time.monotonic(), 60, 0.1)
            print(f"  ranking page 200 again {back - stopped - seconds:.1f} s after the restart")
            inst.wait_final(ids, 900)
            seen = api.status(victim)
            print(f"  all {len(ids)} final {time.monotonic() - stopped:.1f} s after the stop; "
                  f"victim {seen['status']}, attempts {seen['attempts']}; "
                  f"worker alive: {worker.poll() is None}")
            report(inst, ids, "database")
            inst.stop_workers()
        finally:
            inst.close()
            cluster.remove()
            server.kill()


def main() -> None:
    import logging

    # The app logs every 503 it answers; one summary line per outage is enough here.
    logging.getLogger("leaderboard.blueprints.errors").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("redis", "postgres"))
    args = parser.parse_args()
    raw = require_split()
    if args.only in (None, "redis"):
        redis_mid_finalize(raw)
    if args.only in (None, "postgres"):
        postgres_stopped(raw, 10, 2)
        postgres_stopped(raw, 60, 3)


if __name__ == "__main__":
    main()
