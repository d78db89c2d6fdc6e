"""TSAR-2022 scoring, as users meet it, beside the task's own ``tsar_eval.py``.

Whole processes, each timed 3 times (median) with its peak RSS and CPU seconds (the
``timed`` helper of bench_lexsub.py):

* ``leaderboard score --split tsar2022:<lang>-test FILE`` with B = 1000 and B = 0;
* ``python3 tsar_eval.py --gold_file G --predictions_file FILE --output_file O`` (run from
  ../shared/data/tsar2022, never copied);
* the scoring job's own work (validate + score, B = 1000) inside a fresh process.

FILE is a seeded run for every instance of the split: ten substitutes drawn from the
instance's gold annotations and two strings outside them, with repeats and the complex word
mixed in (the script drops both). Without ../shared/data/tsar2022 ($LEADERBOARD_TSAR_DIR),
the script prints why and stops.

    .venv/bin/python perf/bench_tsar.py [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "perf"))
from bench_lexsub import CPU, LEADERBOARD, timed  # noqa: E402

JOB = """
import sys, time
from leaderboard.scoring.families import FAMILIES
fam = FAMILIES["tsar2022"]
prepared = fam.prepare(fam.build_source(sys.argv[1]), name="x")
raw = open(sys.argv[2], "rb").read()
start = time.perf_counter()
report = fam.validate(raw, prepared, track="generative")
fam.score(prepared, report, track="generative")
print(time.perf_counter() - start)
"""


def run_file(split, seed: int = 0) -> str:
    """A seeded run for every instance of ``split`` (a prepared TSAR split)."""
    rng = random.Random(seed)
    lines = []
    for target in split.targets:
        pool = list(target.counts) + ["outside", "elsewhere", target.word]
        subs = [rng.choice(pool) for _ in range(12)]
        lines.append("\t".join([target.sentence, target.word, *subs]))
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from leaderboard.scoring.families import FAMILIES
    from leaderboard.scoring.tsar.data import data_dir, split_paths

    root = data_dir()
    script = root / "tsar_eval.py"
    if not script.is_file():
        print(f"skipped: no TSAR-2022 files at {root}")
        return 0
    fam, rows = FAMILIES["tsar2022"], []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        env = {**os.environ, "LEADERBOARD_CACHE_DIR": str(tmp / "cache")}
        for lang in ("en", "es", "pt"):
            split = f"{lang}-test"
            prepared = fam.prepare_files(split, name=split, bootstrap=0)
            run = tmp / f"{split}.tsv"
            run.write_bytes(run_file(prepared).encode("utf-8"))
            case = f"{split} ({len(prepared.targets)} instances)"
            for b in (1000, 0):
                t, rss, _ = timed([LEADERBOARD, "score", "--split", f"tsar2022:{split}",
                                   str(run), "--bootstrap", str(b)], env=env)
                rows.append({"case": case, "tool": f"leaderboard score B={b}",
                             "seconds": round(t, 2), "cpu_s": round(CPU[0], 2),
                             "peak_rss_mb": round(rss)})
            t, rss, out = timed([sys.executable, "-c", JOB, split, str(run)], env=env)
            rows.append({"case": case, "tool": "scoring job (in-process)",
                         "seconds": round(float(out.strip()), 3), "cpu_s": None,
                         "peak_rss_mb": round(rss)})
            t, rss, _ = timed([sys.executable, str(script), "--gold_file",
                               str(split_paths(split, root)[0]), "--predictions_file", str(run),
                               "--output_file", str(tmp / "out.txt")], cwd=tmp)
            rows.append({"case": case, "tool": "python3 tsar_eval.py", "seconds": round(t, 2),
                         "cpu_s": round(CPU[0], 2), "peak_rss_mb": round(rss)})
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for row in rows:
            print(f"{row['case']:26} {row['tool']:26} {row['seconds']:>6} s  cpu "
                  f"{row['cpu_s'] if row['cpu_s'] is not None else '':>5}  "
                  f"{row['peak_rss_mb']:>4} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
