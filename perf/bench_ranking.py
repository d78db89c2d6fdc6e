"""Ranking at scale: refresh cost and page speed with N public systems on one leaderboard.

Seeds a fresh database (SQLite by default) with ``--systems`` public scored submissions of
``--teams`` teams (default: one team per 10 systems, at least 50), written the way the
scoring job writes them (result, per-target statistics of 762 targets like swords-v1.1
test, cached headline values on B = 1000 shared resamples). Then:

Seeding is bulk (``bulk_seed.py``). The ranker's work then runs in a process of its own:

- ``full_refresh_s``: the ranking computed from nothing (``leaderboard board rebuild``);
- ``one_result_refresh_s``: median over 5 new public results of the refresh that follows
  each (warm: the ranker that wrote the last snapshot keeps its state in memory);
- ``burst_50_refresh_s``: 50 new results, one (warm) refresh;
- ``*_cpu_s`` beside each refresh: the CPU seconds of the ranker process (every thread,
  BLAS's included), less sensitive than wall time to what else runs on the machine;
- ``cold_result_refresh_s``: one more result, refreshed as by another ranker (the state read
  from the database, no per-resample ranks known);
- ``worker_peak_rss_mb``: that process's peak resident memory (``seed_peak_rss_mb``: the
  seeding's);
- page and API timings in a fresh web process with the Flask test client (server time, no
  network): the first request of each URL builds and caches its body, then ``--requests``
  more are timed; ``first_page_of_process_ms`` includes reading the snapshot;
- ``page_bytes`` of ``/?entries=all`` (one page of the all-entries view) and
  ``web_peak_rss_mb`` of the web process.

``--changes K`` measures instead what a burst costs, in this one process: after the first
snapshot (its state kept in memory), K new results (as the scoring job adds them, without
cached resamples), then the board refreshed on the same data: rebuilt once unreported (it
reads the new results' values into the process), updated (forced whatever the share of
changes) from the first snapshot's kept state, then rebuilt again; each rolled back.

    .venv/bin/python perf/bench_ranking.py --systems 1000 [--json] [--requests 100]
    .venv/bin/python perf/bench_ranking.py --systems 200 --changes 60
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlmodel import Session, select

from leaderboard import create_app
from leaderboard.db import create_all
from leaderboard.demo.synthetic import SLUG, add_result
from leaderboard.services.ranking import blocks, board_state
from leaderboard.services.ranking.board_state import forget_kept, keep_states
from leaderboard.services.ranking.snapshots import refresh_snapshot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from perf.bulk_seed import BOOTSTRAP, N_TARGETS, seed, seeded_app  # noqa: E402
from perf.ops_harness import vm_mib  # noqa: E402


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
    parser.add_argument("--changes", type=int, help="the cost of a burst of this many results")
    parser.add_argument("--pages", metavar="DATABASE_URL", help=argparse.SUPPRESS)
    parser.add_argument("--refresh", metavar="DATABASE_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    teams = args.teams or max(50, args.systems // 10)
    if args.pages:
        print(json.dumps(pages(args.pages, args.requests)))
        return
    if args.refresh:
        print(json.dumps(refreshes(args.refresh, teams)))
        return
    if args.changes:
        print(json.dumps(burst_cost(args.systems, args.changes)))
        return
    say = (lambda *a: None) if args.json else print
    out: dict = {"systems": args.systems, "teams": teams, "targets": N_TARGETS,
                 "bootstrap": BOOTSTRAP, "machine": f"{platform.machine()}, "
                 f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d %H:%M"),
                 "load_before": os.getloadavg()[0]}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database or f"sqlite:///{tmp}/bench.db"
        app = _app(url, str(Path(tmp) / "instance"))
        engine = app.extensions["db_engine"]
        create_all(engine)
        with app.app_context(), Session(engine, expire_on_commit=False) as session:
            start = time.perf_counter()
            seed(session, args.systems, teams, np.random.default_rng(42))
            out["seed_s"] = round(time.perf_counter() - start, 1)
            say(f"seeded {args.systems} systems of {teams} teams in {out['seed_s']} s")
        engine.dispose()
        out["seed_peak_rss_mb"] = vm_mib()[1]
        # Refreshes in a process of their own, as a ranker runs them: its peak memory is
        # the worker's, not the seeding's.
        for flag, what in (("--refresh", "refresh"), ("--pages", "page")):
            # Pages in a fresh process, as a web worker meets them: it reads the snapshot once.
            done = subprocess.run([sys.executable, __file__, flag, url, "--systems",
                                   str(args.systems), "--teams", str(teams), "--requests",
                                   str(args.requests)], capture_output=True, text=True,
                                  cwd=ROOT)
            if done.returncode:
                sys.exit(f"the {what} process failed:\n{done.stderr}")
            out.update(json.loads(done.stdout))
            say(json.dumps(json.loads(done.stdout), indent=1))
    out["total_s"] = round(time.perf_counter() - started)
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))


def _app(url: str, instance: str):  # noqa: ANN202 - a Flask app
    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "REDIS_URL": BENCH_REDIS,
                      "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False})
    logging.getLogger("leaderboard.access").disabled = True
    return app


def refreshes(url: str, teams: int) -> dict:
    """A ranker's work on the seeded board: the full refresh, one new result at a time
    (warm: this process wrote the last state), a burst of 50 results in one refresh, and one
    result refreshed cold (state from the database)."""
    from leaderboard.models import Board

    keep_states()  # as the ranker does
    out: dict = {}
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(url, tmp)
        engine = app.extensions["db_engine"]
        with app.app_context(), Session(engine, expire_on_commit=False) as session:
            board = session.exec(select(Board)).first()

            def timed_refresh(full: bool = False) -> tuple[float, int]:
                start, cpu = time.perf_counter(), time.process_time()
                snapshot = refresh_snapshot(session=session, board_id=board.id, full=full)
                session.commit()
                cpus.append(time.process_time() - cpu)  # every thread's, BLAS's included
                return time.perf_counter() - start, snapshot.id

            cpus: list[float] = []

            def new_results(n: int, name: str) -> None:
                for k in range(n):
                    add_result(session, board, team_id=(k * 7) % teams + 1, name=f"{name} {k}",
                               skill=rng.uniform(0.2, 0.9), rng=rng, n_targets=N_TARGETS,
                               bootstrap=BOOTSTRAP)
                session.commit()

            took, _snapshot_id = timed_refresh(full=True)
            out["full_refresh_s"] = round(took, 2)
            out["full_refresh_cpu_s"] = round(cpus[-1], 2)
            warm = []
            for k in range(5):
                new_results(1, f"New {k}")
                warm.append(timed_refresh()[0])
            out["one_result_refresh_s"] = round(statistics.median(warm), 2)
            out["one_result_refresh_all_s"] = [round(t, 2) for t in warm]
            out["one_result_refresh_cpu_s"] = round(statistics.median(cpus[-5:]), 2)
            out["one_result_load"] = round(os.getloadavg()[0], 2)
            new_results(50, "Burst")
            out["burst_50_refresh_s"] = round(timed_refresh()[0], 2)
            out["burst_50_refresh_cpu_s"] = round(cpus[-1], 2)
            out["burst_load"] = round(os.getloadavg()[0], 2)
            new_results(1, "New cold")
            forget_kept()  # another ranker: no state in memory
            out["cold_result_refresh_s"] = round(timed_refresh()[0], 2)
            out["cold_result_refresh_cpu_s"] = round(cpus[-1], 2)
        engine.dispose()
    out["worker_peak_rss_mb"] = vm_mib()[1]
    return out


#: Empty: an embedded Redis (SQLite runs); a PostgreSQL run takes the site's Redis URL.
BENCH_REDIS = os.environ.get("LEADERBOARD_REDIS_URL", "")


def pages(url: str, requests: int) -> dict:
    """Page and API timings of a web process that starts now on database ``url``."""
    with tempfile.TemporaryDirectory() as tmp:
        app = _app(url, tmp)
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
        out["web_peak_rss_mb"] = vm_mib()[1]
        app.extensions["db_engine"].dispose()
    return out


def burst_cost(systems: int, changes: int) -> dict:
    """One refresh after ``changes`` new results on a board of ``systems``: the kept rank
    state updated, against the state rebuilt (wall and CPU seconds of this process)."""
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(),
                 "load": os.getloadavg()[0], "systems": systems, "changes": changes}
    keep_states()
    with tempfile.TemporaryDirectory() as tmp:
        app, board = seeded_app(f"sqlite:///{tmp}/burst.db", tmp, systems,
                                max(1, systems // 10), 1)
        with Session(app.extensions["db_engine"]) as session:
            rng = np.random.default_rng(2)
            for i in range(changes):
                add_result(session, board, team_id=1, name=f"New {i}",
                           skill=rng.uniform(0.2, 0.9), rng=rng, n_targets=N_TARGETS,
                           bootstrap=BOOTSTRAP)
            session.commit()
            blocks.FULL_REBUILD_SHARE = float("inf")  # measure the update whatever the share
            kept = dict(board_state._LAST_WRITTEN)

            def refresh(name: str, full: bool) -> None:
                start, cpu = time.perf_counter(), time.process_time()
                refresh_snapshot(session=session, board_id=board.id, full=full)
                out[f"{name}_s"] = round(time.perf_counter() - start, 2)
                out[f"{name}_cpu_s"] = round(time.process_time() - cpu, 2)
                if not full:
                    written = board_state.last_written(board.id)
                    assert written and written.incremental and written.origin == "memory"
                session.rollback()
                board_state._LAST_WRITTEN.clear()  # the first snapshot's state, kept
                board_state._LAST_WRITTEN.update(kept)

            # First a rebuild, not reported: it reads the new results' values into this
            # process, as the update would have to (the order must not favour one).
            refresh("first_rebuild", True)
            out["load_before_update"] = os.getloadavg()[0]
            refresh("updated", False)
            refresh("rebuilt", True)
        app.extensions["db_engine"].dispose()
    out["load_after"] = os.getloadavg()[0]
    return out


if __name__ == "__main__":
    main()
