"""score.pl's answer-line pattern, read in linear time.

score.pl matches a ``.best`` line with ``([\\w.]+) (\\S+) :: (.*)`` (``:::`` for ``.oot``),
unanchored, on the bytes of the line (ASCII ``\\w``; ``\\s`` is space, tab, CR, LF, FF, VT).
A backtracking engine runs that pattern in quadratic time on a long line that does not match
(an upload of one long line could hold a worker for minutes), so this module finds the same
match another way:

* the id (group 2) is a run of non-blanks that starts right after a single space and ends
  right before the separator, so it is a whole run: the match is found by a search for
  ``<space>(\\S++)<separator>`` after a word character, whose possessive run never backtracks
  and never reads a byte twice (runs after different spaces do not overlap);
* the leftmost such place is also where score.pl's leftmost match starts: a later place
  would give a later lemma, so the first one found is the match;
* the lemma (group 1) is the run of ``[\\w.]`` that ends before that space, read backwards
  with an anchored pattern on the reversed prefix;
* the answers (group 3) are the rest of the line up to its first newline.

Every function here reads a line once or twice at C speed, whatever its content.
"""

from __future__ import annotations

import re
from collections import namedtuple
from functools import lru_cache

SEPARATORS = {"best": " :: ", "oot": " ::: "}
# score.pl's id and separator after a [\w.] character: possessive, so nothing is re-read.
_AFTER_LEMMA = {kind: re.compile(r"(?<=[\w.]) (\S++)" + re.escape(sep), re.ASCII)
                for kind, sep in SEPARATORS.items()}
# The lemma read backwards from its last character (anchored: match, not search).
_LEMMA_REVERSED = re.compile(r"[\w.]+", re.ASCII)


class LineMatch(namedtuple("LineMatch", "lemma item answers lemma_end")):
    """What score.pl's pattern captures on one line: ``lemma`` (group 1, the ``[\\w.]`` run
    before the id: ``commerce.J`` of CoInCo's ``e commerce.J``), ``item`` (group 2, score.pl's
    item id), ``answers`` (group 3, the rest of the line up to its first newline) and
    ``lemma_end``, the index just after group 1 (the text before it is the whole lemma)."""

    __slots__ = ()


def match_line(text: str, kind: str) -> LineMatch | None:
    """score.pl's match of ``kind`` ("best" or "oot") on ``text``, or None where it has none."""
    if len(text) <= _CACHED_CHARS:
        return _match_cached(text, kind)
    return _match(text, kind)


#: A file's lines are matched by several passes (parse, coverage, score.pl's two kinds,
#: Jabbari, repeats); short ones are matched once. Bounded: at most 32,768 lines of 512
#: characters (about 20 MB) are kept, whatever a file holds.
_CACHED_CHARS = 512


@lru_cache(maxsize=1 << 15)
def _match_cached(text: str, kind: str) -> LineMatch | None:
    return _match(text, kind)


def _match(text: str, kind: str) -> LineMatch | None:
    cut = text.find("\n")
    if cut >= 0:
        text = text[:cut]
    found = _AFTER_LEMMA[kind].search(text) if SEPARATORS[kind] in text else None
    if found is None:
        return None
    space = found.start()
    lemma_length = _LEMMA_REVERSED.match(text[space - 1::-1]).end()
    return LineMatch(text[space - lemma_length:space], found.group(1),
                     text[found.end():], space)


def match_kind(text: str) -> tuple[str, LineMatch] | None:
    """:func:`match_answer_line` without the cache, for a line matched once (a file's parse
    keeps its matches, :meth:`.formats.Answers.matches`): the same two matches, in the same
    order, each made only where its separator is in the line."""
    cut = text.find("\n")
    if cut >= 0:
        text = text[:cut]
    for kind, separator in _KINDS:
        if separator in text:
            found = _AFTER_LEMMA[kind].search(text)
            if found is not None:
                space = found.start()
                lemma_length = _LEMMA_REVERSED.match(text[space - 1::-1]).end()
                return kind, LineMatch(text[space - lemma_length:space], found.group(1),
                                       text[found.end():], space)
    return None


_KINDS = (("oot", SEPARATORS["oot"]), ("best", SEPARATORS["best"]))


def match_answer_line(text: str) -> tuple[str, LineMatch] | None:
    """``("oot", match)`` or ``("best", match)``: ``:::`` first, since a ``.best`` pattern
    can match an ``.oot`` line only inside its answers; None for a line of neither kind."""
    for kind in ("oot", "best"):
        found = match_line(text, kind)
        if found is not None:
            return kind, found
    return None
