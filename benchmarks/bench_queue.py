"""Queue throughput: 200 full test-split submissions enqueued at once, drained by 2 workers.

Imports the real SWORDS v1.1 test split into a throw-away SQLite database, starts two real
``leaderboard worker`` processes on an embedded Redis, commits 200 distinct synthetic
submissions (15 candidates + 5 filler words per target, all 762 targets), enqueues them all,
and waits until every one is final. Then checks in the database that each has exactly one
result, marked current, after one attempt. Skips when ../shared is absent.

    .venv/bin/python benchmarks/bench_queue.py [--submissions 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from ops_harness import Instance, require_split


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
