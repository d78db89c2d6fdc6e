"""The queue: one upload's latency to ``scored``, and a drain of full test-split submissions.

Imports the real SWORDS v1.1 test split into a throw-away SQLite database with an embedded
Redis and real ``leaderboard worker`` processes; every submission is a distinct synthetic
full test-split file (15 candidates + 5 filler words on each of the 762 targets, ~0.3 MB).

- ``--latency N``: N uploads one after another through ``POST /api/v1/submissions`` (the app
  served by werkzeug on 127.0.0.1) to one idle worker, each timed from just before the POST
  until ``GET /api/v1/submissions/<id>`` (polled every 20 ms) says ``scored``; the upload
  request alone is timed too.
- otherwise: ``--submissions`` (200) committed and enqueued at once, drained by ``--workers``
  (2) beside one ``leaderboard ranker``; then checks in the database that each has exactly
  one result, marked current, waits until the ranking snapshot lists all of them and counts
  the ranker's refreshes.

Skips when ../shared is absent.

    .venv/bin/python perf/bench_queue.py [--submissions 200] [--workers 2] [--latency 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from sqlmodel import Session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import request  # noqa: E402
from ops_harness import (  # noqa: E402
    Instance,
    require_split,
    start_workers,
    synthetic_files,
    wait_for,
)


def wait_ranked(inst: Instance, split_id: int, ids: list[int], timeout: float) -> float:
    """Seconds until the latest snapshot of the benchmark lists every id."""
    from sqlmodel import col, select

    from leaderboard.models import LeaderboardSnapshot

    def listed() -> bool:
        with Session(inst.engine) as session:
            snap = session.exec(select(LeaderboardSnapshot)
                                .where(LeaderboardSnapshot.split_id == split_id)
                                .order_by(col(LeaderboardSnapshot.id).desc())).first()
            return snap is not None and {s["id"] for s in snap.data["systems"]} >= set(ids)

    return wait_for(listed, timeout, f"the ranking listing all {len(ids)}", 0.25)


def refresh_counts(inst: Instance) -> dict[str, int]:
    """The site's refresh counters (warm, cold, incremental, full)."""
    from leaderboard.infra.queue import refresh_stats_key

    stats = inst.redis.hgetall(refresh_stats_key(inst.settings["QUEUE_NAME"]))
    return {k.decode(): int(v) for k, v in stats.items()}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def latency(inst: Instance, raw_split: bytes, n: int) -> None:
    """``n`` uploads over HTTP one after another, each until it is scored."""
    import logging

    from werkzeug.serving import make_server

    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    inst.import_split(raw_split)
    with Session(inst.engine, expire_on_commit=False) as session:
        team, _ = create_team(session=session, name="Bench", email="b@example.org",
                              password="bench-password-1", verified=True)
        token = issue_token(session=session, team=team, name="bench")[1]
        session.commit()
    server = make_server("127.0.0.1", 0, inst.app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        inst.start_workers(1)
        upload_s, took = [], []
        for i, raw in enumerate(synthetic_files(raw_split, n)):
            start = time.perf_counter()
            status, doc, _h = request(base, "POST", "/api/v1/submissions", token=token,
                                      fields={"name": f"latency {i}"}, file=raw)
            assert status == 202, (status, doc)
            upload_s.append(time.perf_counter() - start)
            path = f"/api/v1/submissions/{doc['id']}"
            wait_for(lambda path=path: request(base, "GET", path, token=token)[1]["status"]
                     == "scored", 120, "scored", 0.02)
            took.append(time.perf_counter() - start)
        print(f"latency, 1 idle worker, n={n}: p50 {pct(took, .5):.2f} s, p95 "
              f"{pct(took, .95):.2f} s, max {max(took):.2f} s (upload request alone: p50 "
              f"{pct(upload_s, .5) * 1000:.0f} ms)")
    finally:
        server.shutdown()


def drain(inst: Instance, raw: bytes, submissions: int, workers: int) -> None:
    """``submissions`` enqueued at once, drained by ``workers``; exactly once checked."""
    split = inst.import_split(raw)
    ids = inst.add_files(split, synthetic_files(raw, submissions))
    inst.workers += start_workers(inst.env(), inst.redis, 1, inst.tmp, "ranker")
    start = time.perf_counter()
    inst.start_workers(workers)
    print(f"{workers} workers ready in {time.perf_counter() - start:.1f} s "
          "(WordNet + prepared split loaded)")
    start = time.perf_counter()
    inst.enqueue(ids)
    print(f"enqueued {len(ids)} in {time.perf_counter() - start:.2f} s")
    wall = inst.wait_final(ids, timeout=3600)
    ranked = wait_ranked(inst, split.id, ids, timeout=600)
    print(f"all {len(ids)} in the ranking snapshot {ranked:.1f} s after the drain; "
          f"refresh jobs: {refresh_counts(inst)}")
    check = inst.result_check(ids)
    durations = sorted(check.pop("durations"))
    print(f"drained in {wall:.1f} s: {len(ids) / wall:.2f} submissions/s, "
          f"{3600 * len(ids) / wall:.0f}/hour")
    print(f"per job (started -> finished): median {statistics.median(durations):.2f} s,"
          f" p95 {durations[int(0.95 * len(durations)) - 1]:.2f} s")
    print(f"statuses: {inst.statuses(ids)}")
    print(f"database check: {check}")
    ok = (check["with_one_current_result"] == len(ids)
          and check["with_more_than_one_result"] == 0)
    print("EXACTLY ONCE: yes" if ok else "EXACTLY ONCE: NO")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--latency", type=int, default=0, help="sequential uploads instead")
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    args = parser.parse_args()
    raw = require_split()
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, args.database_url, DAILY_SCORED_QUOTA=10_000,
                        TOTAL_SCORED_QUOTA=10_000, DAILY_ATTEMPT_CAP=10_000,
                        API_RATE_LIMIT="100000 per minute")
        try:
            if args.latency:
                latency(inst, raw, args.latency)
            else:
                drain(inst, raw, args.submissions, args.workers)
        finally:
            inst.close()


if __name__ == "__main__":
    main()
