"""Run every ``perf/bench_*.py`` in turn (what ``make bench`` calls).

A script that needs ../shared data skips itself (exit status 0 with a message) when the data
is absent; this runner reports each script's status and wall time, and fails if any failed.

    .venv/bin/python perf/run_all.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Arguments a script is run with here, to reproduce the figures of
#: docs/contributors/performance.md.
ARGS = {
    "bench_untrusted": ["--rounds", "5"],   # "Untrusted files" in performance.md
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="Run only these scripts (e.g. bench_load).")
    args = parser.parse_args()
    scripts = sorted(HERE.glob("bench_*.py"))
    if args.only:
        scripts = [s for s in scripts if s.stem in set(args.only)]
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *ARGS.get(script.stem, [])],
                               cwd=HERE.parent)
        print(f"=== {script.name}: {'ok' if code == 0 else f'FAILED ({code})'} "
              f"in {time.perf_counter() - start:.0f} s ===", flush=True)
        if code != 0:
            failed.append(script.name)
    if failed:
        print(f"\nFailed: {', '.join(failed)}")
        return 1
    print(f"\nAll {len(scripts)} benchmark scripts finished.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
