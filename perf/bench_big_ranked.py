"""The largest RANKED file the upload limits let through, scored as a worker scores it.

The file answers every LS07 ``all`` instance (2,003 lines) with 4,990 distinct candidates
each (its pool's single words, then CoInCo's candidate vocabulary outside the pool, one-digit
scores): about 10 million fields, 105 MB inflated, 46 MB gzipped, inside the upload limits.
A fresh process validates it with the site's limits and scores it with B = 1000, as the
scoring job does (without the database); its peak RSS (the child's ``ru_maxrss``) is the
figure to hold under the worker's ``JOB_MEMORY_MB``.

``--unique-names``: the same shape, but every field's candidate a string of its own
(``w<line>.<field>``), the case where the reader's one str per distinct candidate saves
nothing.

    .venv/bin/python perf/bench_big_ranked.py [--keep PATH] [--per-line N]
        [--unique-names]
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ops_harness import ROOT, child_cost  # noqa: E402

DATA = Path(os.environ.get("LEADERBOARD_LEXSUB_DIR", ROOT.parent / "shared" / "data" / "lexsub"))
JOB = """
import sys, time
from leaderboard.config import DEFAULTS
from leaderboard.scoring.families import FAMILIES
from leaderboard.services.intake.validation import validate_for_track
fam = FAMILIES["semeval07"]
prepared = fam.prepare(fam.build_source("all"), name="x")
raw = open(sys.argv[1], "rb").read()
start = time.process_time()
report = validate_for_track(raw, prepared, None, DEFAULTS, 0.0, family=fam, track="ranking")
del raw
assert report.ok, report.errors[:3]
result = fam.score(prepared, report, track="ranking", bootstrap=1000, seed=0)
print(f"gap {result.metrics['gap']:.4f}, {result.counts['targets_scored']} scored, "
      f"{time.process_time() - start:.1f} s CPU validating and scoring")
"""


def _unique_names(split, per_line: int) -> bytes:
    lines = [f"RANKED\t{t.target_id}" + "".join(f"\tw{i}.{j} {j % 10}" for j in range(per_line))
             for i, t in enumerate(split.targets)]
    return ("\n".join(lines) + "\n").encode("latin-1")


def write_file(path: Path, per_line: int, unique_names: bool) -> None:
    """The file of the module's docstring, gzipped, at ``path``."""
    from leaderboard.scoring.families import FAMILIES
    from leaderboard.scoring.lexsub.data import read_candidates, read_text
    from tests.scoring.lexsub.generated import distinct_ranked_bytes, single_words

    fam = FAMILIES["semeval07"]
    split = fam.prepare(fam.build_source("all"), name="x", bootstrap=0)
    if unique_names:
        raw = _unique_names(split, per_line)
    else:
        words = single_words(read_candidates(read_text(
            DATA / "coinco.no_problematic.candidates")))
        raw = distinct_ranked_bytes(split, words, per_line)
    path.write_bytes(gzip.compress(raw, 6))
    print(f"{path.name}: {len(split.targets):,} lines, {per_line:,} candidates each, "
          f"{len(raw) / 1e6:.1f} MB inflated, {path.stat().st_size / 1e6:.1f} MB gzipped")


def measure(path: Path) -> None:
    """Run the job in a fresh process; print its figures."""
    load = os.getloadavg()
    wall, _cpu, peak, out = child_cost([sys.executable, "-c", JOB, str(path)])
    print(out.strip())
    print(f"peak RSS {peak:,.0f} MiB, wall {wall:.1f} s; load average before "
          f"{' '.join(f'{x:.2f}' for x in load)}, after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="write the file here (reused if present)")
    parser.add_argument("--per-line", type=int, default=4990)
    parser.add_argument("--unique-names", action="store_true")
    args = parser.parse_args()
    if not (DATA / "lst_all.gold").is_file():
        print(f"skipped: no LS07/CoInCo files at {DATA}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "ranked_distinct.ranked.gz"
        if not path.is_file():
            write_file(path, args.per_line, args.unique_names)
        measure(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
