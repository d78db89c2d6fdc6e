"""score.pl's line pattern read in linear time: the same match as perl's, on every line.

The reference is the pattern itself: Python's ``re`` with ``search`` gives perl's leftmost
match of ``([\\w.]+) (\\S+) :: (.*)`` (ASCII), so short random lines are compared with it
(long ones would take it minutes); ``perl score.pl -v`` is run live on
quirk lines and prints the lemma and id it read.
"""

from __future__ import annotations

import gzip
import random
import re
import subprocess

import pytest

from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.lines import match_answer_line, match_kind, match_line

from .conftest import GENERATIVE, run, score_pl, tiny_split

# score.pl's own patterns, run only on short lines here
PERL = {"best": re.compile(r"([\w.]+) (\S+) :: (.*)", re.ASCII),
        "oot": re.compile(r"([\w.]+) (\S+) ::: (.*)", re.ASCII)}
PIECES = ["a", ".", " ", ":", "x", "\t", "-", "\r", "1", "\xe9", "_", "\x0b", "\xa0",
          " :: ", " ::: ", "a.n", " 12", " ::", ":: "]


def _reference(text: str, kind: str) -> tuple | None:
    m = PERL[kind].search(text.split("\n", 1)[0])
    return None if m is None else (m.group(1), m.group(2), m.group(3), m.end(1))


def test_same_match_as_the_pattern_on_random_short_lines() -> None:
    rng = random.Random(30)
    matched = 0
    for _ in range(40_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        for kind in ("best", "oot"):
            found = match_line(text, kind)
            assert _reference(text, kind) == (None if found is None else tuple(found)), \
                (text, kind)
            matched += found is not None
    assert matched > 2_000          # the comparison covers matches, not only refusals


def test_the_uncached_match_is_the_cached_one() -> None:
    """:func:`match_kind` (a file's parse) is :func:`match_answer_line` without its cache."""
    rng = random.Random(31)
    kinds = set()
    for _ in range(40_000):
        text = "".join(rng.choice([*PIECES, "\n", " ::: a;b"]) for _ in range(rng.randint(0, 14)))
        found = match_kind(text)
        assert found == match_answer_line(text), text
        kinds.add(None if found is None else found[0])
    assert kinds == {None, "best", "oot"}


@pytest.mark.parametrize(("text", "best"), [
    ("a" * 100_000, None), ("...." * 25_000, None), (" :: " * 25_000, None),
    ("a " * 50_000, None), ("c" * 60_000, None),
    ("side.n 301 :: " + "c" * 100_000, ("side.n", "301", "c" * 100_000, 6)),
    ("a.n " + "x" * 100_000 + " :: y", ("a.n", "x" * 100_000, "y", 3))])
def test_long_lines_are_read_in_one_pass(text, best) -> None:
    """Lines on which the backtracking pattern runs in quadratic time: read here in one
    pass, with the match the pattern gives."""
    found = match_line(text, "best")
    assert (None if found is None else tuple(found)) == best
    assert match_line(text, "oot") is None


def test_a_100000_character_line_without_a_separator(tmp_path) -> None:
    """A tiny gzipped file of one long line without a separator: the line is skipped
    (score.pl skips it too), named, and the file refused for having no answer line."""
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;"])
    report, _ = run(split, gzip.compress(b"a" * 100_000), GENERATIVE)
    assert [(p.code, p.position) for p in report.errors] == [("no_answer_lines", 1)]
    assert [(p.code, p.position) for p in report.warnings] == [("unreadable_line", 1)]
    # one answer line, then two long lines without a separator
    raw = gzip.compress(b"bright.a 1 :: smart\n" + (b"c" * 60_000 + b"\n") * 2)
    report, result = run(split, raw, GENERATIVE)
    assert report.ok and result.metrics["best_p"] == pytest.approx(100 * 3 / 5)
    warning = next(p for p in report.warnings if p.code == "unreadable_line")
    assert warning.position == 2 and "on lines 2, 3" in warning.message


def test_a_line_over_the_limit_is_refused_and_named(tmp_path) -> None:
    split = tiny_split(tmp_path, ["bright.a 1 :: smart 3;clever 2;"])
    over = b"bright.a 1 :: " + b"x;" * (formats.MAX_LINE_CHARS // 2)
    report, _ = run(split, b"bright.a 1 :: smart\n" + over + b"\n", GENERATIVE)
    assert [(p.code, p.position) for p in report.errors] == [("line_too_long", 2)]
    assert f"line 2 is longer than {formats.MAX_LINE_CHARS:,}" in report.errors[0].message


# Each line's lemma and id as score.pl reads them (verbose output), ids 1..9 in the gold
QUIRKS = [
    "e commerce.J 1 :: online",            # unanchored: lemma "commerce.J"
    "caf\xe9.n 2 :: online",               # \w is ASCII: lemma ".n"
    "  \tbright.a 3 :: online",            # leading blanks
    "a-b.c 4 :: online",                   # lemma "b.c"
    "x.y 5 :: p :: online",                # the first separator after an id
    "odd\x0bword.n 6 :: online",           # \x0b is a blank for perl too
    "x 7 ::: y z.n 7 :: online",           # a .best match inside an .oot line
    "w.n 8\xa0 :: online",                 # \xa0 is not a blank for perl: id "8\xa0"
    "q.n\t9 :: online",                    # a tab is not the space the pattern wants
]


def test_lemma_and_id_as_score_pl_reads_them(tmp_path) -> None:
    gold = tmp_path / "gold"
    ids = ["1", "2", "3", "4", "5", "6", "7", "8\xa0", "9"]
    gold.write_bytes("".join(f"g.n {i} :: online 3;web 1;\n" for i in ids).encode("latin-1"))
    answers = tmp_path / "answers"
    answers.write_bytes(("\n".join(QUIRKS) + "\n").encode("latin-1"))
    out = subprocess.run(["perl", str(score_pl()), str(answers), str(gold), "-t", "best",
                          "-v"], capture_output=True, check=True).stdout.decode("latin-1")
    perl = re.findall(r"^(.*) Item (.*) credit ", out, re.M)
    ours = []
    for text in QUIRKS:
        found = match_line(text, "best")
        if found is not None:
            ours.append((found.lemma, found.item))
    assert ours == perl
    assert len(perl) == 8                  # every quirk line but the tab one is read
    assert match_answer_line(QUIRKS[6])[0] == "oot"   # we read it as the .oot line it is
