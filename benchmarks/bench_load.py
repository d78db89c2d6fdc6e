"""Web load: gunicorn on loopback, 1,000 public scored submissions, concurrent GETs.

Seeds a fresh SQLite database with the site engineer's synthetic 1,000 submissions
(benchmarks/bench_ranking.py ``seed``), computes the ranking snapshot, starts gunicorn
(the Procfile's ``web`` command: gthread, 2 processes x 4 threads by default) on a free
loopback port, then a bounded Python load script with threads requests ``/`` and
``/api/v1/leaderboard``: requests per second and latency percentiles for each.

    .venv/bin/python benchmarks/bench_load.py [--systems 1000] [--threads 16] [--requests 2000]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seed_database(url: str, instance: str, systems: int) -> None:
    from sqlmodel import Session

    from benchmarks.bench_ranking import seed
    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False})
    engine = app.extensions["db_engine"]
    create_all(engine)
    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        board = seed(session, systems, 50, np.random.default_rng(42))
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()
    engine.dispose()


def start_gunicorn(env: dict[str, str], port: int) -> subprocess.Popen:
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    proc = subprocess.Popen([gunicorn, "-c", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}",
                             "wsgi:app"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5):
                return proc
        except OSError:
            time.sleep(0.3)
    stop(proc)
    raise SystemExit("gunicorn did not answer within 60 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def load(url: str, threads: int, total: int, headers: dict[str, str] | None = None,
         expect: int = 200) -> dict[str, float]:
    """``total`` GETs of ``url`` from ``threads`` threads (keep-alive-less, like many clients);
    ``headers`` e.g. If-None-Match (then ``expect`` 304) or Accept-Encoding: gzip."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    counter = iter(range(total))

    def worker() -> None:
        while True:
            with lock:
                if next(counter, None) is None:
                    return
            start = time.perf_counter()
            try:
                request = urllib.request.Request(url, headers=headers or {})
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
                    ok = response.status == expect
            except urllib.error.HTTPError as exc:  # urllib raises on 304
                ok = exc.code == expect
            except OSError:
                ok = False
            elapsed = (time.perf_counter() - start) * 1000
            with lock:
                latencies.append(elapsed)
                errors[0] += 0 if ok else 1

    for _ in range(3):  # warm every gunicorn process's caches
        urllib.request.urlopen(url, timeout=30).read()
    start = time.perf_counter()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    wall = time.perf_counter() - start
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]  # noqa: E731
    return {"requests": len(latencies), "errors": errors[0], "rps": len(latencies) / wall,
            "p50": pct(0.50), "p95": pct(0.95), "p99": pct(0.99)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--web-concurrency", default="2", help="gunicorn processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        instance = f"{tmp}/instance"
        start = time.perf_counter()
        seed_database(url, instance, args.systems)
        print(f"seeded {args.systems} submissions + snapshot in "
              f"{time.perf_counter() - start:.1f} s")
        port = free_port()
        env = dict(os.environ, LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
                   LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_REDIS_URL="",
                   LEADERBOARD_LOG_REQUESTS="0", WEB_CONCURRENCY=args.web_concurrency,
                   # The load comes from one IP; per-IP limits would answer 429 instead.
                   LEADERBOARD_API_RATE_LIMIT="1000000 per minute")
        proc = start_gunicorn(env, port)
        try:
            print(f"gunicorn: {args.web_concurrency} processes x "
                  f"{os.environ.get('GUNICORN_THREADS', '4')} threads; load: {args.threads} "
                  f"client threads, {args.requests} requests per URL")
            print(f"{'url':<30} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} errors")
            for path in ("/", "/api/v1/leaderboard"):
                url = f"http://127.0.0.1:{port}{path}"
                with urllib.request.urlopen(url, timeout=30) as response:
                    etag = response.headers["ETag"]
                runs = [
                    ("", args.threads, args.requests, None, 200),
                    # one client at a time: the server's own time, no queueing behind others
                    (" 1 client", 1, max(50, args.requests // 10), None, 200),
                    (" gzip", args.threads, args.requests, {"Accept-Encoding": "gzip"}, 200),
                    (" 304", args.threads, args.requests, {"If-None-Match": etag}, 304),
                ]
                for label, threads, total, headers, expect in runs:
                    r = load(url, threads, total, headers, expect)
                    name = path + label
                    print(f"{name:<30} {r['rps']:7.1f} {r['p50']:7.1f} {r['p95']:7.1f} "
                          f"{r['p99']:7.1f} {r['errors']:>6}")
        finally:
            stop(proc)


if __name__ == "__main__":
    main()
