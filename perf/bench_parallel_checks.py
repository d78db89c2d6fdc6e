"""Memory of one web process under parallel dry runs of huge but legal files.

gunicorn (1 worker, 4 threads) on a throw-away SQLite instance with the real swords-v1.1 test
split; 8 clients at once POST the same legal file of 1.4M substitutes (every target at the
largest list the limits allow, under the 32 MiB ``substitutes`` cap) to /api/v1/validate.
Prints each answer's status and time and the worker's peak RSS (VmHWM), once with large
checks unlimited and once with the default of one at a time.

    .venv/bin/python perf/bench_parallel_checks.py [--clients 8]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_load import free_port, start_gunicorn, stop
from http_client import request

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TEST_SPLIT = ROOT.parent / "shared" / "data" / "swords" / "swords-v1.1_test.json.gz"


def seed(url: str, instance: str) -> tuple[str, list[str]]:
    """The test split as default board and a team with a token; returns (token, target ids)."""
    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token
    from leaderboard.services.catalog.benchmarks import import_benchmark

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False})
    engine = app.extensions["db_engine"]
    create_all(engine)
    raw = TEST_SPLIT.read_bytes()
    with Session(engine, expire_on_commit=False) as session:
        import_benchmark(session=session, raw=raw, name="swords", version="1.1", split="test",
                         make_default=True)
        team, _user = create_team(session=session, name="Team A", email="a@example.org",
                                  password="correct horse battery", verified=True)
        token = issue_token(session=session, team=team, name="ci")[1]
        session.commit()
    engine.dispose()
    return token, list(json.loads(gzip.decompress(raw))["targets"])


def huge_file(tids: list[str]) -> bytes:
    """Every target with as many distinct substitutes as the limits allow: each [word, score]
    pair is 3 JSON values and a file may hold 1,500,000 (MAX_JSON_VALUES)."""
    per_target = min(5000, 1_450_000 // (3 * len(tids)))
    subs = {tid: [[f"w{j:06d}", float(-j)] for j in range(per_target)] for tid in tids}
    return json.dumps({"substitutes_lemmatized": True, "substitutes": subs}).encode()


def worker_pid(master: int) -> int:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for task in Path(f"/proc/{master}/task").iterdir():
            children = (task / "children").read_text().split()
            if children:
                return int(children[0])
        time.sleep(0.1)
    raise SystemExit("no gunicorn worker found")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run(tmp: str, token: str, raw: bytes, clients: int, limit: int) -> None:
    url, instance = f"sqlite:///{tmp}/bench.db", f"{tmp}/instance"
    port = free_port()
    env = dict(os.environ, LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
               LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_REDIS_URL="",
               LEADERBOARD_LOG_REQUESTS="0", LEADERBOARD_API_RATE_LIMIT="1000 per minute",
               LEADERBOARD_MAX_CONCURRENT_LARGE_CHECKS=str(limit),
               LEADERBOARD_LARGE_CHECK_WAIT_SECONDS="300", WEB_CONCURRENCY="1",
               GUNICORN_THREADS="4")
    proc = start_gunicorn(env, port)
    try:
        pid = worker_pid(proc.pid)
        idle = peak_rss_mb(pid)
        answers: list[tuple[int, float]] = []

        def one() -> None:
            start = time.perf_counter()
            status, answer = request(f"http://127.0.0.1:{port}", "POST", "/api/v1/validate",
                                     token=token, fields={}, file=raw)
            answers.append((status, time.perf_counter() - start))
            if status != 200:
                print(f"  answer {status}: {answer[:200]}")

        threads = [threading.Thread(target=one) for _ in range(clients)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - start
        statuses = sorted(s for s, _ in answers)
        slowest = max(t for _, t in answers)
        print(f"| {limit if limit < clients else 'unlimited'} | {clients} | "
              f"{', '.join(map(str, statuses))} | {wall:.1f} s (slowest answer {slowest:.1f} s) "
              f"| {idle:.0f} MB | {peak_rss_mb(pid):.0f} MB |")
    finally:
        stop(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    if not TEST_SPLIT.exists():
        raise SystemExit(f"{TEST_SPLIT} is absent (../shared/data)")
    with tempfile.TemporaryDirectory() as tmp:
        token, tids = seed(f"sqlite:///{tmp}/bench.db", f"{tmp}/instance")
        raw = huge_file(tids)
        n_subs = json.loads(raw)["substitutes"]
        print(f"file: {len(raw) / 1e6:.1f} MB, {len(tids)} targets, "
              f"{sum(map(len, n_subs.values())):,} substitutes\n")
        print("| large checks at once | clients | HTTP statuses | wall time | worker RSS "
              "idle | worker peak RSS |\n|---|---:|---|---|---:|---:|")
        for limit in (args.clients, 1):
            run(tmp, token, raw, args.clients, limit)


if __name__ == "__main__":
    main()
