"""Benchmark of the scoring engine on the real SWORDS test split.

In process: loading the WordNet table, loading and preparing the split (lemmatization of the
gold), the prepared split's serialisation, and scoring one submission of 50 substitutes per
target with every metric, B=1000 intervals and per-POS numbers, cold (first lemmatization of
its strings) and warm (a worker that already saw them).

Whole process: ``leaderboard score --split <test> --submission <CoInCo> --json`` (B=1000, per
POS) run ``--runs`` times as a fresh process each, first with an empty prepared-split cache,
then cached: wall and CPU seconds and each run's peak RSS (GNU ``/usr/bin/time``).
``--also 'LABEL=shell command'`` times another command in the same loop, interleaved (how
the before/after and the original scorer were compared side by side).

Worker: a throw-away instance (SQLite, embedded Redis, the real test split imported) and
one ``leaderboard worker``: seconds from start until it is registered and listening (WordNet
table and prepared split loaded), its RSS then, and after scoring one full submission; then
the real CoInCo and Thesaurus outputs (public, so each also refreshes the ranking), twice
each: the RSS and the high-water mark (VmHWM) of the whole worker after each job.

Run: ``.venv/bin/python perf/bench_scoring.py [--runs 7] [--no-worker]`` (skips when
../shared is absent).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LEADERBOARD_SHARED_DIR", ROOT.parent / "shared"))
SPLIT = SHARED / "data" / "swords" / "swords-v1.1_test.json.gz"
COINCO = SHARED / "data" / "reference-systems" / "coinco_test.result.json.gz"
THESAURUS = SHARED / "data" / "reference-systems" / "thesaurus_test.result.json.gz"
LEADERBOARD_BIN = str(Path(sys.executable).with_name("leaderboard"))
FILLER = ("thing", "make", "good", "big", "way", "part", "place", "take", "give", "work",
          "great", "really", "very", "move", "run", "set", "keep", "point", "state", "form")


class Timer:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> Timer:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def synthetic_submission(split: dict, per_target: int = 50, seed: int = 0) -> dict:
    """50 substitutes per target: its candidate strings (shuffled, some inflected), then filler."""
    rng = random.Random(seed)
    by_target: dict[str, list[str]] = {tid: [] for tid in split["targets"]}
    for sub in split["substitutes"].values():
        by_target[sub["target_id"]].append(sub["substitute"])
    out = {}
    for tid, subs in by_target.items():
        rng.shuffle(subs)
        words = [s + "s" if rng.random() < 0.2 else s for s in subs]
        words += [f"{w}{i}" for i, w in enumerate(FILLER * 3)]
        out[tid] = [[w, round(1.0 - k / per_target, 4)] for k, w in enumerate(words[:per_target])]
    return {"substitutes_lemmatized": False, "substitutes": out}


def run_child(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS MiB) of one child process, measured by GNU time.

    GNU time forks the command from a small process; measuring from this one would count
    the RSS this (bigger) process had when it forked.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name, *argv],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode:
            raise SystemExit(f"{argv[:3]} failed ({proc.returncode}): "
                             f"{proc.stderr.decode(errors='replace')[-500:]}")
        wall, user, system, rss_kib = out.read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss_kib) // 1024


def whole_process(runs: int, also: list[str]) -> None:
    """Time ``leaderboard score --json`` on the CoInCo file as fresh processes (and others)."""
    cache = Path(tempfile.mkdtemp(prefix="bench-score-cache-"))
    env = {**os.environ, "LEADERBOARD_CACHE_DIR": str(cache)}
    ours = [LEADERBOARD_BIN, "score", "--split", str(SPLIT), "--submission", str(COINCO),
            "--json"]
    commands = [("leaderboard score --json (cached split)", ours, env)]
    for spec in also:
        label, _, command = spec.partition("=")
        commands.append((label, ["bash", "-c", command], dict(os.environ)))
    cold = run_child(ours, env)
    print(f"\nwhole process, {SPLIT.name} + {COINCO.name}, B=1000, per POS "
          f"(`uptime`: {os.getloadavg()[0]:.2f} load):")
    print(f"  first call, empty cache (prepares and caches the split): {cold[0]:.2f} s wall, "
          f"{cold[1]:.2f} s CPU, {cold[2]} MiB peak RSS")
    results: dict[str, list[tuple[float, float, int]]] = {label: [] for label, *_ in commands}
    for _ in range(runs):
        for label, argv, cenv in commands:
            results[label].append(run_child(argv, cenv))
    base = statistics.median(w for w, _, _ in results[commands[0][0]])
    for label, measured in results.items():
        walls = sorted(w for w, _, _ in measured)
        med = statistics.median(walls)
        print(f"  {label}: median {med:.2f} s wall (min {walls[0]:.2f}, max {walls[-1]:.2f}), "
              f"median {statistics.median(c for _, c, _ in measured):.2f} s CPU, "
              f"peak RSS {max(r for _, _, r in measured)} MiB, n={len(measured)}"
              + ("" if med == base else f"; ours / this = {base / med:.3f}"))


def worker_readiness() -> None:
    """Seconds until a fresh ``leaderboard worker`` can score, and its RSS."""
    sys.path.insert(0, str(ROOT / "perf"))
    from ops_harness import Instance

    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp)
        try:
            benchmark = inst.import_split(SPLIT.read_bytes())
            start = time.perf_counter()
            [proc] = inst.start_workers(1)
            ready = time.perf_counter() - start
            rss_ready = _rss_mib(proc.pid)
            ids = inst.add_submissions(benchmark, SPLIT.read_bytes(), 1)
            started = time.perf_counter()
            inst.enqueue(ids)
            inst.wait_final(ids, timeout=120)
            scored = time.perf_counter() - started
            print(f"\nworker: registered and listening {ready:.2f} s after start "
                  f"(WordNet table + prepared split loaded), RSS {rss_ready[0]} MiB; one full "
                  f"submission scored in {scored:.2f} s (polled every 0.25 s); RSS then "
                  f"{_rss_mib(proc.pid)[0]} MiB, peak {_rss_mib(proc.pid)[1]} MiB")
            after = []
            for path in (COINCO, THESAURUS, COINCO, THESAURUS):
                sid = _add_file(inst, benchmark, path)
                inst.enqueue([sid])
                inst.wait_final([sid], timeout=120)
                rss, hwm = _rss_mib(proc.pid)
                after.append(f"{path.name.split('_')[0]} {rss}/{hwm}")
            print(f"  then, RSS/VmHWM MiB after each job: {', '.join(after)}")
        finally:
            inst.close()


def _add_file(inst, benchmark, path: Path) -> int:
    """A public submission of a real system output (the gzipped file as uploaded), queued."""
    import hashlib

    from sqlmodel import Session

    from leaderboard.models import Submission, SubmissionStatus, Team
    from leaderboard.services.catalog.boards import import_board

    raw = path.read_bytes()
    with Session(inst.engine) as session:
        team = Team(name=f"Bench {path.name} {time.time_ns()}")
        session.add(team)
        session.flush()
        row = Submission(team_id=team.id, split_id=benchmark.id,
                         board_id=import_board(session, benchmark).id, system_name=path.name,
                         file_bytes=raw, file_sha256=hashlib.sha256(raw).hexdigest(),
                         file_size=len(raw), is_public=True, status=SubmissionStatus.QUEUED)
        session.add(row)
        session.commit()
        return row.id


def _rss_mib(pid: int) -> tuple[int, int]:
    """(current, peak) resident set of a live process, MiB, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024)


def main() -> int:
    """Run the benchmark and print a small report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="whole-process runs per command")
    parser.add_argument("--also", action="append", default=[], metavar="LABEL=COMMAND",
                        help="another shell command to time in the same loop")
    parser.add_argument("--no-worker", action="store_true", help="skip the worker measure")
    parser.add_argument("--no-in-process", action="store_true",
                        help="skip the in-process steps")
    args = parser.parse_args()
    if not SPLIT.is_file():
        print(f"skipped: {SPLIT} not found (set LEADERBOARD_SHARED_DIR)")
        return 0
    if not args.no_in_process:
        in_process()
    whole_process(args.runs, args.also)
    if not args.no_worker:
        worker_readiness()
    return 0


def in_process() -> None:
    """The steps of one score inside this process."""
    import json

    from leaderboard.scoring import (
        PreparedSplit,
        ensure_wordnet,
        load_split,
        prepare_split,
        score_submission,
        validate_submission,
    )

    with Timer() as t_wn:
        ensure_wordnet()
    with Timer() as t_load:
        split = load_split(SPLIT)
    with Timer() as t_prep:
        prepared = prepare_split(split, name=SPLIT.name)
    with Timer() as t_ser:
        blob = prepared.to_bytes()
    with Timer() as t_deser:
        prepared = PreparedSplit.from_bytes(blob)
    raw = json.dumps(synthetic_submission(split)).encode()
    del split
    with Timer() as t_val:
        report = validate_submission(raw, prepared)
    assert report.ok, report.errors[:3]
    prepared.resamples()  # drawn once per split when a worker loads it
    with Timer() as t_cold:
        score_submission(prepared, report, bootstrap=1000)
    runs = []
    for _ in range(5):
        with Timer() as t:
            result = score_submission(prepared, report, bootstrap=1000)
        runs.append(t)
    # tracemalloc slows allocation-heavy code down: memory is measured on a separate run
    tracemalloc.start()
    score_submission(prepared, report, bootstrap=1000)
    _, peak_warm = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    best = min(runs, key=lambda t: t.cpu)
    rows = [
        ("WordNet table load", t_wn),
        ("load split (json.gz)", t_load),
        ("prepare split (lemmatize gold)", t_prep),
        (f"PreparedSplit.to_bytes ({len(blob) / 1e6:.2f} MB)", t_ser),
        ("PreparedSplit.from_bytes", t_deser),
        (f"validate submission ({len(raw) / 1e6:.2f} MB)", t_val),
        ("score, cold lemma cache, B=1000 + per POS", t_cold),
        ("score, warm (best of 5), B=1000 + per POS", best),
    ]
    print(f"{'step':<46} {'wall s':>8} {'cpu s':>8}")
    for name, t in rows:
        print(f"{name:<46} {t.wall:8.3f} {t.cpu:8.3f}")
    print(f"scored {result.counts['targets_answered']} targets, mean list length "
          f"{result.counts['mean_list_length']:.1f}")
    print(f"peak memory allocated while scoring (tracemalloc): {peak_warm / 1e6:.1f} MB")
    print(f"process max RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
