"""GAP for the ranking track, as ``lst_gap.py GOLD RANKED OUT no-mwe`` (orenmel/lexsub) computes it.

Definition (Kishida 2005, as that script implements it):

* a gold entry ``cand count`` and a ranked entry ``cand score`` split at their *last* space;
  with no-mwe, a candidate holding a space or a hyphen is dropped on both sides;
* the gold map keeps the last count of a repeated candidate; the gold vector keeps every
  entry, sorted by count, descending, ties in file order;
* the ranking is sorted by score, descending, ties in file order (Python's ``sorted`` with
  ``reverse=True``, as the script calls it, so that ``nan`` scores, which Python 2's float
  reads, fall where they fall there); each position takes its candidate's gold count (0 when
  not in the gold), repeats included;
* numerator = sum over positions i whose candidate has a positive gold count of
  (gold counts accumulated up to i) / i; denominator = the same over the sorted gold vector;
* GAP = numerator / denominator; an instance whose denominator is 0 (nothing positive left
  after no-mwe) is skipped: it is not in the mean.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from operator import itemgetter

_first = itemgetter(0)


def split_last_space(entry: str) -> tuple[str, str]:
    """``entry[:i], entry[i:]`` at the last space, as the script slices (i = -1 without one)."""
    i = entry.rfind(" ")
    return entry[:i], entry[i:]


def is_mwe(candidate: str) -> bool:
    """What no-mwe drops: a candidate with a space or a hyphen in it."""
    return " " in candidate or "-" in candidate


def gold_weights(line: str) -> list[tuple[str, int]]:
    """The no-mwe gold vector of one gold line, in file order."""
    rest = line.split("::", 2)[1].strip()
    weights = []
    for entry in rest.split(";"):
        if entry:
            candidate, count = split_last_space(entry)
            if not is_mwe(candidate):
                weights.append((candidate, int(count)))
    return weights


def ranked_order(ranking: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """The ranking by score, descending, ties in file order, sorted exactly as the script
    sorts it (with ``nan`` among the scores no order is "right": this one is Python's)."""
    return sorted(ranking, key=itemgetter(1), reverse=True)


def gap_numerator(gold_map: dict[str, int], ranking: Iterable[tuple[str, float]]) -> float:
    """The ranking's sum (``gold_map``: candidate -> its last gold count)."""
    numerator, accumulated = 0.0, 0.0
    # the counts looked up at C speed; a count of 0 (a candidate not in the gold) would add
    # 0 to the running sum, which leaves it as it is, and nothing to the numerator
    counts = map(gold_map.get, map(_first, ranked_order(ranking)), repeat(0))
    for i, value in enumerate(counts, start=1):
        if value:
            accumulated += value
            if value > 0:
                numerator += accumulated / i
    return numerator


def gap_denominator(gold: list[tuple[str, int]]) -> float:
    """The ideal ranking's sum: the gold vector sorted by count."""
    gold_map = dict(gold)
    denominator, accumulated, i = 0.0, 0.0, 0
    for candidate, count in sorted(gold, key=lambda e: -e[1]):
        accumulated += count
        if gold_map[candidate] > 0:
            i += 1
            denominator += accumulated / i
    return denominator


def gap_parts(gold: list[tuple[str, int]],
              ranking: Iterable[tuple[str, float]]) -> tuple[float, float]:
    """(numerator, denominator) of GAP; the caller skips an instance whose denominator is 0."""
    return gap_numerator(dict(gold), ranking), gap_denominator(gold)


def instance_gaps(target_ids: list[str], gap_gold: list[tuple[dict[str, int], float]],
                  ranked: dict[str, list[tuple[str, float]]]) -> list[float]:
    """Each instance's GAP (``gap_gold``: its gold map and denominator, in ``target_ids``'
    order), 0.0 where the denominator is 0 (skipped); a multiword or hyphenated candidate is
    dropped from the ranking first (it is not in the no-mwe gold map: it would earn 0 and
    take a position), as lst_gap.py does."""
    gaps = []
    for key, (gold_map, denominator) in zip(target_ids, gap_gold, strict=True):
        if denominator <= 0:
            gaps.append(0.0)
            continue
        ranking = [e for e in ranked.get(key, ()) if " " not in e[0] and "-" not in e[0]]
        gaps.append(gap_numerator(gold_map, ranking) / denominator)
    return gaps
