"""RANKED scores read with Python 2's float, rankings sorted with Python's sort: both checked
against a live Python 2 (the language lst_gap.py runs in), not against a copy of its code."""

from __future__ import annotations

import json
import math
import random
import subprocess

from leaderboard.scoring.lexsub.gap import ranked_order
from leaderboard.scoring.lexsub.ranked import _PY3_ONLY, py2_float

from .conftest import python2

_FLOAT = """
import json, sys
out = []
for codes in json.load(sys.stdin):
    try:
        out.append(repr(float("".join(chr(c) for c in codes))))
    except ValueError:
        out.append(None)
json.dump(out, sys.stdout)
"""

_SORT = """
import json, sys
from operator import itemgetter
out = []
for scores in json.load(sys.stdin):
    pairs = [(str(i), float(s)) for i, s in enumerate(scores)]
    out.append([c for c, _ in sorted(pairs, key=itemgetter(1), reverse=True)])
json.dump(out, sys.stdout)
"""


def _in_python2(program: str, data) -> list:
    done = subprocess.run([python2(), "-c", program], input=json.dumps(data).encode(),
                          capture_output=True, check=True)
    return json.loads(done.stdout)


def _strings() -> list[str]:
    """Scores as they reach the parser (latin-1 text of the file's bytes)."""
    special = ["1_0", "1__0", "_1", "nan", "-nan", "+NaN", "inf", "-inf", "+Infinity",
               "infinit", "infinityy", "in", "1e", "e1", ".", "-.5", "5.", "1e+5", "1E-5",
               "0x10", "1L", "1j", "\xd9\xa1", "\xef\xbc\x91", " 1 ", "\t1\r\n", "\x001",
               "", " ", "1,5", "--1", "+-1", "1.2.3", "1e999", "-1e999", "9" * 400,
               "0." + "0" * 400 + "1", "00012", "1 2", "\x0b1\x0c", "1\x85", "\xa01"]
    around = [f"{p}1{s}" for c in map(chr, range(256)) for p, s in ((c, ""), ("", c))]
    return special + around


def _python3(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def test_py2_float_is_python2s_float() -> None:
    """Also the fast path's premise: without the characters of ``_PY3_ONLY`` in a line,
    Python 3's float reads (or refuses) every field as Python 2's does."""
    strings = _strings()
    theirs = _in_python2(_FLOAT, [[ord(c) for c in s] for s in strings])
    assert sum(e is None for e in theirs) > 300 and sum(e is not None for e in theirs) > 50
    for text, expected in zip(strings, theirs, strict=True):
        readers = [py2_float] + ([_python3] if _PY3_ONLY.search(text) is None else [])
        for read in readers:
            value = read(text)
            if expected is None:
                assert value is None, (text, read)
            elif expected == "nan":
                assert value is not None and math.isnan(value), (text, read)
            else:
                assert value == float(expected), (text, read)


def test_rankings_with_nan_are_sorted_as_python2_sorts_them() -> None:
    rng = random.Random(11)
    cases = []
    for n in (3, 10, 63, 64, 65, 200, 1000):
        for _ in range(5):
            cases.append([rng.choice(["nan", "inf", "-inf", str(rng.randint(0, 9)),
                                      repr(rng.random())]) for _ in range(n)])
    theirs = _in_python2(_SORT, cases)
    for scores, expected in zip(cases, theirs, strict=True):
        ranking = [(str(i), float(s)) for i, s in enumerate(scores)]
        assert [c for c, _ in ranked_order(ranking)] == expected
