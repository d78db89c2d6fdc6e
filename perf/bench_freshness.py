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
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bulk_seed import BOOTSTRAP, N_TARGETS, seeded_app  # noqa: E402
from ops_harness import RedisServer, load_average, start_workers, stop, wait_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=30)
    parser.add_argument("--results", type=int, default=5)
    args = parser.parse_args()
    from leaderboard.demo.synthetic import add_result
    from leaderboard.infra.queue import request_snapshot_refresh

    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
          f"{load_average()}; {os.cpu_count()} cores; {args.systems} systems")
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServer(tmp)
        settings = {"REDIS_URL": redis.url, "QUEUE_NAME": "fresh", "RATELIMIT_ENABLED": False,
                    "DATABASE_URL": f"sqlite:///{tmp}/f.db", "INSTANCE_PATH": f"{tmp}/instance"}
        app, board = seeded_app(settings.pop("DATABASE_URL"), settings.pop("INSTANCE_PATH"),
                                args.systems, max(5, args.systems // 10), 5, **settings)
        conf = {**app.config["LEADERBOARD"], **settings}
        env = dict(os.environ, **{f"LEADERBOARD_{k}": str(conf[k]) for k in (
            "INSTANCE_PATH", "DATABASE_URL", "SECRET_KEY", "LOG_REQUESTS", *settings)})
        procs = [redis.proc]
        try:
            procs += start_workers(env, redis.client, 1, command="ranker")
            client, rng = app.test_client(), np.random.default_rng(5)
            url = "/api/v1/leaderboard?entries=all&per_page=1000"
            for k in range(args.results):
                name = f"Fresh {k}"
                with app.app_context(), Session(app.extensions["db_engine"]) as session:
                    add_result(session, board, team_id=1, name=name, skill=0.5, rng=rng,
                               n_targets=N_TARGETS, bootstrap=BOOTSTRAP)
                    session.commit()
                start = time.perf_counter()
                request_snapshot_refresh(board.id, connection=redis.client,  # type: ignore
                                         queue_name="fresh")
                wait_for(lambda name=name: name in client.get(url).get_data(as_text=True),
                         120, "the new result listed", 0.02)
                print(f"result {k + 1}{' (ranker just started)' if k == 0 else ''}: listed "
                      f"{time.perf_counter() - start:.2f} s after its commit; "
                      f"load {load_average()}")
        finally:
            stop(*reversed(procs))
            app.extensions["db_engine"].dispose()


if __name__ == "__main__":
    main()
