"""Freshness: seconds from a result's commit (scored) until the public ranking lists it.

Seeds a fresh SQLite board of ``--systems`` systems (``bulk_seed.py``) and its snapshot,
starts a real ``leaderboard ranker`` on a private redis-server, then ``--results`` times:
stores a new public result, asks for the board's refresh as the scoring job does, and polls
the ranking API through the app (the web's read path) until it lists the new system. The
first result meets a ranker that just started (no ranking state in memory).

    .venv/bin/python perf/bench_freshness.py [--systems 30] [--results 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(predicate, timeout: float) -> float:
    """Seconds until ``predicate()`` holds (polled every 20 ms); raises past ``timeout``."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise SystemExit(f"not within {timeout} s")
        time.sleep(0.02)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--results", type=int, default=5)
    args = parser.parse_args()
    from leaderboard.infra.redis_conn import connect_redis
    from leaderboard.ranker.placement import live_rankers

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
          f"{os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; {args.systems} systems")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        redis = subprocess.Popen([shutil.which("redis-server") or "redis-server", "--port",
                                  str(port), "--save", "", "--appendonly", "no", "--dir", tmp],
                                 stdout=subprocess.DEVNULL)
        settings = {"INSTANCE_PATH": f"{tmp}/instance", "DATABASE_URL": f"sqlite:///{tmp}/f.db",
                    "REDIS_URL": f"redis://127.0.0.1:{port}/0", "SECRET_KEY": "bench",
                    "QUEUE_NAME": "fresh", "LOG_REQUESTS": False, "RATELIMIT_ENABLED": False}
        rng = np.random.default_rng(5)
        app, board = _seeded_app(settings, args.systems, rng)
        engine = app.extensions["db_engine"]
        env = dict(os.environ, **{f"LEADERBOARD_{k}": str(v) for k, v in settings.items()})
        ranker = subprocess.Popen([str(Path(sys.executable).with_name("leaderboard")),
                                   "ranker"], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        connection = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
        try:
            _wait(lambda: live_rankers(connection, "fresh"), 120)
            _time_fresh_results(app, board, connection, rng, args.results)
        finally:
            ranker.terminate()
            ranker.wait(timeout=30)
            redis.terminate()
            redis.wait(timeout=10)
            engine.dispose()


def _seeded_app(settings: dict, systems: int, rng: np.random.Generator):
    """The app on a fresh database seeded with ``systems`` results and its snapshot."""
    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.ranking.snapshots import refresh_snapshot
    from perf.bulk_seed import seed

    app = create_app(settings)
    engine = app.extensions["db_engine"]
    create_all(engine)
    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        board = seed(session, systems, max(5, systems // 10), rng)
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()
    return app, board


def _time_fresh_results(app, board, connection, rng: np.random.Generator, results: int) -> None:
    """Add ``results`` results one at a time; print how long each takes to be listed."""
    from sqlmodel import Session

    from leaderboard.demo.synthetic import add_result
    from leaderboard.infra.queue import request_snapshot_refresh
    from perf.bulk_seed import BOOTSTRAP, N_TARGETS

    engine = app.extensions["db_engine"]
    client = app.test_client()
    url = "/api/v1/leaderboard?entries=all&per_page=1000"
    for k in range(results):
        name = f"Fresh {k}"
        with app.app_context(), Session(engine, expire_on_commit=False) as session:
            add_result(session, board, team_id=1, name=name, skill=0.5, rng=rng,
                       n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
            session.commit()
        start = time.perf_counter()
        request_snapshot_refresh(board.id, connection=connection,  # type: ignore[arg-type]
                                 queue_name="fresh")
        _wait(lambda name=name: name in client.get(url).get_data(as_text=True), 120)
        took = time.perf_counter() - start
        print(f"result {k + 1}{' (ranker just started)' if k == 0 else ''}: listed "
              f"{took:.2f} s after its commit; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
