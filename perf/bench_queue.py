"""Queue throughput: 200 full test-split submissions enqueued at once, drained by 2 workers.

Imports the real SWORDS v1.1 test split into a throw-away SQLite database, starts two real
``leaderboard worker`` processes on an embedded Redis, commits 200 distinct synthetic
submissions (15 candidates + 5 filler words per target, all 762 targets), enqueues them all,
and waits until every one is final. Then checks in the database that each has exactly one
result, marked current, after one attempt, then waits until the ranking snapshot lists all of
them (refreshes are coalesced jobs on the same queue) and counts the refresh jobs that ran.
Skips when ../shared is absent.

    .venv/bin/python perf/bench_queue.py [--submissions 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from ops_harness import Instance, require_split


def wait_ranked(inst: Instance, split_id: int, ids: list[int], timeout: float) -> float:
    """Seconds until the latest snapshot of the benchmark lists every id."""
    from sqlmodel import Session, col, select

    from leaderboard.models import LeaderboardSnapshot

    start = time.monotonic()
    while time.monotonic() - start < timeout:
        with Session(inst.engine) as session:
            snap = session.exec(select(LeaderboardSnapshot)
                                .where(LeaderboardSnapshot.split_id == split_id)
                                .order_by(col(LeaderboardSnapshot.id).desc())).first()
            if snap is not None and {s["id"] for s in snap.data["systems"]} >= set(ids):
                return time.monotonic() - start
        time.sleep(0.25)
    raise SystemExit(f"the ranking did not list all {len(ids)} after {timeout:.0f} s")


def refresh_counts(inst: Instance) -> dict[str, int]:
    """Refresh jobs by outcome (finished jobs are kept for 10 minutes)."""
    from rq import Queue
    from rq.registry import FinishedJobRegistry

    queue = Queue(inst.settings["QUEUE_NAME"], connection=inst.redis)
    counts: dict[str, int] = {}
    for job_id in FinishedJobRegistry(queue=queue).get_job_ids():
        if job_id.startswith("refresh-"):
            outcome = str(queue.fetch_job(job_id).return_value())
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    args = parser.parse_args()
    raw = require_split()
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, args.database_url)
        try:
            benchmark = inst.import_split(raw)
            ids = inst.add_submissions(benchmark, raw, args.submissions)
            start = time.perf_counter()
            inst.start_workers(args.workers)
            print(f"{args.workers} workers ready in {time.perf_counter() - start:.1f} s "
                  "(WordNet + prepared split loaded)")
            start = time.perf_counter()
            inst.enqueue(ids)
            print(f"enqueued {len(ids)} in {time.perf_counter() - start:.2f} s")
            wall = inst.wait_final(ids, timeout=3600)
            ranked = wait_ranked(inst, benchmark.id, ids, timeout=600)
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
        finally:
            inst.close()


if __name__ == "__main__":
    main()
