"""Scoring one SWORDS file as a user meets it, and the worker that scores uploads.

Whole process: ``leaderboard score --split <test> --submission <CoInCo> --json`` (B=1000, per
POS) run ``--runs`` times as a fresh process each, first with an empty prepared-split cache,
then cached: wall and CPU seconds and each run's peak RSS. ``--also 'LABEL=shell command'``
times another command in the same loop, interleaved (how the before/after and the original
scorer were compared side by side).

Worker: a throw-away instance (SQLite, embedded Redis, the real test split imported) and
one ``leaderboard worker``: seconds from start until it is registered and listening (WordNet
table and prepared split loaded), its RSS then, and after scoring one full submission; then
the real CoInCo and Thesaurus outputs (public, so each also refreshes the ranking), twice
each: the RSS and the high-water mark (VmHWM) of the whole worker after each job.

    .venv/bin/python perf/bench_scoring.py [--runs 7] [--no-worker]   # skips without ../shared
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ops_harness import (  # noqa: E402
    LEADERBOARD_BIN,
    SHARED,
    TEST_SPLIT,
    Instance,
    child_cost,
    synthetic_files,
    vm_mib,
)

COINCO = SHARED / "reference-systems" / "coinco_test.result.json.gz"
THESAURUS = SHARED / "reference-systems" / "thesaurus_test.result.json.gz"


def whole_process(runs: int, also: list[str]) -> None:
    """Time ``leaderboard score --json`` on the CoInCo file as fresh processes (and others)."""
    env = {**os.environ, "LEADERBOARD_CACHE_DIR": tempfile.mkdtemp(prefix="bench-score-")}
    ours = [LEADERBOARD_BIN, "score", "--split", str(TEST_SPLIT), "--submission", str(COINCO),
            "--json"]
    commands = [("leaderboard score --json (cached split)", ours, env)]
    for spec in also:
        label, _, command = spec.partition("=")
        commands.append((label, ["bash", "-c", command], dict(os.environ)))
    cold = child_cost(ours, env=env)
    print(f"\nwhole process, {TEST_SPLIT.name} + {COINCO.name}, B=1000, per POS "
          f"(`uptime`: {os.getloadavg()[0]:.2f} load):")
    print(f"  first call, empty cache (prepares and caches the split): {cold[0]:.2f} s wall, "
          f"{cold[1]:.2f} s CPU, {cold[2]:.0f} MiB peak RSS")
    results: dict[str, list[tuple]] = {label: [] for label, *_ in commands}
    for _ in range(runs):
        for label, argv, cenv in commands:
            results[label].append(child_cost(argv, env=cenv))
    base = statistics.median(m[0] for m in results[commands[0][0]])
    for label, measured in results.items():
        walls = sorted(m[0] for m in measured)
        med = statistics.median(walls)
        print(f"  {label}: median {med:.2f} s wall (min {walls[0]:.2f}, max {walls[-1]:.2f}), "
              f"median {statistics.median(m[1] for m in measured):.2f} s CPU, "
              f"peak RSS {max(m[2] for m in measured):.0f} MiB, n={len(measured)}"
              + ("" if med == base else f"; ours / this = {base / med:.3f}"))


def worker_readiness() -> None:
    """Seconds until a fresh ``leaderboard worker`` can score, and its RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp)
        try:
            split = inst.import_split(TEST_SPLIT.read_bytes())
            start = time.perf_counter()
            [proc] = inst.start_workers(1)
            ready, rss_ready = time.perf_counter() - start, vm_mib(proc.pid)[0]
            ids = inst.add_files(split, synthetic_files(TEST_SPLIT.read_bytes(), 1))
            started = time.perf_counter()
            inst.enqueue(ids)
            inst.wait_final(ids, timeout=120)
            scored = time.perf_counter() - started
            rss, hwm = vm_mib(proc.pid)
            print(f"\nworker: registered and listening {ready:.2f} s after start "
                  f"(WordNet table + prepared split loaded), RSS {rss_ready} MiB; one full "
                  f"submission scored in {scored:.2f} s (polled every 0.25 s); RSS then "
                  f"{rss} MiB, peak {hwm} MiB")
            after = []
            for path in (COINCO, THESAURUS, COINCO, THESAURUS):
                ids = inst.add_files(split, iter([path.read_bytes()]), iter([path.name]))
                inst.enqueue(ids)
                inst.wait_final(ids, timeout=120)
                after.append(f"{path.name.split('_')[0]} {'/'.join(map(str, vm_mib(proc.pid)))}")
            print(f"  then, RSS/VmHWM MiB after each job: {', '.join(after)}")
        finally:
            inst.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="whole-process runs per command")
    parser.add_argument("--also", action="append", default=[], metavar="LABEL=COMMAND",
                        help="another shell command to time in the same loop")
    parser.add_argument("--no-worker", action="store_true", help="skip the worker measure")
    args = parser.parse_args()
    if not TEST_SPLIT.is_file():
        print(f"skipped: {TEST_SPLIT} not found (set LEADERBOARD_SHARED_DIR)")
        return 0
    whole_process(args.runs, args.also)
    if not args.no_worker:
        worker_readiness()
    return 0


if __name__ == "__main__":
    sys.exit(main())
