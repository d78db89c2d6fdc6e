"""Ranking at scale: refresh cost and page speed with N public systems on one leaderboard.

Seeds a fresh database (SQLite by default) with ``--systems`` public scored submissions of
``--teams`` teams (default: one team per 10 systems, at least 50), written the way the
scoring job writes them (result, per-target statistics of 762 targets like swords-v1.1
test, cached headline values on B = 1000 shared resamples). Then:

- ``full_refresh_s``: the ranking computed from nothing (``leaderboard board rebuild``);
- ``one_result_refresh_s``: median over 5 new public results of the refresh that follows
  each (the worker's job: incremental, from the last snapshot's state, which the worker
  that wrote it keeps in memory);
- ``cold_result_refresh_s``: one more, refreshed as by another worker (the state read from
  the database, no per-resample ranks known);
- page and API timings in a fresh web process with the Flask test client (server time, no
  network): the first request of each URL builds and caches its body, then ``--requests``
  more are timed; ``first_page_of_process_ms`` includes reading the snapshot;
- ``page_bytes`` of ``/?entries=all`` (one page of the all-entries view);
- ``peak_rss_mb`` of this process (seeding and refreshes; the full one holds a POS's
  resampled values of every system) and ``web_peak_rss_mb`` of the web process.

    .venv/bin/python benchmarks/bench_ranking.py --systems 1000 [--json] [--requests 100]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlmodel import Session

from leaderboard import create_app
from leaderboard.db import create_all
from leaderboard.demo.synthetic import SLUG, add_result, add_systems, synthetic_board
from leaderboard.models import Board
from leaderboard.services.ranking.board_state import forget_kept, keep_states
from leaderboard.services.ranking.snapshots import refresh_snapshot

ROOT = Path(__file__).resolve().parent.parent
N_TARGETS, BOOTSTRAP = 762, 1000


def seed(session: Session, n_systems: int, n_teams: int, rng: np.random.Generator) -> Board:
    board = synthetic_board(session, n_targets=N_TARGETS)
    add_systems(session, board, n_systems=n_systems, n_teams=n_teams, rng=rng,
                n_targets=N_TARGETS, bootstrap=BOOTSTRAP, team_name="Team {:04d}",
                system_name="System {:05d}")
    return board


def timed(client, url: str, n: int) -> tuple[float, float, int]:
    """p50 and p95 (ms) of ``n`` GETs after a first one, and the body's size in bytes."""
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    size = len(response.data)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    times.sort()
    return statistics.median(times), times[max(0, int(0.95 * len(times)) - 1)], size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=None)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--database", default=None,
                        help="SQLAlchemy URL (default: SQLite); a shared database needs "
                             "LEADERBOARD_REDIS_URL in the environment, as the site does")
    parser.add_argument("--json", action="store_true", help="Print one JSON object only")
    parser.add_argument("--pages", metavar="DATABASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pages:
        print(json.dumps(pages(args.pages, args.requests)))
        return
    teams = args.teams or max(50, args.systems // 10)
    keep_states()  # as the worker does
    say = (lambda *a: None) if args.json else print
    out: dict = {"systems": args.systems, "teams": teams, "targets": N_TARGETS,
                 "bootstrap": BOOTSTRAP, "machine": f"{platform.machine()}, "
                 f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d %H:%M"),
                 "load_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database or f"sqlite:///{tmp}/bench.db"
        app = create_app({"INSTANCE_PATH": str(Path(tmp) / "instance"), "DATABASE_URL": url,
                          "REDIS_URL": BENCH_REDIS, "SECRET_KEY": "bench",
                          "RATELIMIT_ENABLED": False})
        engine = app.extensions["db_engine"]
        create_all(engine)
        logging.getLogger("leaderboard.access").disabled = True
        rng = np.random.default_rng(42)
        with app.app_context(), Session(engine, expire_on_commit=False) as session:
            start = time.perf_counter()
            board = seed(session, args.systems, teams, rng)
            out["seed_s"] = round(time.perf_counter() - start, 1)
            say(f"seeded {args.systems} systems of {teams} teams in {out['seed_s']} s")
            start = time.perf_counter()
            snapshot = refresh_snapshot(session=session, board_id=board.id, full=True)
            session.commit()
            out["full_refresh_s"] = round(time.perf_counter() - start, 2)
            out["snapshot_mb"] = round(len(json.dumps(snapshot.data)) / 1e6, 1)
            say(f"full refresh {out['full_refresh_s']} s, snapshot {out['snapshot_mb']} MB")
            took = []
            for k in range(5):
                add_result(session, board, team_id=(k * 7) % teams + 1, name=f"New {k}",
                           skill=rng.uniform(0.2, 0.9), rng=rng, n_targets=N_TARGETS,
                           bootstrap=BOOTSTRAP)
                session.commit()
                start = time.perf_counter()
                refresh_snapshot(session=session, board_id=board.id)
                session.commit()
                took.append(time.perf_counter() - start)
                say(f"one new result: refresh {took[-1]:.2f} s")
            out["one_result_refresh_s"] = round(statistics.median(took), 2)
            out["one_result_refresh_all_s"] = [round(t, 2) for t in took]
            # A worker that did not write the last snapshot reads the state from the database
            # and knows no per-resample ranks: the first refresh it runs for the board.
            add_result(session, board, team_id=3 % teams + 1, name="New cold",
                       skill=rng.uniform(0.2, 0.9), rng=rng, n_targets=N_TARGETS,
                       bootstrap=BOOTSTRAP)
            session.commit()
            forget_kept()
            start = time.perf_counter()
            refresh_snapshot(session=session, board_id=board.id)
            session.commit()
            out["cold_result_refresh_s"] = round(time.perf_counter() - start, 2)
            say(f"one new result, refreshed by another worker: {out['cold_result_refresh_s']} s")
        engine.dispose()
        # Pages in a fresh process, as a web worker meets them: it reads the snapshot once.
        served = subprocess.run([sys.executable, __file__, "--pages", url,
                                 "--requests", str(args.requests)],
                                capture_output=True, text=True, cwd=ROOT)
        if served.returncode:
            sys.exit(f"the page process failed:\n{served.stderr}")
        out.update(json.loads(served.stdout))
        say(json.dumps(json.loads(served.stdout), indent=1))
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))


def vm_hwm_mb() -> int:
    """This process's peak resident memory since it started (VmHWM; ``ru_maxrss`` would
    keep the parent's peak across fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


#: Empty: an embedded Redis (SQLite runs); a PostgreSQL run takes the site's Redis URL.
BENCH_REDIS = os.environ.get("LEADERBOARD_REDIS_URL", "")


def pages(url: str, requests: int) -> dict:
    """Page and API timings of a web process that starts now on database ``url``."""
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"INSTANCE_PATH": tmp, "DATABASE_URL": url, "REDIS_URL": BENCH_REDIS,
                          "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False})
        logging.getLogger("leaderboard.access").disabled = True
        client = app.test_client()
        out: dict = {}
        start = time.perf_counter()
        assert client.get("/?sort=date").status_code == 200
        out["first_page_of_process_ms"] = round((time.perf_counter() - start) * 1000)
        urls = {"/": "page", "/?entries=all": "page_all", "/?entries=all&page=2": "page_all_2",
                "/?entries=all&sort=gap&pos=VERB": "page_all_sorted",
                "/?q=Team+0007&entries=all": "page_q", "/significance": "significance",
                "/matrix": "matrix", "/leaderboard.csv?entries=all": "csv_all",
                f"/api/v1/leaderboards/{SLUG}/ranking": "api"}
        for path, name in urls.items():
            p50, p95, size = timed(client, path, requests)
            out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = round(p50, 1), round(p95, 1)
            out[f"{name}_bytes"] = size
        out["page_p95_ms"] = {"/": out["page_p95_ms"], "/?entries=all": out["page_all_p95_ms"]}
        out["page_bytes"] = out["page_all_bytes"]
        out["web_peak_rss_mb"] = vm_hwm_mb()
        app.extensions["db_engine"].dispose()
    return out


if __name__ == "__main__":
    main()
