"""Benchmark of the scoring engine on the real SWORDS test split.

Measures: loading and preparing the split (WordNet lemmatization of the gold), the prepared
split's serialisation, and scoring one submission of 50 substitutes per target with every
metric, B=1000 intervals and per-POS numbers, cold (first lemmatization of its strings) and
warm (a worker that already saw them). Prints CPU and wall seconds and peak memory.

Run: ``.venv/bin/python benchmarks/bench_scoring.py`` (skips when ../shared is absent).
"""

from __future__ import annotations

import os
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LEADERBOARD_SHARED_DIR", ROOT.parent / "shared"))
SPLIT = SHARED / "data" / "swords" / "swords-v1.1_test.json.gz"
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


def main() -> int:
    """Run the benchmark and print a small report."""
    if not SPLIT.is_file():
        print(f"skipped: {SPLIT} not found (set LEADERBOARD_SHARED_DIR)")
        return 0
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
        ("WordNet load (NLTK reader)", t_wn),
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
