"""best and oot as SemEval-2007's ``score.pl ANSWERS GOLD -t best|oot`` computes them.

What the published numbers include, and this module reproduces:

* lines are matched by ``([\\w.]+) (\\S+) :: (.*)`` (``:::`` for oot), unanchored, ASCII
  ``\\w`` (found in linear time by :mod:`.lines`); items are keyed by the id (the second
  token) only; a line that does not match but is not blank is "Error in file on line N" and
  is skipped;
* gold: entries containing ``pn`` are removed; an item counts when 2+ entries remain or the
  first has a count over 1; an entry must match ``(\\w[\\w'\\-\\s]+) (\\d+)``; one apostrophe
  is removed; the mode is the first entry unless a later one has the same count;
* an answer line counts once per id (the first one whose id has gold credit); answers are
  ``split(';')`` (trailing empty fields dropped), ``non-x``/``non x`` -> ``nonx``, every
  hyphen -> space, one apostrophe removed; a hyphenated gold key also matches its spaced
  form (the exact key wins where both exist: score.pl leaves that to Perl's hash order);
* a line whose answer part is blank keeps the previous counted line's answers: it is not
  counted as attempted, but those answers still earn credit (and, for best, mode credit);
* best: credit = sum of the normalised counts of all answers / number of answers; oot: the
  first 10 answers, credit not divided, a repeated answer credited each time;
* P = credit / attempted, R = credit / items, mode P/R over items with a mode.
"""

from __future__ import annotations

import re
import sys
from array import array
from functools import reduce
from itertools import repeat
from operator import add

from leaderboard.scoring.lexsub.lines import LineMatch, match_line
from leaderboard.scoring.swords.semeval import GOLD_ENTRY, GOLD_FIRST, fix_guess, perl_split

OOT_GUESSES = 10
#: Floats added one at a time, in order, as perl's loop (and numpy down a column) adds them:
#: ``sum`` does so at C speed up to Python 3.11; 3.12's compensates its rounding
if sys.version_info < (3, 12):
    ordered_sum = sum
else:
    def ordered_sum(values) -> float:
        return reduce(add, values, 0)
_NON_BLANK = re.compile(r"\S", re.ASCII)


class GoldItems:
    """score.pl's reading of a gold file: counts per item id, modes and per-line tallies."""

    __slots__ = ("counts", "modes", "items", "mode_items", "_norms")

    def __init__(self, counts: dict[str, dict[str, int]] | None = None,
                 modes: dict[str, str] | None = None, items: dict[str, int] | None = None,
                 mode_items: dict[str, int] | None = None) -> None:
        self.counts = {} if counts is None else counts
        self.modes = {} if modes is None else modes
        #: item id -> how many counted lines (score.pl's ``totitems``) and modes it adds
        self.items = {} if items is None else items
        self.mode_items = {} if mode_items is None else mode_items
        #: item id -> its norms, computed once (the gold is read once per split)
        self._norms: dict[str, dict[str, float]] = {}

    def norms(self, item: str) -> dict[str, float]:
        """Answer -> count / item total (a hyphenated key also under its spaced form); the
        caller must not change the dict, which is shared by every file scored on the split."""
        found = self._norms.get(item)
        if found is not None:
            return found
        counts = self.counts.get(item, {})
        total = sum(counts.values())
        norms: dict[str, float] = {}
        if total:
            norms = {key.replace("-", " "): n / total for key, n in counts.items() if "-" in key}
            norms.update((key, n / total) for key, n in counts.items())
        self._norms[item] = norms
        return norms


def item_of(line: str) -> str | None:
    """score.pl's item id of a gold line (the second token of its match), if it matches."""
    m = match_line(line, "best")
    return m.item if m else None


def read_gold(lines: list[str]) -> GoldItems:
    """Every gold line, in file order, as ``readgoldfile`` reads it."""
    gold = GoldItems()
    for line in lines:
        m = match_line(line, "best")
        if not m:
            continue
        item = m.item
        entries = [e for e in perl_split(m.answers) if "pn" not in e]
        first = GOLD_FIRST.search(entries[0]) if entries else None
        if not (len(entries) > 1 or (first is not None and int(first.group(1)) > 1)):
            continue
        gold.items[item] = gold.items.get(item, 0) + 1
        mode, mode_count, tied = None, None, False
        counts = gold.counts.setdefault(item, {})
        for entry in entries:
            e = GOLD_ENTRY.search(entry)
            if not e:
                continue
            sub, n = e.group(1).replace("'", "", 1), int(e.group(2))
            if mode is None:
                mode, mode_count = sub, n
                gold.modes[item] = sub
                gold.mode_items[item] = gold.mode_items.get(item, 0) + 1
            elif not tied and n == mode_count:
                gold.modes.pop(item, None)
                gold.mode_items[item] -= 1
                tied = True
            counts[sub] = n
    return gold


def score_columns(gold: GoldItems, matches: list[LineMatch | None], kind: str,
                  row_of: dict[str, int], columns: tuple[array, ...]) -> None:
    """Add what each counted answer line of ``kind`` (its score.pl match, :func:`.lines.
    match_line`, in file order) gives its item to the item's row (``row_of``) of
    ``columns`` (each an ``array('d')``): attempted, credit, mode attempted, mode hit
    (score.pl's running totals; a line it skips adds nothing)."""
    attempted, credits, mode_attempted, mode_hit = columns
    norms_of, modes = gold.norms, gold.modes
    best = kind == "best"
    done: set[str] = set()
    answers: list[str] = []
    for m in matches:
        if m is None:
            continue
        item = m.item
        if item in done:
            continue
        norms = norms_of(item)
        if not norms:
            continue
        done.add(item)
        i = row_of[item]
        rest = m.answers
        if _NON_BLANK.search(rest):  # else the previous counted line's answers stay
            answers = list(map(fix_guess, perl_split(rest)))
            if answers:
                attempted[i] += 1.0
        if not best:
            answers = answers[:OOT_GUESSES]
        if answers:
            mode = modes.get(item)
            if mode:
                mode_attempted[i] += 1.0
                if mode == answers[0] if best else mode in answers:
                    mode_hit[i] += 1.0
            # added one at a time, in order, as score.pl's loop adds
            credit = ordered_sum(map(norms.get, answers, repeat(0.0)))
            if credit:
                credits[i] += credit / len(answers) if best else credit

