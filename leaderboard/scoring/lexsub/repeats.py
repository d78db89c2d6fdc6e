"""Items with duplicates (IwD): answers given twice for one item, which the field's scripts
credit each time.

score.pl credits every repeat on an ``.oot`` line (credit is not divided there), so a file
that repeats the gold mode ten times beats every honest system; it warns "OOT file contains
duplicates on N lines" and still prints the number. lst_gap.py credits a candidate ranked
twice twice, so GAP can pass 100. McCarthy & Navigli (2009, section 4.1.2) keep the official
number and report such systems apart, with IwD. A ``.best`` line is not counted: its credit is
the mean over its answers, which a repeat cannot raise above that of its best answer alone.
"""

from __future__ import annotations

import re
from operator import itemgetter

from leaderboard.scoring.lexsub.lines import LineMatch, match_line
from leaderboard.scoring.lexsub.scorepl import GoldItems, read_gold
from leaderboard.scoring.lexsub.split import LexsubGold
from leaderboard.scoring.swords.semeval import fix_guess, perl_split

_NON_BLANK = re.compile(r"\S", re.ASCII)
_first = itemgetter(0)


def scorepl_gold(split: LexsubGold) -> GoldItems:
    """score.pl's reading of the split's gold, read once per split object."""
    gold = split.__dict__.get("_scorepl_gold")
    if gold is None:
        gold = split.__dict__["_scorepl_gold"] = read_gold([t.line for t in split.targets])
    return gold


def oot_repeats(gold: GoldItems, lines: list[tuple[int, str]],
                matches: list[LineMatch | None] | None = None) -> list[tuple[int, str]]:
    """(line number, item id) of each ``.oot`` line score.pl counts in "OOT file contains
    duplicates on N lines": the first line of an item with gold credit, its answer part not
    blank, whose answers (as ``fixmisc`` leaves them, all of them, before the cut to 10)
    hold one string twice (two empty fields, as in ``a;;b;;c``, count as perl's do)."""
    found: list[tuple[int, str]] = []
    done: set[str] = set()
    if matches is None:  # (``matches``: each line's, where the caller has them)
        matches = [match_line(text, "oot") for _, text in lines]
    for (number, _), m in zip(lines, matches, strict=True):
        if not m or m.item in done or not gold.norms(m.item):
            continue
        done.add(m.item)
        if _NON_BLANK.search(m.answers):
            answers = perl_split(m.answers)
            if "-" in m.answers or "'" in m.answers or "non" in m.answers:
                answers = [fix_guess(a) for a in answers]   # else it changes nothing
            if len(set(answers)) < len(answers):
                found.append((number, m.item))
    return found


def ranked_repeats(split: LexsubGold, ranked: dict[str, list[tuple[str, float]]],
                   distinct: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Instances GAP scores (a positive gold weight left) whose ranking, as lst_gap.py's
    no-mwe reading keeps it, gives one candidate more than once; ``distinct``: instances
    already known to rank no candidate twice (the coverage check counts them)."""
    found = []
    for target, (_, denominator) in zip(split.targets, split.gap_gold, strict=True):
        if denominator <= 0 or target.target_id in distinct:
            continue
        entries = ranked.get(target.target_id, ())
        if len(set(map(_first, entries))) == len(entries):
            continue  # no candidate twice at all (the usual file): none among those kept
        kept = [c for c, _ in entries if " " not in c and "-" not in c]
        if len(set(kept)) < len(kept):
            found.append(target.target_id)
    return found
