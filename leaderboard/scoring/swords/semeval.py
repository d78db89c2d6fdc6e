"""SemEval-2007 best and oot, reproducing ``score.pl`` as SWORDS runs it (spec section 5).

The original writes gold and system lines to files and lets Perl parse them; the quirks of
that parsing are part of the published numbers, so both sides are rebuilt here as the same
strings and parsed with the same (ASCII) regular expressions:

* gold line ``"<sub> <votes>;..."``, sorted by votes descending; entries containing ``pn``
  are removed; an item counts when 2+ entries remain or the first has 2+ votes (checked
  before the entry regex below drops anything);
* each gold entry must match ``(\\w[\\w'\\- \\s]+) (\\d+)`` (leftmost match, so single
  characters are dropped); one apostrophe is removed; a later entry with the same text
  overwrites an earlier one;
* the mode is the first entry unless a later one has the same vote count;
* system guesses: ``non-x``/``non x`` -> ``nonx``, every ``-`` -> space, one apostrophe
  removed; a hyphenated gold key also matches its spaced form (exact keys win when both
  exist: Perl's hash order decided that upstream).
"""

from __future__ import annotations

import re
from collections import namedtuple
from functools import lru_cache

GOLD_FIRST = re.compile(r"[\w'\-\s]+ (\d+)", re.ASCII)
GOLD_ENTRY = re.compile(r"(\w[\w'\-\s]+) (\d+)", re.ASCII)
_NON_PREFIX = re.compile(r"^non[\s-](.*)$", re.ASCII)
OOT_GUESSES = 10


class SemEvalGold(namedtuple("SemEvalGold", "counted norms mode")):
    """One item of score.pl's gold: whether it counts (``counted``), normalised credits
    (``norms``: answer -> credit) and its mode (None without one)."""

    __slots__ = ()

    @property
    def scorable(self) -> bool:
        """score.pl skips an item whose gold votes sum to nothing, even when it counts."""
        return bool(self.norms)


def perl_split(text: str) -> list[str]:
    """Perl's ``split(';', $text)``: trailing empty fields are removed."""
    parts = text.split(";")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _line_rest(text: str) -> str:
    """What ``(.*)`` captures: the line ends at the first newline."""
    return text.split("\n", 1)[0]


def build_semeval_gold(candidates: list[str], positives: list[int]) -> SemEvalGold:
    """Parse one target's gold exactly as ``readgoldfile`` would (spec section 5)."""
    voted = [(c, v) for c, v in zip(candidates, positives, strict=True) if v > 0]
    voted.sort(key=lambda cv: -cv[1])  # stable: ties keep candidate order (deterministic)
    rest = _line_rest(";".join(f"{c} {v}" for c, v in voted) + ";")
    entries = [e for e in perl_split(rest) if "pn" not in e]
    first_votes = None
    if entries and (m := GOLD_FIRST.search(entries[0])):
        first_votes = int(m.group(1))
    if not (len(entries) > 1 or (first_votes is not None and first_votes > 1)):
        return SemEvalGold(False, {}, None)
    votes: dict[str, int] = {}
    mode, mode_votes, mode_tied = None, None, False
    for entry in entries:
        m = GOLD_ENTRY.search(entry)
        if not m:
            continue
        sub, n = m.group(1).replace("'", "", 1), int(m.group(2))
        if mode is None:
            mode, mode_votes = sub, n
        elif not mode_tied and n == mode_votes:
            mode_tied = True
        votes[sub] = n
    total = sum(votes.values())
    norms: dict[str, float] = {}
    if total:
        for key, v in votes.items():
            if "-" in key:
                norms[key.replace("-", " ")] = v / total
        norms.update((key, v / total) for key, v in votes.items())
    return SemEvalGold(True, norms, None if mode_tied else mode)


@lru_cache(maxsize=1 << 14)  # bounded: kept for a worker's lifetime
def fix_guess(item: str) -> str:
    """score.pl's ``fixmisc`` for one system guess."""
    m = _NON_PREFIX.match(item) if item.startswith("non") else None
    if m:
        item = "non" + m.group(1)
    return item.replace("-", " ").replace("'", "", 1)


def system_guesses(ranked: list[str]) -> list[str]:
    """The guesses score.pl reads from a system line built from a ranked substitute list."""
    return [fix_guess(g) for g in perl_split(_line_rest(";".join(ranked) + ";"))]


#: Per-target columns this module contributes to the statistics matrix.
COLUMNS = (
    "se_item", "se_attempted", "best_credit", "oot_credit",
    "se_mode", "se_mode_attempted", "best_mode_hit", "oot_mode_hit",
    # best and oot may come from two answer files (LS07's .best and .oot): oot's own counts
    "oot_attempted", "oot_mode_attempted",
)


def semeval_row(gold: SemEvalGold, ranked: list[str]) -> tuple[float, ...]:
    """Per-target values of :data:`COLUMNS` for a system's ranked (lemmatized) list."""
    item = float(gold.counted)
    has_mode = float(gold.counted and gold.mode is not None)
    if not gold.scorable:
        return (item, 0.0, 0.0, 0.0, has_mode, 0.0, 0.0, 0.0, 0.0, 0.0)
    guesses = system_guesses(ranked)
    if not guesses:
        return (item, 0.0, 0.0, 0.0, has_mode, 0.0, 0.0, 0.0, 0.0, 0.0)
    norms = gold.norms
    credit = 0.0
    for g in guesses:  # duplicates after fixmisc are credited twice, as in score.pl
        credit += norms.get(g, 0.0)
    oot = 0.0
    top = guesses[:OOT_GUESSES]
    for g in top:
        oot += norms.get(g, 0.0)
    mode_att = has_mode
    best_mode = float(bool(has_mode) and guesses[0] == gold.mode)
    oot_mode = float(bool(has_mode) and gold.mode in top)
    return (item, 1.0, credit / len(guesses), oot, has_mode, mode_att, best_mode, oot_mode,
            1.0, mode_att)


def semeval_metrics(s: dict) -> dict[str, object]:
    """best/oot metrics (fractions) from summed columns; arrays broadcast (for resamples)."""
    from leaderboard.scoring.swords.generative import safe_div

    return {
        "best_p": safe_div(s["best_credit"], s["se_attempted"]),
        "best_r": safe_div(s["best_credit"], s["se_item"]),
        "best_mode_p": safe_div(s["best_mode_hit"], s["se_mode_attempted"]),
        "best_mode_r": safe_div(s["best_mode_hit"], s["se_mode"]),
        "oot_p": safe_div(s["oot_credit"], s["oot_attempted"]),
        "oot_r": safe_div(s["oot_credit"], s["se_item"]),
        "oot_mode_p": safe_div(s["oot_mode_hit"], s["oot_mode_attempted"]),
        "oot_mode_r": safe_div(s["oot_mode_hit"], s["se_mode"]),
    }
