"""The numpy- and click-free ``leaderboard score --bootstrap 0`` for RANKED files on LS07 and
CoInCo (issue 32 item 10) gives what the general path gives, to the last bit and byte.

* In process: :func:`quick.score_ranking` on the prepared split read from its cache entry
  against :func:`score.score` (numpy rows, ``result_from_rows``) on every seeded file of the
  lst_gap.py parity fixture, the "quirks" files (inf, nan, refused scores, CRLF) included:
  the mean GAP, each POS block, the counts, the warnings and the signature, compared with
  ``==`` (floats bit for bit).
* As a process: the command's output (table and JSON lines, stdout and stderr, the exit
  status) with the cache (the quick path) and with ``--no-cache`` (the general one), and the
  modules it imports: neither numpy nor click.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard.commands.score_family import quick_args
from leaderboard.scoring.families import FAMILIES, lexsub_data_dir
from leaderboard.scoring.jabbari import BLANKS
from leaderboard.scoring.lexsub import quick
from leaderboard.scoring.lexsub import split as split_module
from leaderboard.scoring.lexsub.validation import validate
from tests.lexsub_files import write_semeval07

from .conftest import RANKING, lexsub_dir
from .generated import CASES, ranked_bytes

ROOT = Path(__file__).resolve().parents[3]
LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))
_SPLITS: dict = {}


def _splits(family: str, name: str, cache: Path):
    """(general prepared split, quick split read back from its cache entry in ``cache``)."""
    if (family, name) not in _SPLITS:
        fam = FAMILIES[family]
        full = fam.prepare_files(name, lexsub_dir(), name=f"{family}:{name}", bootstrap=0)
        quick.quick_split(family, name, lexsub_dir(), name=f"{family}:{name}", cache=cache)
        entry = quick.quick_split(family, name, lexsub_dir(), name=f"{family}:{name}",
                                  cache=cache)
        _SPLITS[family, name] = full, entry
    return _SPLITS[family, name]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_quick_gap_is_the_general_gap_bit_for_bit(case, tmp_path_factory) -> None:
    family, name, scheme, seed = case
    full, fast = _splits(family, name, tmp_path_factory.getbasetemp() / "quick-cache")
    assert fast.checksum == full.checksum and "gap_gold" in fast.__dict__
    raw = ranked_bytes(full, scheme, seed)
    report = FAMILIES[family].validate(raw, full, track=RANKING)
    quick_report = validate(raw, fast, track=RANKING)
    assert report.ok and quick_report.ok
    assert quick_report.warnings == report.warnings and quick_report.counts == report.counts
    expected = FAMILIES[family].score(full, report, track=RANKING)
    got = quick.score_ranking(fast, quick_report)
    assert got.metrics["gap"] == expected.metrics["gap"]
    assert list(got.by_pos) == list(expected.by_pos)
    for pos, block in got.by_pos.items():
        assert block["metrics"]["gap"] == expected.by_pos[pos]["metrics"]["gap"]
    assert got.counts == expected.counts and list(got.counts) == list(expected.counts)
    assert got.warnings == expected.warnings and got.signature == expected.signature
    assert got.intervals == expected.intervals == {}


def _run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    code = ("import sys\nfrom leaderboard.cli import main\ntry:\n    main(sys.argv[1:])\n"
            "finally:\n    print('MODULES', 'numpy' in sys.modules, 'click' in sys.modules, "
            "'dataclasses' in sys.modules or 'typing' in sys.modules, file=sys.stderr)\n")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT)


def _without_modules(stderr: str) -> str:
    return "".join(line for line in stderr.splitlines(True) if not line.startswith("MODULES"))


@pytest.fixture
def folder(tmp_path):
    write_semeval07(tmp_path, ["bright.a 1 :: smart 3;clever 2;",
                               "bright.a 2 :: vivid 2;well-lit 1;shining 1;",
                               "bar.n.v 48 :: prevent 3;block 1;"],
                    {"bright.a": ["smart", "clever", "vivid", "shining", "well-lit"]})
    files = []
    for i, text in enumerate([
            "RANKED\tbright.a 1\tclever 0.9\tsmart 0.1\tvivid 0.5\n"
            "RANKED\tbright.a 2\tvivid -inf\tshining nan\twell-lit 3\tmost vivid 2\n",
            "RANKED\tbright.a 1\tsmart 1_0\tclever 2\t\r\nRANKED\tbright.a 1\tsmart 1\n"
            "RANKED\tnot.a 9\tx 1\n",
            "RANKED\tbright.a 2\tvivid 1\tvivid 2\tshining 0.5\n"]):
        path = tmp_path / f"run{i}.ranked"
        path.write_bytes(text.encode("latin-1"))
        files.append(str(path))
    zipped = tmp_path / "run3.ranked.gz"  # gzipped, CRLF line ends
    zipped.write_bytes(gzip.compress(b"RANKED\tbright.a 1\tsmart 2\tclever 1\r\n"
                                     b"RANKED\tbright.a 2\tshining 1e-3\tvivid .5\r\n"))
    files.append(str(zipped))
    (tmp_path / "bad.ranked").write_bytes(b"RANKED\tbright.a 1\tclever 1\nRANKED\n")
    env = {**os.environ, "LEADERBOARD_LEXSUB_DIR": str(tmp_path),
           "LEADERBOARD_CACHE_DIR": str(tmp_path / "cache")}
    return tmp_path, files, env


@pytest.mark.parametrize("extra", [[], ["--json"], ["--track", "ranking", "--seed", "3"],
                                   ["--bootstrap", "30", "--json"]])
def test_command_prints_what_the_general_path_prints(folder, extra) -> None:
    """Through click (``--no-cache``) and without it: the same bytes; without click, numpy is
    imported only to draw resamples (and by the first run, which reads the data files)."""
    tmp, files, env = folder
    b = extra[1] if extra[:1] == ["--bootstrap"] else "0"
    args = ["score", "--split", "semeval07:trial", "--bootstrap", b, *extra[2 * (b != "0"):],
            *files]
    general = _run([*args, "--no-cache"], env)
    for _ in range(2):  # the first run writes the cache entry (reading the data files
        fast = _run(args, env)  # imports numpy), the second reads it
        assert fast.stdout == general.stdout and fast.returncode == general.returncode == 0
        assert _without_modules(fast.stderr) == _without_modules(general.stderr)
        assert "MODULES True True" in general.stderr
    assert f"MODULES {b != '0'} False" in fast.stderr
    # nor, without resamples, dataclasses (its inspect) or typing: 30 ms of a one-off run
    assert b != "0" or "MODULES False False False" in fast.stderr
    assert list((tmp / "cache").glob("lexsub-quick-*.marshal"))
    if "--json" in extra:
        docs = [json.loads(line) for line in fast.stdout.splitlines()]
        assert [d["signature"]["bootstrap"] for d in docs] == [int(b)] * 4


@pytest.mark.parametrize("extra", [[], ["--json"], ["--track", "generative", "--seed", "3"]])
def test_generative_command_prints_what_the_general_path_prints(folder, extra) -> None:
    """.best/.oot lines (a pair, blank, repeated and unreadable lines, CRLF, gzipped), JSON
    and a RANKED file among them: the same bytes as the general path, without numpy."""
    tmp, files, env = folder
    texts = [b"bright.a 1 :: smart\nbright.a 2 ::: vivid;shining;vivid\nbright.a 1 ::: clever;x\n",
             b"bright.a 2 :: \r\nbright.a 1 :: well lit;non-smart\nnonsense\n"
             b"bright.a 1 :: clever\nbar.n 48 ::: prevent\n",
             b'{"substitutes": {"bright.a 1": [["clever", 2], ["smart", 1]], "x.n 3": []}}']
    paths = []
    for i, text in enumerate(texts):
        path = tmp / f"gen{i}.txt"
        path.write_bytes(text)
        paths.append(str(path))
    zipped = tmp / "gen.best.gz"
    zipped.write_bytes(gzip.compress(b"bright.a 1 :: smart;clever\r\n"))
    paths += [str(zipped), files[0]]
    args = ["score", "--split", "semeval07:trial", "--bootstrap", "0", *extra, *paths]
    general = _run([*args, "--no-cache"], env)
    for _ in range(2):
        fast = _run(args, env)
        assert fast.stdout == general.stdout and fast.returncode == general.returncode
        assert _without_modules(fast.stderr) == _without_modules(general.stderr)
    assert "MODULES False False" in fast.stderr
    assert fast.stdout.count("generative") >= 4 or "--json" in extra
    # text files alone import neither dataclasses (its inspect) nor typing: 30 ms of a
    # one-off run (JSON's reader, msgspec, imports typing)
    text_only = _run([a for a in args if a != paths[2]], env)
    assert "MODULES False False False" in text_only.stderr


def test_invalid_file_exits_2_as_the_general_path_does(folder) -> None:
    tmp, files, env = folder
    args = ["score", "--split", "semeval07:trial", "--bootstrap", "0", files[0],
            str(tmp / "bad.ranked")]
    general, fast = _run([*args, "--no-cache"], env), _run(args, env)
    assert fast.returncode == general.returncode == 2
    # without click (numpy: this first run reads the data files)
    assert fast.stdout == general.stdout and "MODULES True False" in fast.stderr
    assert _without_modules(fast.stderr) == _without_modules(general.stderr)


def test_other_files_and_options_take_the_general_path(folder) -> None:
    """Intervals: numpy's path (still without click); an option click alone reads
    (``--no-cache``): click's. .best/.oot lines and JSON without intervals: neither."""
    tmp, files, env = folder
    best = tmp / "run.best"
    best.write_bytes(b"bright.a 1 :: smart\n")
    for args, modules in ((["--bootstrap", "10", files[0]], "True False"),
                          ([files[0], str(best)], "False False"),
                          (["--track", "generative", str(best)], "False False"),
                          (["--no-cache", files[0]], "True True")):
        run = _run(["score", "--split", "semeval07:trial", *args,
                    *([] if "--bootstrap" in args else ["--bootstrap", "0"])], env)
        assert f"MODULES {modules}" in run.stderr


def test_a_changed_data_file_is_read_again(folder) -> None:
    tmp, files, env = folder
    cache = tmp / "own-cache"
    first = quick.quick_split("semeval07", "trial", tmp, name="x", cache=cache)
    gold = tmp / "lst_trial.gold"
    gold.write_bytes(gold.read_bytes() + b"bright.a 3 :: vivid 2;\n")
    os.utime(gold, ns=(1, 1))
    second = quick.quick_split("semeval07", "trial", tmp, name="x", cache=cache)
    assert len(second.targets) == len(first.targets) + 1
    assert second.checksum != first.checksum and len(list(cache.iterdir())) == 2
    for entry in cache.iterdir():
        entry.write_bytes(b"\x00broken")
    again = quick.quick_split("semeval07", "trial", tmp, name="x", cache=cache)
    assert again.checksum == second.checksum and again.gap_gold == second.gap_gold


@pytest.mark.parametrize("args", [
    ["score", "--help"], ["score", "--split", "semeval07:all", "f", "--bootstrap", "-1"],
    ["score", "--split", "semeval07:all", "f", "--bootstrap", "+5"],
    ["score", "--split", "semeval07:all", "f", "--track", "other"],
    ["score", "--split", "semeval07:all", "f", "--bootstrap", "0", "--no-cache"],
    ["score", "--split", "semeval07:all", "missing", "--bootstrap", "0"],
    ["score", "--split", "semeval07:all", "f", "--bootstrap", "0", "--seed", "x"],
    ["score", "--split", "a", "--split", "b", "f", "--bootstrap", "0"],
    ["--verbose", "score", "--split", "semeval07:all", "f", "--bootstrap", "0"],
])
def test_quick_args_leave_the_rest_to_click(args, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f").write_text("RANKED\tx 1\ty 1\n")
    assert quick_args(args) is None
    ok = ["score", "--split=semeval07:all", "--submission", "f", "f", "--bootstrap", "0",
          "--json", "--seed", "-2"]
    assert quick_args(ok) == {"spec": "semeval07:all", "paths": (Path("f"), Path("f")),
                              "track": None, "bootstrap": 0, "seed": -2, "as_json": True}
    assert quick_args(["score", "--split", "coinco:test", "f"])["bootstrap"] == 1000
    (tmp_path / "g").write_text("RANKED\tx 1\ty 1\n")
    assert quick_args(["score", "--split", "coinco:test", "g", "--submission", "f",
                       "--submission=g", "f"])["paths"] == tuple(map(Path, "fggf"))


def test_repeated_submission_scores_every_file(folder) -> None:
    """``--submission a --submission b``: both, in both paths (click's took the last one)."""
    tmp, files, env = folder
    for b in ("0", "20"):
        args = ["score", "--split", "semeval07:trial", "--bootstrap", b, "--json",
                "--submission", files[0], "--submission", files[2], files[1]]
        fast, general = _run(args, env), _run([*args, "--no-cache"], env)
        assert fast.returncode == general.returncode == 0, general.stderr
        assert fast.stdout == general.stdout
        docs = [json.loads(line) for line in fast.stdout.splitlines()]
        assert [d["submission"] for d in docs] == [files[0], files[2], files[1]]


def test_numpy_free_copies_agree_with_their_originals() -> None:
    from leaderboard.scoring.engine import POS_ORDER

    assert split_module.BLANKS == BLANKS and quick.POS_ORDER == POS_ORDER
    assert split_module.data_dir() == lexsub_data_dir()


def test_a_batch_prints_what_single_runs_print(folder) -> None:
    """Several files in one process (float64 resamples kept, intervals of the printed metrics
    only, no POS block resampled) print what one process per file prints, and what the
    general scoring gives for the metrics and intervals printed."""
    tmp, files, env = folder
    pair = tmp / "run.pair"
    pair.write_bytes(b"bright.a 1 :: smart\nbright.a 2 :: vivid;shining\n"
                     b"bright.a 1 ::: smart;clever\nbright.a 2 ::: vivid;shining;smart\n")
    for batch in (files, [str(pair), str(pair)]):
        args = ["score", "--split", "semeval07:trial", "--bootstrap", "40", "--json"]
        together = _run([*args, *batch], env).stdout.splitlines()
        alone = [_run([*args, f], env).stdout.strip() for f in batch]
        assert together == alone and len(together) == len(batch)
    split = FAMILIES["semeval07"].prepare_files("trial", tmp, name="x", bootstrap=40)
    report = FAMILIES["semeval07"].validate(pair.read_bytes(), split, track="generative")
    full = FAMILIES["semeval07"].score(split, report, track="generative")
    doc = json.loads(together[0])
    assert doc["intervals"] == {k: full.intervals[k] for k in doc["intervals"]}
    assert doc["metrics"] == {k: full.metrics[k] for k in doc["metrics"]}
    split.float_resamples = True
    assert split.resamples().dtype.name == "float64" and split.resamples() is split.resamples()
    assert (split.resamples() == FAMILIES["semeval07"].prepare_files(
        "trial", tmp, name="x", bootstrap=40).resamples()).all()


def test_a_reader_that_stops_reading_ends_the_command_without_a_traceback(folder) -> None:
    """``leaderboard score ... | head``: 300 files print about 400 KB, more than a pipe
    holds, so the command writes after the reader has gone."""
    tmp, files, env = folder
    code = "import sys\nfrom leaderboard.cli import main\nmain(sys.argv[1:])\n"
    proc = subprocess.Popen([sys.executable, "-c", code, "score", "--split", "semeval07:trial",
                             "--bootstrap", "0", *[files[0]] * 300], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert proc.stdout.readline().startswith(b"== ")
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
