"""Jabbari et al. (2010) on LS07 and CoInCo answer lines: which line an instance reads.

* A line is matched to its instance by score.pl's item id alone (the token before ``::``),
  as best and oot match it: the trial XML spells 12 lemmas unlike the gold (``bar.n 48`` for
  the gold's ``bar.n.v 48``), and a file written from it answers those instances.
* The first line of an id counts (score.pl's rule); coverage reads the ``.oot`` line where
  the file has ``.oot`` lines, else the ``.best`` one; best1 reads the first answer of the
  ``.best`` line where the file has ``.best`` lines, else of the ``.oot`` one.
* Answers are the line's ``;`` fields with blanks trimmed; empty fields are left out. A blank
  answer line is an empty answer (0 on every metric): score.pl's carrying of the previous
  line's answers is its own, not part of these metrics' definition.
* The gold counts are :meth:`.data.LexsubTarget.answer_counts` (entries that differ only by
  blanks at their ends merged, their counts added).
"""

from __future__ import annotations

from array import array
from itertools import repeat

from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.lines import LineMatch, match_line
from leaderboard.scoring.lexsub.split import LexsubGold
from leaderboard.scoring.swords.jabbari import BLANKS, jabbari_row


def answer_list(answers: str) -> list[str]:
    """A line's answer part as these metrics compare it: fields trimmed, empty ones left out."""
    return list(filter(None, map(str.strip, answers.split(";"), repeat(BLANKS))))


def first_lines(lines: list[tuple[int, str]], kind: str,
                matches: list[LineMatch | None] | None = None) -> dict[str, list[str]]:
    """score.pl's item id -> the answers of its first line (``lines`` of ``kind``, or their
    ``matches`` where known)."""
    first: dict[str, list[str]] = {}
    if matches is None:
        matches = [match_line(text, kind) for _, text in lines]
    for m in matches:
        if m is not None and m.item not in first:
            first[m.item] = answer_list(m.answers)
    return first


def first_texts(matches: list[LineMatch | None]) -> dict[str, str]:
    """score.pl's item id -> the answer part of its first line (of ``matches``)."""
    return {m.item: m.answers for m in reversed(matches) if m is not None}


def jabbari_values(split: LexsubGold, answers: formats.Answers) -> array:
    """The Jabbari columns' values (:data:`leaderboard.scoring.swords.jabbari.COLUMNS`), an
    ``array('d')`` holding each instance's row in turn, in the order of ``split`` (numpy
    reads them in place)."""
    oot = first_texts(answers.matches("oot")) if answers.oot_lines else None
    best = first_texts(answers.matches("best")) if answers.best_lines else None
    coverage = (oot if oot is not None else best) or {}
    first = (best if best is not None else oot) or {}
    found = array("d")
    for target, counts, total in zip(split.targets, split.jabbari_counts, split.jabbari_totals,
                                     strict=True):
        given = coverage.get(target.item_id)
        row = jabbari_row(counts, () if given is None else answer_list(given), total,
                          trimmed=True)
        top = first.get(target.item_id)
        top = answer_list(top) if top is not None else None
        if row[0] and top and first is not coverage:  # best1 of the .best line's first answer
            row = (row[0], max(counts.get(top[0], 0), 0) / max(counts.values()), *row[2:])
        found.extend(row)
    return found
