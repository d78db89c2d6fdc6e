"""The C paths (:mod:`leaderboard.scoring.lexsub.native`, ``csrc/``) give what the Python
definitions give, to the last bit, or decline (None) and leave the work to them:

* :func:`native.parse_ranked` against :func:`ranked.parse_ranked` (Python 2's float grammar,
  line by line): every seeded file of the lst_gap.py parity fixture (the "quirks" ones
  decline); one odd line at a time after a usual one (each score spelling the two Pythons
  read differently, ``1_0``, ``inf``, ``nan``, ``+1``, ``.5``, ``1.``, ``01``, ``-0``,
  ``1e999``, non-ASCII digits, blanks only Python 3 strips; line ends; quotes, backslashes and
  control characters in candidates; blank lines, empty fields, repeated ids, too many
  candidates); 200,000 random decimal strings (long mantissas, exponents, halfway points
  between neighbouring doubles, subnormals, the overflow edge) against ``float``;
* :func:`native.gap_values` against :func:`gap.gap_numerator`, and :func:`native.coverage`
  against the Python pool check, on the same files and on hand-made rankings (ties, repeats,
  multiword candidates, strangers, ``inf``; a NaN or an int score declines);
* :func:`native.parse_lines`, :func:`native.scorepl_columns`, :func:`native.oot_repeats` and
  :func:`native.jabbari_rows` against their Python definitions on the real LS07 test and
  trial and CoInCo test splits (seeded .best/.oot pairs with blank answer parts, repeats,
  hyphens, apostrophes, non-x, empty fields, trailing semicolons, missing lines, over ten oot
  answers; the upper bound; the gold itself; one kind alone), on odd lines (the reader
  declines what the Python reader warns about) and on 2,000 made-up Jabbari items;
* a whole ``leaderboard score --json`` with and without the extension
  (``LEADERBOARD_PURE_PYTHON=1``), RANKED files and .best/.oot pairs, B = 0 and 100: the
  same output.

The extension must be built wherever a C compiler is (CI): a test says so.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
from array import array
from decimal import Decimal
from pathlib import Path

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.jabbari import gold_total, jabbari_row
from leaderboard.scoring.lexsub import formats, native, reader
from leaderboard.scoring.lexsub.columns import generative_columns
from leaderboard.scoring.lexsub.gap import instance_gaps
from leaderboard.scoring.lexsub.jabbari_rows import answer_list
from leaderboard.scoring.lexsub.lines import LineMatch
from leaderboard.scoring.lexsub.ranked import parse_ranked
from leaderboard.scoring.lexsub.repeats import oot_repeats, scorepl_gold
from leaderboard.scoring.lexsub.scorepl import GoldItems, score_columns
from leaderboard.scoring.lexsub.split import QuickSplit, target_of
from leaderboard.scoring.lexsub.validation import _pool_counts, validate
from leaderboard.scoring.validate import ValidationReport

from .conftest import RANKING, lexsub_dir
from .generated import CASES, ranked_bytes

needs_native = pytest.mark.skipif(not native.AVAILABLE, reason="the C extension is not built "
                                  "(no compiler, or LEADERBOARD_PURE_PYTHON is set)")
pytestmark = needs_native
LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))


def test_the_extension_is_built_where_a_compiler_is() -> None:
    if os.environ.get("LEADERBOARD_PURE_PYTHON") or shutil.which("cc") is None:
        pytest.skip("no C compiler here (or LEADERBOARD_PURE_PYTHON): the Python path serves")
    assert native.AVAILABLE


USUAL = "RANKED\tbright.a 1\talight 0.5\tmost talented -1.25e-3\tup-and-coming 7"


def _bits(entries):
    return [(c, struct.pack("<d", s), type(c), type(s)) for c, s in entries]


def _plain(raw: bytes, max_entries: int = 5000) -> dict | None:
    return native.parse_ranked(raw, max_entries, reader.MAX_LINES, reader.MAX_LINE_CHARS)


def _both(raw: bytes, max_entries: int = 5000):
    """(the C reading or None, parse_ranked's Answers and report)."""
    report = ValidationReport()
    lines = parse_ranked(reader.Upload(raw, 10**9).lines(), report, max_entries)
    return _plain(raw, max_entries), lines, report


def _same(plain: dict, lines) -> None:
    assert list(plain) == list(lines.ranked)
    for key, entries in plain.items():
        assert type(entries) is list and all(type(e) is tuple for e in entries)
        assert _bits(entries) == _bits(lines.ranked[key]), key


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_parity_files_read_alike(case) -> None:
    family, name, scheme, seed = case
    split = FAMILIES[family].prepare_files(name, lexsub_dir(), name="x", bootstrap=0)
    raw = ranked_bytes(split, scheme, seed)
    plain, lines, report = _both(raw)
    if scheme == "quirks":
        assert plain is None  # inf, nan, refused scores: read line by line
    else:
        assert plain is not None and not report.warnings and report.ok
        _same(plain, lines)
    # and through validate, gzipped or not: the same entries, warnings and GAP either way
    python_gaps = _python_gaps(split, lines.ranked)
    for data in (raw, gzip.compress(raw)):
        got = validate(data, split, track=RANKING)
        assert got.ok
        _same(got.submission.ranked, lines)
        gaps = native.gap_values(got.submission.ranked, split.target_ids, split.gap_gold)
        if scheme == "quirks":  # nan among the scores: Python's sort decides, not C
            assert gaps is None
        else:
            assert _float_bits(gaps) == _float_bits(python_gaps)
        assert _float_bits(instance_gaps(split.target_ids, split.gap_gold,
                                         got.submission.ranked)) == _float_bits(python_gaps)
        distinct_c, distinct_py = set(), set()
        counted = native.coverage(got.submission.ranked, split.target_ids, split.pool_list,
                                  split.gap_maps, distinct_c)
        assert counted == _pool_counts(lines.ranked, split, distinct_py)
        assert distinct_c == distinct_py


@pytest.mark.slow
def test_one_odd_line_sends_a_large_file_to_the_line_reader() -> None:
    split = FAMILIES["semeval07"].prepare_files("all", lexsub_dir(), name="x", bootstrap=0)
    raw = ranked_bytes(split, "random", 1)
    assert _plain(raw) is not None
    for odd in (b"RANKED\tzzz.n 1\tdim 1_0\n", b"RANKED\tbright.a 1\tdim .5\n",
                b"RANKED\tzzz.n 1\tdim 1\t\n"):
        assert _plain(raw + odd) is None
        got = validate(raw + odd, split, track=RANKING)
        assert got.ok and got.warnings  # read line by line: the warning names the line


ODD_LINES = [
    "RANKED\tdark.a 2\tdim 1_0", "RANKED\tdark.a 2\tdim inf", "RANKED\tdark.a 2\tdim -inf",
    "RANKED\tdark.a 2\tdim nan", "RANKED\tdark.a 2\tdim +1", "RANKED\tdark.a 2\tdim .5",
    "RANKED\tdark.a 2\tdim 1.", "RANKED\tdark.a 2\tdim 01", "RANKED\tdark.a 2\tdim -0",
    "RANKED\tdark.a 2\tdim -0.0", "RANKED\tdark.a 2\tdim -0e1", "RANKED\tdark.a 2\tdim 1e5",
    "RANKED\tdark.a 2\tdim 1E+05", "RANKED\tdark.a 2\tdim 1e999", "RANKED\tdark.a 2\tdim -1e-400",
    "RANKED\tdark.a 2\tdim 1e-400", "RANKED\tdark.a 2\tdim 123456789012345678901234567890",
    "RANKED\tdark.a 2\tdim \xd9\xa1", "RANKED\tdark.a 2\tdim 5\xa0", "RANKED\tdark.a 2\tdim \xa05",
    "RANKED\tdark.a 2\tdim 5\x1c", "RANKED\tdark.a 2\tdim 0x1", "RANKED\tdark.a 2\tdim",
    "RANKED\tdark.a 2\tdim 1\r", "RANKED\tdark.a 2\tdim 1\t\r", "RANKED\tdark.a 2\tdim 1\t",
    "RANKED\tdark.a 2\tdim 1 ", "RANKED\tdark.a 2\tdim 1 \r", "RANKED\tdark.a 2\tdim \r1",
    "RANKED\tdark.a 2\tdim  1", "RANKED\tdark.a 2\t dim 1", "RANKED\tdark.a 2\tdim 1\t\tx 2",
    "RANKED\tdark.a 2\tdim 1 2", "RANKED\tdark.a 2\ttop 10 2", "RANKED\tdark.a 2\td\"im 1",
    "RANKED\tdark.a 2\td\\u0041 1", "RANKED\tdark.a 2\td\x01 1", "RANKED\tdark.a 2\td\x7f\xe9 1",
    "RANKED\tdark.a 2\tx5", "RANKED\tdark.a 2\t\xe9t\xe9 1\tdim 2\r", "RANKED\tdark.a 2",
    "RANKED\tdark.a 2\r", "RANKED\tdark.a 2\t", "RANKED\t \t dim 1", "RANKED", "",
    " \t", "RANKED\tbright.a 1\tdim 1", "RANKED\tdark.a 2\tdim 1\x0b",
    "RANKED\tdark.a 2\tdim 1e5\tdark 2E-3\tdull -4.5e+2",
    # JSON's own characters after a score, or in a candidate next to a space
    "RANKED\tdark.a 2\tdim 1 ]", "RANKED\tdark.a 2\tdim 1]", "RANKED\tdark.a 2\tdim 1],[",
    "RANKED\tdark.a 2\tdim 1 ,2", "RANKED\tdark.a 2\tdim 1,2", "RANKED\tdark.a 2\tdim 1 \"",
    "RANKED\tdark.a 2\tdim 1]]],[[[\tdull 2", "RANKED\tdark.a 2\tdim 1],[\tdull 2",
    "RANKED\tdark.a 2\td\",x 1\tdull 2", "RANKED\tdark.a 2\td\\\",\\ 1\tdull 2",
    "RANKED\tdark.a 2\td\\ 1", "RANKED\tdark.a 2\tpast 7 day 0.5\tdim 1",
    "RANKED\tdark.a 2\tpast 7 day 0.5 x", "RANKED\tdark.a 2\t\" 1\t\\ 2\t, 3\t] 4",
]


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
@pytest.mark.parametrize("end", ["\n", ""])
def test_odd_lines_take_the_line_reader_or_read_alike(line: str, end: str) -> None:
    raw = (USUAL + "\n" + line + end).encode("latin-1")
    plain, lines, report = _both(raw)
    if plain is not None:
        assert report.ok and not report.warnings
        _same(plain, lines)
    got = validate(raw, _tiny(), track=RANKING)
    assert [(p.code, p.message) for p in got.errors + got.warnings if p.code in (
        "bad_score", "blank_entry", "duplicate_instance", "unreadable_line")] == [
        (p.code, p.message) for p in report.errors + report.warnings]
    if got.ok and report.ok:
        assert {k: _bits(v) for k, v in got.submission.ranked.items()} == {
            k: _bits(v) for k, v in lines.ranked.items()}


def test_declines_what_it_must() -> None:
    assert _plain((USUAL + "\n").encode()) is not None
    assert _plain((USUAL + "\n").encode(), max_entries=2) is None  # refused line by line
    assert _plain((USUAL + "\n" + USUAL + "\n").encode()) is None  # warned line by line
    assert _plain(USUAL.replace("alight 0.5", "alight " + "1" * 300_000).encode()) is None
    assert _plain((USUAL + "\tdim 1\\u0041").encode()) is None
    assert _plain((USUAL + "\tdim 1\x01").encode()) is None
    assert _plain((USUAL + "\tdim nan").encode()) is None  # letters: the line reader
    quoted = _plain((USUAL + '\t"d\\u0041" 1\n').encode())  # quotes, backslashes as written
    assert quoted["bright.a 1"][-1] == ('"d\\u0041"', 1.0)
    # read as float reads them: -0 (-0.0), a blank line between (skipped by both)
    zero = _plain((USUAL + "\tdim -0\n\n \t\nRANKED\tdark.a 2\tdim 1").encode())
    assert math.copysign(1, zero["bright.a 1"][-1][1]) == -1 and list(zero) == [
        "bright.a 1", "dark.a 2"]
    # each spelling of a candidate is one str object: its hash is computed once a file
    shared = _plain(b"R\tw.n 1\tcar 1\tvan 2\nR\tw.n 2\tvan 3\tcar 4\n")
    assert shared["w.n 1"][0][0] is shared["w.n 2"][1][0]


def _decimals(rng: random.Random) -> list[str]:
    out = []
    for _ in range(200_000):
        kind = rng.random()
        if kind < 0.3:  # repr of a random double, and its neighbours' midpoint
            x = rng.random() * 10 ** rng.randint(-30, 30)
            out.append(repr(x))
            nxt = struct.unpack("<d", struct.pack("<d", x + 0.0))[0]
            mid = (Decimal(x) + Decimal(_next_up(nxt))) / 2
            out.append(format(mid, "f") if abs(mid) < 1e20 else format(mid, "e"))
        elif kind < 0.6:  # many digits
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 60)))
            frac = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 60)))
            out.append(f"{digits.lstrip('0') or '0'}.{frac}")
        elif kind < 0.8:  # exponents, subnormals, near the top
            mant = f"{rng.randint(1, 9)}.{rng.randint(0, 10**17)}"
            out.append(f"{mant}e{rng.choice(['', '+', '-'])}{rng.randint(0, 330)}")
        else:
            out.append(str(rng.randint(0, 10**rng.randint(1, 25))))
        if rng.random() < 0.5:
            out[-1] = "-" + out[-1]
    return out + ["4.9406564584124654e-324", "2.4703282292062327e-324",
                  "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308",
                  "2.2250738585072011e-308", "2.2250738585072012e-308", "0.1", "9007199254740993"]


def _next_up(x: float) -> float:
    bits = struct.unpack("<q", struct.pack("<d", abs(x)))[0] + 1
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def test_random_decimals_read_as_float_reads_them() -> None:
    for scores in (_decimals(random.Random(32)), _halfway_integers(random.Random(33))):
        lines = [f"RANKED\tw.n {i}\tcand {s}" for i, s in enumerate(scores)]
        plain = _plain(("\n".join(lines) + "\n").encode())  # (under MAX_LINES each)
        got = [v[0][1] for v in plain.values()]
        assert len(got) == len(scores) > 100_000
        assert _float_bits(got) == _float_bits(map(float, scores))


def _halfway_integers(rng: random.Random) -> list[str]:
    """Integers of at most 19 digits exactly halfway between two doubles (and their
    neighbours, and the same scaled by powers of ten): where one rounding to 64 bits and a
    second to 53 could differ from float's one rounding."""
    out = []
    for _ in range(20_000):
        exponent = rng.randint(53, 63)
        base = rng.randrange(1 << 52) + (1 << 52)  # a double's significand
        step = 1 << (exponent - 52)
        mid = base * step + step // 2
        if mid >= 10**19:
            continue
        for value in (mid - 1, mid, mid + 1):
            digits = str(value)
            out.append(digits)
            cut = rng.randint(1, len(digits) - 1)
            out.append(f"{digits[:cut]}.{digits[cut:]}e{len(digits) - cut}")
            out.append(f"0.{digits}e{len(digits)}")
    return out


def _python_gaps(split, ranked: dict) -> list[float]:
    """The Python definition (:func:`instance_gaps` with the extension set aside)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(native, "_native", None)
        return instance_gaps(split.target_ids, split.gap_gold, ranked)


def _float_bits(values) -> list[bytes]:
    return [struct.pack("<d", v) for v in values]


def test_gap_and_coverage_of_hand_made_rankings() -> None:
    split = _tiny()
    cases = [
        {"bright.a 1": [("smart", 1.0), ("clever", 1.0), ("alight", 2.0)]},  # ties: file order
        {"bright.a 1": [("clever", 0.5), ("clever", 0.7), ("most talented", 9.0)]},  # repeats
        {"bright.a 1": [("up-and-coming", 5.0), ("smart", float("inf")), ("x", -1e308)]},
        {"bright.a 1": [("gloomy", 3.0), ("smart", -0.0), ("clever", 0.0)],
         "dark.a 2": [("dim", 1.0), ("dim", 1.0), ("gloomy", 2.0), ("zz", 3.0)]},
        {"dark.a 2": []}, {},
    ]
    for ranked in cases:
        gaps = native.gap_values(ranked, split.target_ids, split.gap_gold)
        assert _float_bits(gaps) == _float_bits(_python_gaps(split, ranked)), ranked
        distinct_c, distinct_py = set(), set()
        assert native.coverage(ranked, split.target_ids, split.pool_list, split.gap_maps,
                               distinct_c) == _pool_counts(ranked, split, distinct_py)
        assert distinct_c == distinct_py
    # worked by hand: clever (gold 3) at 2, smart (1) at 3 behind alight; ideal 3/1 + 4/2
    ranked = {"bright.a 1": [("smart", 1.0), ("clever", 1.0), ("alight", 2.0)]}
    assert native.gap_values(ranked, split.target_ids, split.gap_gold)[0] == (1 / 2 + 4 / 3) / 5
    # what C leaves to Python: a NaN (Python's sort decides its place), a score not a float
    for odd in ([("smart", float("nan"))], [("smart", 1)]):
        assert native.gap_values({"bright.a 1": odd}, split.target_ids, split.gap_gold) is None
        assert instance_gaps(split.target_ids, split.gap_gold, {"bright.a 1": odd}) == \
            _python_gaps(split, {"bright.a 1": odd})
    # strangers (gold or not), left-out candidates, a repeated candidate: counted by hand
    distinct: set[str] = set()
    assert native.coverage({"bright.a 1": [("smart", 1.0), ("zz", 2.0), ("zz", 3.0)],
                            "dark.a 2": [("dim", 1.0)]}, split.target_ids, split.pool_list,
                           split.gap_maps, distinct) == (1, 1, 3)
    assert distinct == {"dark.a 2"}


@pytest.mark.slow
def test_leaderboard_score_prints_the_same_with_and_without_the_extension(tmp_path) -> None:
    split = FAMILIES["semeval07"].prepare_files("all", lexsub_dir(), name="x", bootstrap=0)
    test = FAMILIES["semeval07"].prepare_files("test", lexsub_dir(), name="x", bootstrap=0)
    runs = {"semeval07:all": [], "semeval07:test": []}
    for scheme, seed in (("random", 0), ("gold_aware", 3), ("quirks", 9)):
        path = tmp_path / f"{scheme}.ranked"
        path.write_bytes(ranked_bytes(split, scheme, seed))
        runs["semeval07:all"].append(str(path))
    for i, raw in enumerate(_pair_files(test, range(2))):
        path = tmp_path / f"run{i}.pair"
        path.write_bytes(raw)
        runs["semeval07:test"].append(str(path))
    out = {}
    for pure in ("", "1"):
        env = {**os.environ, "LEADERBOARD_PURE_PYTHON": pure,
               "LEADERBOARD_CACHE_DIR": str(tmp_path / "cache"),
               "LEADERBOARD_LEXSUB_DIR": str(lexsub_dir())}
        for spec, files in runs.items():
            for b in ("0", "100"):
                done = subprocess.run([LEADERBOARD, "score", "--split", spec, "--bootstrap", b,
                                       "--json", *files], capture_output=True, text=True,
                                      env=env, check=True)
                out[pure, spec, b] = [json.loads(line) for line in done.stdout.splitlines()]
    for spec, files in runs.items():
        for b in ("0", "100"):
            assert out["", spec, b] == out["1", spec, b]
            assert len(out["", spec, b]) == len(files)
    assert out["", "semeval07:all", "0"][0]["metrics"]["gap"] > 0
    assert out["", "semeval07:test", "100"][0]["metrics"]["oot_r"] > 0


def _tiny():
    """Enough of a split for validate's RANKED checks (two instances, their pools)."""
    return QuickSplit("tiny", "c", [target_of("bright.a 1 :: clever 3;smart 1;"),
                                    target_of("dark.a 2 :: dim 2;gloomy 1;")],
                      "semeval07", "tiny", {"bright.a": ["alight", "most talented",
                                                         "up-and-coming"], "dark.a": ["dim"]})


# ---- .best/.oot lines: the reader, score.pl's tallies and repeats, Jabbari et al.'s rows ----

ODD_ANSWER_LINES = [
    b"bright.a 1 :: a;b\n\nbright.a 2 ::: x;y\n", b"  e commerce.J 125 :: x\n",
    b"a b.n 3 ::  \n", b"x.n 1 :: a\r\n", b"junk\nx.n 1 :: a\n", b"x.n 1 :: a\nx.n 1 :: b\n",
    b"x.n 1 ::: a\nx.n 1 :: b\n", b"\xa0w.n 1 :: \xe9t\xe9;;\n", b"w.n\t1 :: a\n",
    b"w.n 1 :: a :: b\nv.n 2 ::: c ::: d\n", b"w.n 1 ::a\n", b"w-n 1 :: a\n", b".n x :: a",
    b" :: a\n", b"\n\n", b"\x1cw.n 1 :: a\n", b"w.n 1 :: " + b"a;" * 6000 + b"\n",
]


def _pair_files(split, seeds: range) -> list[bytes]:
    """.best + .oot pairs: each instance answered from its gold and pool, shuffled, with blank
    answer parts (carried by score.pl), repeats, hyphens, apostrophes, non-x, empty fields,
    trailing semicolons, lines missing and more than ten oot answers."""
    files = []
    for seed in seeds:
        rng = random.Random(seed)
        best, oot = [], []
        for t in split.targets:
            gold = [e.rsplit(" ", 1)[0] for e in t.line.split("::", 1)[1].strip().split(";")
                    if e]
            pool = list(split.pool(t)) + gold + ["non-" + g for g in gold[:1]] + ["o'k", "a-b"]
            rng.shuffle(pool)
            head = t.line.split(" ::", 1)[0]
            odd = rng.random()
            answers = ";".join(pool[:rng.randint(0, 14)])
            if odd < 0.05:
                answers = " "
            elif odd < 0.1:
                answers = answers + ";;"
            elif odd < 0.15:
                answers = ";" + answers + ";" + pool[0]
            if rng.random() < 0.95:
                best.append(f"{head} :: {answers.split(';')[0] if rng.random() < 0.7 else answers}")
            if rng.random() < 0.95:
                oot.append(f"{head} ::: {answers}")
        files.append(("\n".join(best + oot) + "\n").encode("latin-1"))
    return files


def _lines_state(answers) -> tuple:
    return (answers.best_lines, answers.oot_lines, answers.matches("best"),
            answers.matches("oot"), answers.line_keys, answers.entries)


@pytest.mark.slow
@pytest.mark.parametrize(("family", "name"), [("semeval07", "test"), ("semeval07", "trial"),
                                              ("coinco", "test")])
def test_answer_lines_read_and_score_alike(family, name, monkeypatch) -> None:
    split = FAMILIES[family].prepare_files(name, lexsub_dir(), name="x", bootstrap=0)
    source = FAMILIES[family].build_source(name)
    files = _pair_files(split, range(3 if family == "coinco" else 8))
    files.append(gzip.decompress(FAMILIES[family].upper_bound_submission(source)))
    files.append(b"\n".join(t.line.encode("latin-1") for t in split.targets[:300]))  # gold
    files.append(files[0].split(b":::", 1)[0])  # .best lines only
    files.append(b"\n".join(line for line in files[1].split(b"\n") if b":::" in line))
    for raw in files:
        got = validate(raw, split, track="generative")
        c_state, c_report = _lines_state(got.submission), got
        c_columns, c_jabbari = generative_columns(split, got.submission)
        c_repeats = oot_repeats(scorepl_gold(split), got.submission.oot_lines,
                                got.submission.matches("oot"))
        with monkeypatch.context() as m:
            m.setattr(native, "_native", None)
            m.setattr(native, "AVAILABLE", False)
            want = validate(raw, split, track="generative")
            columns, jabbari = generative_columns(split, want.submission)
            repeats = oot_repeats(scorepl_gold(split), want.submission.oot_lines)
        assert c_state == _lines_state(want.submission)
        assert [(p.code, p.message) for p in c_report.warnings + c_report.errors] == [
            (p.code, p.message) for p in want.warnings + want.errors]
        assert c_report.counts == want.counts
        assert {k: _float_bits(v) for k, v in c_columns.items()} == {
            k: _float_bits(v) for k, v in columns.items()}
        assert _float_bits(c_jabbari) == _float_bits(jabbari)
        assert c_repeats == repeats


@pytest.mark.parametrize("raw", ODD_ANSWER_LINES, ids=range(len(ODD_ANSWER_LINES)))
def test_odd_answer_lines_take_the_line_reader_or_read_alike(raw: bytes, monkeypatch) -> None:
    found = native.parse_lines(raw, 5000, reader.MAX_LINES, reader.MAX_LINE_CHARS)
    report = ValidationReport()
    want = formats.parse_lines(reader.Upload(raw, 10**9).lines(), report, 5000)
    if found is None:
        assert report.warnings or report.errors or not (want.best_lines or want.oot_lines)
        return
    assert report.ok and not report.warnings
    assert _lines_state(formats.lines_answers(*found)) == _lines_state(want)


def test_scorepl_tallies_of_made_up_gold(monkeypatch) -> None:
    """Items of 1-40 gold answers (the C tally compares small ones byte by byte, looks large
    ones up as str), hyphens and apostrophes, ties without a mode, keys past latin-1, blank
    answer parts (the previous line's answers stay), repeated ids, up to 70 answers: C's
    columns are the Python definition's, bit for bit, and so are the lines it finds
    repeating an answer."""
    rng = random.Random(11)
    words = ["a", "b-c", "b c", "d'e", "de", "non-f", "nonf", "h", "i j", "\xe9", ""]
    words += [f"w{i}" for i in range(60)]
    keys_only = ["g\u0151", "h\u0151"]  # past latin-1: equal to no answer
    for _ in range(300):
        counts, modes, matches = {}, {}, []
        for item in map(str, range(rng.randint(1, 12))):
            if rng.random() < 0.8:
                keys = rng.sample(words[:-1] + keys_only, rng.randint(1, 40))
                counts[item] = {k: rng.randint(1, 5) for k in keys}
                if rng.random() < 0.7:
                    modes[item] = keys[0]
        for _ in range(rng.randint(0, 20)):
            item = str(rng.randint(0, 12))
            answers = ";".join(rng.choice(words) for _ in range(rng.choice(
                [rng.randint(0, 14), rng.randint(33, 70)])))
            if rng.random() < 0.15:
                answers = " " * rng.randint(0, 2)
            matches.append(None if rng.random() < 0.05 else LineMatch("x.n", item, answers, 3))
        gold = GoldItems(counts, modes)
        row_of = {str(i): i for i in range(13)}
        for kind in ("best", "oot"):
            got = tuple(array("d", [float(c)] * 13) for c in range(4))
            want = tuple(array("d", [float(c)] * 13) for c in range(4))
            assert native.scorepl_columns(matches, kind == "best", gold.norms_by_item(),
                                          modes, row_of, got)
            with monkeypatch.context() as m:
                m.setattr(native, "_native", None)
                score_columns(GoldItems(counts, modes), matches, kind, row_of, want)
            assert [_float_bits(c) for c in got] == [_float_bits(c) for c in want], (
                counts, modes, matches, kind)
        # the .oot lines score.pl counts as repeating an answer (past 32 answers: a hash table)
        lines = [(number, "") for number in range(1, len(matches) + 1)]
        got_repeats = native.oot_repeats(lines, matches, gold.norms_by_item())
        assert got_repeats is not None
        with monkeypatch.context() as m:
            m.setattr(native, "_native", None)
            assert got_repeats == oot_repeats(GoldItems(counts, modes), lines, matches)


def test_jabbari_rows_of_made_up_counts() -> None:
    """Counts of 0 and below, answers outside the gold, repeats (more than the 32 compared
    byte by byte too), blanks around and between answers, keys past latin-1, more than ten
    answers, 25-40 gold answers (looked up as str), no gold at all, a best1 line of its own:
    C's rows are the Python definition's, bit for bit."""
    rng = random.Random(5)
    words = [f"w{i}" for i in range(50)] + ["a b", "\xe9t\xe9"]
    keys_only = ["g\u0151"]  # past latin-1: equal to no answer
    for _ in range(3000):
        counts = {w: rng.choice([-1, 0, 1, 1, 2, 3, 7])
                  for w in rng.sample(words + keys_only, rng.choice([0, 1, 3, 6, 30, 40]))}
        many = rng.random() < 0.1
        answers = [rng.choice(words if not many else words[:6])
                   for _ in range(rng.randint(0, 80 if many else 16))]
        text = ";".join(rng.choice(["", " ", "\t"]) + a + rng.choice(["", " "])
                        for a in answers) + rng.choice(["", ";", "; ;"])
        top = rng.choice([None, " ; " + rng.choice(words), ";;", rng.choice(words) + ";x"])
        total = gold_total(counts)
        row = jabbari_row(counts, answer_list(text), total, trimmed=True)
        first = None if top is None else answer_list(top)
        if row[0] and first:
            row = (row[0], max(counts.get(first[0], 0), 0) / max(counts.values()), *row[2:])
        got = array("d", bytes(8 * len(row)))
        assert native.jabbari_rows(["1"], [counts], [total], {"1": text},
                                   None if top is None else {"1": top}, got)
        assert _float_bits(got) == _float_bits(row), (counts, text, top)
    # a count that is not an int, a text past latin-1: the Python definition
    assert not native.jabbari_rows(["1"], [{"a": 1.5}], [1.5], {"1": "a"}, None,
                                   array("d", bytes(8 * 15)))
    assert not native.jabbari_rows(["1"], [{"a": 1}], [1], {"1": "a;\u0151"}, None,
                                   array("d", bytes(8 * 15)))
    with pytest.raises(ValueError):  # an array of another length
        native.jabbari_rows(["1"], [{"a": 1}], [1], {"1": "a"}, None, array("d", [0.0]))


_PIECES = ["RANKED\t", "\t", " ", "  ", " :: ", " ::: ", "::", ";", ";;", ".", "a", "bright.a",
           "1", "0", "-0", "7.5", ".5", "5.", "1e5", "1E-400", "1e999", "-", "+", "nan", "inf",
           "_", "'", "non-", "non ", "\r", "\x0b", "\x0c", "\xa0", "\x1c", "\x85", "\xe9", "x5",
           "0.84442185152504810", "123456789012345678901", "\\", '"', "\n", "\n\n", "e", "0x1"]


def _random_file(rng: random.Random) -> bytes:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 60))).encode("latin-1")


def test_random_bytes_read_alike_or_left_to_python() -> None:
    """5,000 files of random pieces (separators, blanks, numbers of every spelling, latin-1
    letters): where a C reader takes a file, the Python reader reads the same without a
    warning; where it declines, the Python reader reads it (and no file crashes either)."""
    rng = random.Random(20261127)
    taken = {"ranked": 0, "lines": 0}
    for _ in range(5000):
        raw = _random_file(rng)
        if rng.random() < 0.5:
            raw = b"RANKED\tw.n %d\t" % rng.randint(1, 3) + raw
        else:
            raw = b"w.n %d :: " % rng.randint(1, 3) + raw
        ranked, lines, report = _both(raw)
        if ranked is not None:
            taken["ranked"] += 1
            assert report.ok and not report.warnings, raw
            _same(ranked, lines)
        found = native.parse_lines(raw, 5000, reader.MAX_LINES, reader.MAX_LINE_CHARS)
        report = ValidationReport()
        want = formats.parse_lines(reader.Upload(raw, 10**9).lines(), report, 5000)
        if found is not None:
            taken["lines"] += 1
            assert report.ok and not report.warnings, raw
            assert _lines_state(formats.lines_answers(*found)) == _lines_state(want), raw
    assert taken["ranked"] > 200 and taken["lines"] > 200, taken
