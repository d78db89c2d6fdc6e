"""LS07, CoInCo and TSAR-2022 scoring, as users meet it, beside the scripts papers run.

Whole processes, each timed 3 times (median wall and CPU seconds) with its peak RSS
(``ops_harness.timed``):

* ``leaderboard score --split semeval07:all|coinco:all --submission RANKED`` (B = 1000 and
  B = 0) against ``python2 lst_gap.py GOLD RANKED OUT no-mwe`` (orenmel/lexsub);
* ``leaderboard score --split semeval07:test|coinco:test --submission PAIR`` (.best + .oot,
  the gold upper bound) against ``perl score.pl`` run twice (``-t best`` and ``-t oot``);
* the scoring job's own work (validate + score with B = 1000, in a fresh process as a
  worker does it, without the database);
* a batch: 20 distinct files in one ``leaderboard score`` process (B = 0 and B = 1000)
  against the script run 20 times (a shell loop, one process per file, as a researcher
  scores 20 runs), LS07 all RANKED and LS07 test best + oot;
* ``--tsar``: instead, ``leaderboard score --split tsar2022:<lang>-test FILE`` (B = 1000, 0)
  and the job against ``python3 tsar_eval.py`` (run from ../shared/data/tsar2022) on a
  seeded run for every instance: ten substitutes drawn from the gold annotations and two
  outside them, with repeats and the complex word mixed in (the script drops both).

The RANKED files are the seeded Random reference's (every candidate, uniform scores); the
batch's 20 files are its variants with seeds 0-19, and .best/.oot pairs answering each
instance from its pool shuffled with seeds 0-19. lst_gap.py is read from a git mirror of
orenmel/lexsub ($LEXSUB_MIRROR, default /work/.mirror/orenmel+lexsub/repo) and run with
$PYTHON2 (default: a working python2.7 or python2 on PATH, else pyenv's 2.7); without them,
or without the data, those rows are skipped with a message. Text output gives each of our
rows' CPU as a multiple of the script's on the same case.

    .venv/bin/python perf/bench_scripts.py [--tsar] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ops_harness import LEADERBOARD_BIN, ROOT, timed  # noqa: E402

DATA = Path(os.environ.get("LEADERBOARD_LEXSUB_DIR", ROOT.parent / "shared" / "data" / "lexsub"))
MIRROR = Path(os.environ.get("LEXSUB_MIRROR", "/work/.mirror/orenmel+lexsub/repo"))
BATCH = 20
JOB = """
import sys, time
from leaderboard.scoring.families import FAMILIES
fam = FAMILIES[sys.argv[1]]
prepared = fam.prepare(fam.build_source(sys.argv[2]), name="x")
raw = open(sys.argv[3], "rb").read()
start = time.perf_counter()
report = fam.validate(raw, prepared, track=sys.argv[4])
fam.score(prepared, report, track=sys.argv[4])
print(time.perf_counter() - start)
"""


def _python2() -> str:
    """$PYTHON2, else a Python 2.7 on PATH that runs (pyenv's shim may not), else pyenv's."""
    if os.environ.get("PYTHON2"):
        return os.environ["PYTHON2"]
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    for path in filter(None, [shutil.which("python2.7"), shutil.which("python2"),
                              *map(str, sorted(root.glob("versions/2.7*/bin/python2.7")))]):
        if subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info[0] != 2)"],
                          capture_output=True).returncode == 0:
            return path
    return "python2"


PYTHON2 = _python2()


def row(case: str, tool: str, argv: list[str], **kw) -> dict:
    """One measured row: ``argv`` run 3 times."""
    t = timed(argv, **kw)
    return {"case": case, "tool": tool, **{k: t[k] for k in ("seconds", "cpu_s", "peak_rss_mb")}}


def ours(case: str, family: str, split: str, files: list[Path], env: dict,
         tool: str = "leaderboard score") -> list[dict]:
    """Our command on ``files`` with B = 1000 and B = 0."""
    return [row(case, f"{tool} B={b}", [LEADERBOARD_BIN, "score", "--split", f"{family}:{split}",
                                        "--bootstrap", str(b), *map(str, files)], env=env)
            for b in (1000, 0)]


def job(case: str, family: str, split: str, path: Path, track: str, env: dict) -> dict:
    """The scoring job's own seconds (in-process clock), its process's peak RSS."""
    t = timed([sys.executable, "-c", JOB, family, split, str(path), track], env=env)
    return {"case": case, "tool": "scoring job (in-process)",
            "seconds": round(float(t["out"].strip()), 3), "cpu_s": None,
            "peak_rss_mb": t["peak_rss_mb"]}


def _lst_gap(tmp: Path) -> Path | None:
    git_dir = MIRROR / ".git" if (MIRROR / ".git").exists() else MIRROR
    if not git_dir.exists() or shutil.which(PYTHON2) is None:
        print(f"(lst_gap.py rows skipped: no mirror at {MIRROR} or no {PYTHON2})")
        return None
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "HEAD", "jcs"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp / "jcs" / "evaluation" / "lst" / "lst_gap.py"


def _gold(tmp: Path, fam, family: str, split: str) -> Path:
    """The gold file of ``split`` as the scripts read it."""
    from leaderboard.scoring.lexsub.data import FILES, read_text

    path = tmp / f"{family}.{split}.gold"
    if split == "all":
        path.write_bytes(read_text(DATA / FILES[family][split].gold).encode("latin-1"))
    else:
        prepared = fam.prepare(fam.build_source(split), name="x", bootstrap=0)
        path.write_bytes(("\n".join(t.line for t in prepared.targets) + "\n").encode("latin-1"))
    return path


def _pairs(fam, source: bytes, seed: int) -> bytes:
    """A .best + .oot pair answering every instance from its pool shuffled with ``seed``."""
    split = fam.prepare(source, name="x", bootstrap=0)
    rng = random.Random(seed)
    best, oot = [], []
    for t in split.targets:
        pool = list(split.pool(t))
        rng.shuffle(pool)
        best.append(f"{t.target_id} :: {';'.join(pool[:1])}")
        oot.append(f"{t.target_id} ::: {';'.join(pool[:10])}")
    return ("\n".join(best + oot) + "\n").encode("latin-1")


def lexsub_rows(tmp: Path, env: dict) -> list[dict]:
    """GAP on all of LS07 and CoInCo, best + oot on their test splits, and the batches."""
    from leaderboard.scoring.families import FAMILIES

    script, rows = _lst_gap(tmp), []
    scripts_env = {"PYTHONPATH": str(tmp), "PATH": os.environ["PATH"]}
    for family in ("semeval07", "coinco"):
        fam = FAMILIES[family]
        case, ranked = f"{family} all GAP", tmp / f"{family}.ranked"
        ranked.write_bytes(gzip.decompress(fam.random_submission(fam.build_source("all"))))
        if not rows:  # writes the bytecode and the caches once, untimed
            subprocess.run([LEADERBOARD_BIN, "score", "--split", f"{family}:all", str(ranked),
                            "--bootstrap", "0"], env=env, capture_output=True, check=True)
        rows += [*ours(case, family, "all", [ranked], env),
                 job(case, family, "all", ranked, "ranking", env)]
        if script is not None:
            rows.append(row(case, "python2 lst_gap.py", [
                PYTHON2, str(script), str(_gold(tmp, fam, family, "all")), str(ranked),
                str(tmp / "out"), "no-mwe"], cwd=tmp, env=scripts_env))
        case, pair = f"{family} test best+oot", tmp / f"{family}.pair"
        pair.write_bytes(gzip.decompress(fam.upper_bound_submission(fam.build_source("test"))))
        gold = _gold(tmp, fam, family, "test")
        perl = "; ".join(f"perl {DATA / 'score.pl'} {pair} {gold} -t {k}" for k in ("best", "oot"))
        rows += [*ours(case, family, "test", [pair], env),
                 row(case, "perl score.pl (best, oot)", ["sh", "-c", perl])]
    return rows + _batches(tmp, script, env, scripts_env)


def _batches(tmp: Path, script: Path | None, env: dict, scripts_env: dict) -> list[dict]:
    """20 files in one ``leaderboard score`` against the script run once per file."""
    from leaderboard.scoring.families import FAMILIES

    fam, rows = FAMILIES["semeval07"], []
    all_source, test_source = fam.build_source("all"), fam.build_source("test")
    ranked = [tmp / f"run{i}.ranked" for i in range(BATCH)]
    pairs = [tmp / f"run{i}.pair" for i in range(BATCH)]
    for i in range(BATCH):
        ranked[i].write_bytes(gzip.decompress(fam.random_submission(all_source, seed=i)))
        pairs[i].write_bytes(_pairs(fam, test_source, i))
    gold_all, gold_test = _gold(tmp, fam, "semeval07", "all"), _gold(tmp, fam, "semeval07", "test")
    for case, split, files, tool, commands in (
            ("LS07 all GAP", "all", ranked, "python2 lst_gap.py", None if script is None else [
                f"{PYTHON2} {script} {gold_all} {f} {tmp}/out no-mwe" for f in ranked]),
            ("LS07 test best+oot", "test", pairs, "perl score.pl (best, oot)", [
                f"perl {DATA / 'score.pl'} {f} {gold_test} -t {kind}"
                for f in pairs for kind in ("best", "oot")])):
        rows += ours(f"{case} x{BATCH}", "semeval07", split, files, env,
                     "leaderboard score, one process")
        if commands is not None:
            loop = "; ".join(f"{c} > /dev/null 2>&1" for c in commands)
            rows.append(row(f"{case} x{BATCH}", f"{tool}, {BATCH} runs", ["sh", "-c", loop],
                            cwd=tmp, env=scripts_env))
    return rows


def tsar_rows(tmp: Path, env: dict) -> list[dict]:
    """Each TSAR-2022 test split: our command, the job and tsar_eval.py."""
    from leaderboard.scoring.families import FAMILIES
    from leaderboard.scoring.tsar.data import data_dir, split_paths

    fam, root, rows = FAMILIES["tsar2022"], data_dir(), []
    if not (root / "tsar_eval.py").is_file():
        print(f"skipped: no TSAR-2022 files at {root}")
        return rows
    for lang in ("en", "es", "pt"):
        split = f"{lang}-test"
        prepared = fam.prepare_files(split, name=split, bootstrap=0)
        rng, lines = random.Random(0), []
        for target in prepared.targets:
            pool = list(target.counts) + ["outside", "elsewhere", target.word]
            lines.append("\t".join([target.sentence, target.word,
                                    *(rng.choice(pool) for _ in range(12))]))
        run = tmp / f"{split}.tsv"
        run.write_text("\n".join(lines) + "\n", encoding="utf-8")
        case = f"{split} ({len(prepared.targets)} instances)"
        rows += [*ours(case, "tsar2022", split, [run], env),
                 job(case, "tsar2022", split, run, "generative", env),
                 row(case, "python3 tsar_eval.py", [
                     sys.executable, str(root / "tsar_eval.py"), "--gold_file",
                     str(split_paths(split, root)[0]), "--predictions_file", str(run),
                     "--output_file", str(tmp / "out.txt")], cwd=tmp)]
    return rows


def _print_table(rows: list[dict], load_before: tuple) -> None:
    """One line a row, our command's CPU beside the original script's."""
    script = {r["case"]: r["cpu_s"] for r in rows
              if r["tool"].startswith(("python", "perl")) and r["cpu_s"]}
    for r in rows:
        cpu = "" if r["cpu_s"] is None else f"{r['cpu_s']:7.2f} s CPU"
        ratio = (f"{r['cpu_s'] / script[r['case']]:5.2f}x the script"
                 if r["tool"].startswith("leaderboard") and r["case"] in script else "")
        print(f"{r['case']:<26} {r['tool']:<40} {r['seconds']:7.2f} s {cpu:>14} "
              f"{r['peak_rss_mb']:6} MB  {ratio}".rstrip())
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}; after: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tsar", action="store_true", help="TSAR-2022 against tsar_eval.py")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.tsar and not (DATA / "lst_all.gold").is_file():
        print(f"skipped: no LS07/CoInCo files at {DATA}")
        return 0
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        # bytecode cached (in the temporary folder), as an installed package has it and as
        # Python 2 keeps lst_gap.py's modules' .pyc: this machine's PYTHONDONTWRITEBYTECODE
        # would otherwise recompile some 75 modules in every run
        env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
               "LEADERBOARD_CACHE_DIR": str(tmp / "cache"),
               "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
        rows = tsar_rows(tmp, env) if args.tsar else lexsub_rows(tmp, env)
    print(json.dumps(rows)) if args.json else _print_table(rows, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
