"""The whole-file reading of a usual RANKED file (:func:`ranked.parse_plain`, msgspec at C
speed) gives what the line-by-line reading gives (:func:`ranked.parse_ranked`, Python 2's float
grammar), to the last bit of every score, or declines (None) and leaves the file to it.

* every seeded file of the lst_gap.py parity fixture (the "quirks" ones decline);
* one odd line at a time after a usual one: each score spelling Python 2's float and JSON read
  differently (``1_0``, ``inf``, ``nan``, ``+1``, ``.5``, ``1.``, ``01``, ``-0``, ``1e999``,
  non-ASCII digits, blanks only Python 3 strips), line ends (CRLF, tab-CRLF, a trailing tab
  or space), quotes, backslashes and control characters in candidates, blank lines, empty
  fields, repeated ids, too many candidates;
* 200,000 random decimal strings of JSON's grammar (long mantissas, exponents, halfway points
  between neighbouring doubles, subnormals, the overflow edge) against ``float``.
"""

from __future__ import annotations

import gzip
import random
import struct
from decimal import Decimal

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.lexsub import reader
from leaderboard.scoring.lexsub.ranked import parse_plain, parse_ranked
from leaderboard.scoring.lexsub.split import QuickSplit, target_of
from leaderboard.scoring.lexsub.validation import validate
from leaderboard.scoring.validate import ValidationReport

from .conftest import RANKING, lexsub_dir
from .generated import CASES, ranked_bytes

USUAL = "RANKED\tbright.a 1\talight 0.5\tmost talented -1.25e-3\tup-and-coming 7"


def _bits(entries):
    return [(c, struct.pack("<d", s), type(c), type(s)) for c, s in entries]


def _both(raw: bytes, max_entries: int = 5000):
    """(parse_plain's Answers or None, parse_ranked's Answers and report)."""
    plain = parse_plain(raw.decode("latin-1"), max_entries, reader.MAX_LINES,
                        reader.MAX_LINE_CHARS)
    report = ValidationReport()
    lines = parse_ranked(reader.Upload(raw, 10**9).lines(), report, max_entries)
    return plain, lines, report


def _same(plain, lines) -> None:
    assert list(plain.ranked) == list(lines.ranked)
    for key, entries in plain.ranked.items():
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
        return
    assert plain is not None and not report.warnings and report.ok
    _same(plain, lines)
    # and through validate, gzipped or not
    for data in (raw, gzip.compress(raw)):
        got = validate(data, split, track=RANKING)
        assert got.ok
        _same(got.submission, lines)


@pytest.mark.slow
@pytest.mark.parametrize("block", [1, 700, 50_000])
def test_blocks_read_alike(block, monkeypatch) -> None:
    """A large file is decoded a block of lines at a time (its copies stay small): any block
    size reads what the line reader reads, the lines without fields (LS07's 9) included."""
    from leaderboard.scoring.lexsub import ranked

    monkeypatch.setattr(ranked, "_BLOCK_CHARS", block)
    split = FAMILIES["semeval07"].prepare_files("all", lexsub_dir(), name="x", bootstrap=0)
    for scheme, seed in (("random", 0), ("gold_aware", 3)):
        plain, lines, report = _both(ranked_bytes(split, scheme, seed))
        assert plain is not None and report.ok
        _same(plain, lines)
    # a bad line in a later block still sends the whole file to the line reader
    raw = ranked_bytes(split, "random", 1) + b"RANKED\tzzz.n 1\tdim .5\n"
    assert _both(raw)[0] is None


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


def test_plain_declines_what_it_must() -> None:
    def plain(text: str, max_entries: int = 5000):
        return parse_plain(text, max_entries, reader.MAX_LINES, reader.MAX_LINE_CHARS)

    assert plain(USUAL + "\n") is not None
    assert plain(USUAL + "\n", max_entries=2) is None  # too many: refused line by line
    assert plain(USUAL + "\n" + USUAL + "\n") is None  # a repeated id: warned line by line
    assert plain(USUAL + "\n\n" + USUAL.replace("1", "2", 1)) is None  # a blank line
    assert plain(USUAL.replace("alight 0.5", "alight " + "1" * 300_000)) is None  # too long
    assert plain(USUAL + "\tdim 1\\u0041") is None and plain(USUAL + "\tdim 1\x01") is None
    quoted = plain(USUAL + '\t"d\\u0041" 1\n')  # quotes and backslashes kept as they are
    assert quoted.ranked["bright.a 1"][-1] == ('"d\\u0041"', 1.0)
    assert plain(USUAL + "\tdim -0") is None and plain(USUAL + "\tdim -0.0") is not None


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
    scores = _decimals(random.Random(32))
    # what the whole-file reading declines: a double's overflow (float: inf) and "-0"
    declined = [s for s in scores if abs(float(s)) == float("inf") or s == "-0"]
    kept = [s for s in scores if s not in declined]
    assert len(kept) > 190_000 and declined
    lines = [f"RANKED\tw.n {i}\tcand {s}" for i, s in enumerate(kept)]
    plain = parse_plain("\n".join(lines) + "\n", 5000, reader.MAX_LINES,
                        reader.MAX_LINE_CHARS)
    got = [v[0][1] for v in plain.ranked.values()]
    assert [struct.pack("<d", g) for g in got] == [struct.pack("<d", float(s)) for s in kept]
    for s in declined[:50]:
        assert parse_plain(f"RANKED\tw.n 1\tcand {s}\n", 5000, reader.MAX_LINES,
                           reader.MAX_LINE_CHARS) is None


def _tiny():
    """Enough of a split for validate's RANKED checks (two instances, their pools)."""
    return QuickSplit("tiny", "c", [target_of("bright.a 1 :: clever 3;smart 1;"),
                                    target_of("dark.a 2 :: dim 2;gloomy 1;")],
                      "semeval07", "tiny", {"bright.a": ["alight", "most talented",
                                                         "up-and-coming"], "dark.a": ["dim"]})
