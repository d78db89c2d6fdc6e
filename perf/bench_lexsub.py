"""LS07 and CoInCo scoring, as users meet it, beside the scripts papers run.

Whole processes, each timed 3 times (median) with its peak RSS (the child's ``ru_maxrss``):

* ``leaderboard score --split semeval07:all|coinco:all --submission RANKED`` (B = 1000 and
  B = 0) against ``python2 lst_gap.py GOLD RANKED OUT no-mwe`` (orenmel/lexsub);
* ``leaderboard score --split semeval07:test|coinco:test --submission PAIR`` (.best + .oot,
  the gold upper bound) against ``perl score.pl`` run twice (``-t best`` and ``-t oot``);
* the scoring job's own work (validate + score with B = 1000, in a fresh process as a
  worker does it, without the database);
* a batch: 20 distinct files in one ``leaderboard score`` process (B = 0 and B = 1000)
  against the script run 20 times (a shell loop, one process per file, as a researcher
  scores 20 runs), LS07 all RANKED and LS07 test best + oot.

Each ``leaderboard score`` run reads its split from the data files, as the scripts do
(median of 3; the resamples come from the cache folder after the first run). Text output
gives each of our rows' CPU as a multiple of the script's on the same case.

The RANKED files are the seeded Random reference's (every candidate, uniform scores).
lst_gap.py is read from a git mirror of orenmel/lexsub ($LEXSUB_MIRROR, default the fetch
tool's /work/.mirror/orenmel+lexsub/repo) and run with $PYTHON2 (default: python2.7 or
python2 on PATH, else pyenv's 2.7); without them, or without ../shared/data/lexsub, those
rows are skipped with a message. The batch's 20 files are seeded variants: Random's RANKED
file with seeds 0-19, and .best/.oot pairs answering each instance from its pool shuffled with
seeds 0-19 (distinct lines, so no file reuses another's work).

    .venv/bin/python perf/bench_lexsub.py [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("LEADERBOARD_LEXSUB_DIR", ROOT.parent / "shared" / "data" / "lexsub"))
MIRROR = Path(os.environ.get("LEXSUB_MIRROR", "/work/.mirror/orenmel+lexsub/repo"))
BATCH = 20


def _python2() -> str:
    """$PYTHON2, else a Python 2.7 on PATH that runs (pyenv's shim may not), else pyenv's."""
    if os.environ.get("PYTHON2"):
        return os.environ["PYTHON2"]
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = [shutil.which("python2.7"), shutil.which("python2"),
             *map(str, sorted(root.glob("versions/2.7*/bin/python2.7")))]
    for path in filter(None, found):
        if subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info[0] != 2)"],
                          capture_output=True).returncode == 0:
            return path
    return "python2"


PYTHON2 = _python2()
LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))
CPU = [0.0]
JOB = """
import sys, time
from leaderboard.scoring.families import FAMILIES
fam = FAMILIES[sys.argv[1]]
source = fam.build_source(sys.argv[2])
prepared = fam.prepare(source, name="x")
raw = open(sys.argv[3], "rb").read()
start = time.perf_counter()
report = fam.validate(raw, prepared, track=sys.argv[4])
fam.score(prepared, report, track=sys.argv[4])
print(time.perf_counter() - start)
"""


#: Runs a command and prints its peak RSS (KiB) on stderr's last line: ``ru_maxrss`` of the
#: children of a fresh process is that one command's, not the largest of every run so far.
_PEAK = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
         "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
         "print(u.ru_maxrss, u.ru_utime + u.ru_stime, file=sys.stderr); "
         "sys.exit(done.returncode)")


def timed(cmd: list[str], **kw) -> tuple[float, float, str]:
    """(median wall seconds, peak RSS MB, last stdout) over 3 runs of ``cmd``; the median
    CPU seconds go to :data:`CPU` (a better guide than wall time on a loaded machine)."""
    times, rss, out, cpu = [], 0.0, "", []
    for _ in range(3):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True,
                              text=True, **kw)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{cmd[:3]} failed: {done.stderr[-500:]}")
        peak, seconds = done.stderr.strip().splitlines()[-1].split()
        rss, out = max(rss, int(peak)), done.stdout
        cpu.append(float(seconds))
    CPU[0] = statistics.median(cpu)
    return statistics.median(times), rss / 1024, out


def _lst_gap(tmp: Path) -> Path | None:
    git_dir = MIRROR / ".git" if (MIRROR / ".git").exists() else MIRROR
    if not git_dir.exists() or shutil.which(PYTHON2) is None:
        print(f"(lst_gap.py rows skipped: no mirror at {MIRROR} or no {PYTHON2})")
        return None
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD", "jcs"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp / "jcs" / "evaluation" / "lst" / "lst_gap.py"


def _pairs(fam, source: bytes, seed: int) -> bytes:
    """A .best + .oot pair answering every instance from its pool shuffled with ``seed``."""
    import random

    split = fam.prepare(source, name="x", bootstrap=0)
    rng = random.Random(seed)
    best, oot = [], []
    for t in split.targets:
        pool = list(split.pool(t))
        rng.shuffle(pool)
        best.append(f"{t.target_id} :: {';'.join(pool[:1])}")
        oot.append(f"{t.target_id} ::: {';'.join(pool[:10])}")
    return ("\n".join(best + oot) + "\n").encode("latin-1")


def _batches(tmp: Path, script: Path | None, env: dict) -> list[dict]:
    """20 files in one ``leaderboard score`` against the script run once per file."""
    from leaderboard.scoring.families import FAMILIES
    from leaderboard.scoring.lexsub.data import FILES, read_text

    fam, rows = FAMILIES["semeval07"], []
    folder = tmp / "batch"
    folder.mkdir()
    all_source, test_source = fam.build_source("all"), fam.build_source("test")
    ranked = [folder / f"run{i}.ranked" for i in range(BATCH)]
    pairs = [folder / f"run{i}.pair" for i in range(BATCH)]
    for i in range(BATCH):
        ranked[i].write_bytes(gzip.decompress(fam.random_submission(all_source, seed=i)))
        pairs[i].write_bytes(_pairs(fam, test_source, i))
    gold_all = tmp / "batch.all.gold"
    gold_all.write_bytes(read_text(DATA / FILES["semeval07"]["all"].gold).encode("latin-1"))
    test_gold = tmp / "batch.test.gold"
    prepared = fam.prepare(test_source, name="x", bootstrap=0)
    test_gold.write_bytes(("\n".join(t.line for t in prepared.targets) + "\n")
                          .encode("latin-1"))
    for case, files, scripts in (
            ("LS07 all GAP", ranked, None if script is None else (
                "python2 lst_gap.py", [f"{PYTHON2} {script} {gold_all} {f} {tmp}/out no-mwe"
                                       for f in ranked])),
            ("LS07 test best+oot", pairs, ("perl score.pl (best, oot)", [
                f"perl {DATA / 'score.pl'} {f} {test_gold} -t {kind}"
                for f in pairs for kind in ("best", "oot")]))):
        for b in (0, 1000):
            t, rss, _ = timed([LEADERBOARD, "score", "--split",
                               "semeval07:all" if "GAP" in case else "semeval07:test",
                               "--bootstrap", str(b), *map(str, files)], env=env)
            rows.append({"case": f"{case} x{BATCH}", "tool": f"leaderboard score B={b}, "
                         "one process", "seconds": round(t, 2), "cpu_s": round(CPU[0], 2),
                         "peak_rss_mb": round(rss)})
        if scripts is not None:
            tool, commands = scripts
            loop = "; ".join(f"{c} > /dev/null 2>&1" for c in commands)
            t, rss, _ = timed(["sh", "-c", loop], cwd=tmp,
                              env={"PYTHONPATH": str(tmp), "PATH": os.environ["PATH"]})
            rows.append({"case": f"{case} x{BATCH}", "tool": f"{tool}, {BATCH} runs",
                         "seconds": round(t, 2), "cpu_s": round(CPU[0], 2),
                         "peak_rss_mb": round(rss)})
    return rows


LOAD_BEFORE = os.getloadavg()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (DATA / "lst_all.gold").is_file():
        print(f"skipped: no LS07/CoInCo files at {DATA}")
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        script = _lst_gap(tmp)
        # bytecode cached (in the temporary folder), as an installed package has it and as
        # Python 2 keeps lst_gap.py's modules' .pyc: this machine's PYTHONDONTWRITEBYTECODE
        # would otherwise recompile some 75 modules in every run (0.03 s of CPU)
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "LEADERBOARD_CACHE_DIR": str(tmp / "cache"),
               "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
        rows += _gap_rows(tmp, script, env)
        rows += _best_oot_rows(tmp, env)
        rows += _batches(tmp, script, env)
    if args.json:
        print(json.dumps(rows))
    else:
        _print_table(rows)
    return 0


def _gap_rows(tmp: Path, script: Path | None, env: dict[str, str]) -> list[dict]:
    """GAP on all of LS07 and CoInCo: our command (B=1000, 0), the job, lst_gap.py."""
    from leaderboard.scoring.families import FAMILIES
    from leaderboard.scoring.lexsub.data import FILES, read_text

    rows = []
    warm = True
    for family, split in (("semeval07", "all"), ("coinco", "all")):
        fam = FAMILIES[family]
        ranked = tmp / f"{family}.ranked"
        ranked.write_bytes(gzip.decompress(fam.random_submission(fam.build_source(split))))
        gold = tmp / f"{family}.gold"
        gold.write_bytes(read_text(DATA / FILES[family][split].gold).encode("latin-1"))
        if warm:  # writes the bytecode once, untimed
            subprocess.run([LEADERBOARD, "score", "--split", f"{family}:{split}", str(ranked),
                            "--bootstrap", "0"], env=env, capture_output=True, check=True)
            warm = False
        for b in (1000, 0):
            t, rss, _ = timed([LEADERBOARD, "score", "--split", f"{family}:{split}",
                               "--submission", str(ranked), "--bootstrap", str(b)], env=env)
            rows.append({"case": f"{family} {split} GAP", "tool": f"leaderboard score B={b}",
                         "seconds": round(t, 2), "cpu_s": round(CPU[0], 2),
                         "peak_rss_mb": round(rss)})
        t, rss, out = timed([sys.executable, "-c", JOB, family, split, str(ranked),
                             "ranking"], env=env)
        rows.append({"case": f"{family} {split} GAP", "tool": "scoring job (in-process)",
                     "seconds": round(float(out.strip()), 2), "cpu_s": None,
                     "peak_rss_mb": round(rss)})
        if script is not None:
            t, rss, _ = timed([PYTHON2, str(script), str(gold), str(ranked),
                               str(tmp / "out"), "no-mwe"], cwd=tmp,
                              env={"PYTHONPATH": str(tmp), "PATH": os.environ["PATH"]})
            rows.append({"case": f"{family} {split} GAP", "tool": "python2 lst_gap.py",
                         "seconds": round(t, 2), "cpu_s": round(CPU[0], 2),
                         "peak_rss_mb": round(rss)})
    return rows


def _best_oot_rows(tmp: Path, env: dict[str, str]) -> list[dict]:
    """best and oot on the test splits: our command (B=1000, 0) and score.pl."""
    from leaderboard.scoring.families import FAMILIES

    rows = []
    for family in ("semeval07", "coinco"):
        fam = FAMILIES[family]
        source = fam.build_source("test")
        pair = tmp / f"{family}.pair"
        pair.write_bytes(gzip.decompress(fam.upper_bound_submission(source)))
        for b in (1000, 0):
            t, rss, _ = timed([LEADERBOARD, "score", "--split", f"{family}:test",
                               "--submission", str(pair), "--bootstrap", str(b)], env=env)
            rows.append({"case": f"{family} test best+oot",
                         "tool": f"leaderboard score B={b}", "seconds": round(t, 2),
                         "cpu_s": round(CPU[0], 2), "peak_rss_mb": round(rss)})
        prepared = fam.prepare(source, name="x", bootstrap=0)
        gold = tmp / f"{family}.test.gold"
        gold.write_bytes(("\n".join(t.line for t in prepared.targets) + "\n")
                         .encode("latin-1"))
        total, peak, cpu = 0.0, 0.0, 0.0
        for kind in ("best", "oot"):
            t, rss, _ = timed(["perl", str(DATA / "score.pl"), str(pair), str(gold),
                               "-t", kind])
            total, peak, cpu = total + t, max(peak, rss), cpu + CPU[0]
        rows.append({"case": f"{family} test best+oot", "tool": "perl score.pl (best, oot)",
                     "seconds": round(total, 2), "cpu_s": round(cpu, 2),
                     "peak_rss_mb": round(peak)})
    return rows


def _print_table(rows: list[dict]) -> None:
    """One line a row, our command's CPU beside the original script's."""
    script = {r["case"]: r["cpu_s"] for r in rows
              if r["tool"].startswith(("python2", "perl")) and r["cpu_s"]}
    for r in rows:
        cpu = "" if r["cpu_s"] is None else f"{r['cpu_s']:7.2f} s CPU"
        ratio = (f"{r['cpu_s'] / script[r['case']]:5.2f}x the script"
                 if r["tool"].startswith("leaderboard") and r["case"] in script else "")
        print(f"{r['case']:<26} {r['tool']:<28} {r['seconds']:7.2f} s {cpu:>14} "
              f"{r['peak_rss_mb']:6} MB  {ratio}".rstrip())
    print(f"load average before: {' '.join(f'{x:.2f}' for x in LOAD_BEFORE)}; after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    sys.exit(main())
