"""The alternative metrics of Jabbari, Hepple and Guthrie (2010): best1 and coverage P/R/F.

For a gold item with counts h (an answer's count is how many annotators gave it) and a
system's distinct answers A, compared as exact strings with ASCII blanks trimmed at both ends
(inner blanks as written; a latin-1 ``\xa0`` is a byte of a UTF-8 letter, not a blank), with
k = 1:

* best1 = h(first answer) / max h;
* coverage R = sum of h over A / sum of h;
* coverage P = sum of h over A / (sum of h over A + k * |A minus the gold answers|);
* coverage F = their harmonic mean, per item; also with A cut to its first 1..10 answers.

Every metric is a mean over the gold items with at least one counted answer; an empty
answer scores 0 on all of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat

PENALTY = 1.0
#: What is trimmed from both ends of an answer, gold or system's: perl's and Python 2's blanks.
BLANKS = " \t\n\r\x0b\x0c"
CUTS = tuple(range(1, 11))

COLUMNS = ("jb_item", "jb_best1", "jb_cov_p", "jb_cov_r", "jb_cov_f") + tuple(
    f"jb_cov_f@{k}" for k in CUTS)
METRIC_KEYS = ("best1", "coverage_p", "coverage_r", "coverage_f") + tuple(
    f"coverage_f@{k}" for k in CUTS)
_EMPTY = (0.0,) * (len(COLUMNS) - 1)


def distinct_answers(answers: Sequence[str]) -> list[str]:
    """Trimmed answers (:data:`BLANKS`), first occurrence of each, in order."""
    return list(dict.fromkeys(map(str.strip, answers, repeat(BLANKS))))


def _f(found: float, wrong: float, total: float) -> tuple[float, float, float]:
    """Coverage P, R and F from the gold counts found and the answers outside the gold."""
    precision = found / (found + PENALTY * wrong) if found + wrong else 0.0
    recall = found / total
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f


def gold_total(counts: Mapping[str, float]) -> float:
    """The sum of h over the gold answers (the positive counts): coverage R's denominator."""
    return sum(v for v in counts.values() if v > 0)


def jabbari_row(counts: Mapping[str, float], answers: Sequence[str],
                total: float | None = None, trimmed: bool = False) -> tuple[float, ...]:
    """Per-item values of :data:`COLUMNS`; ``counts`` maps trimmed gold answers to h;
    ``total``: :func:`gold_total` of ``counts`` where the caller keeps it; ``trimmed``: the
    answers are trimmed already."""
    if total is None:
        total = gold_total(counts)
    if total <= 0:
        return (0.0,) + _EMPTY
    distinct = list(dict.fromkeys(answers)) if trimmed else distinct_answers(answers)
    if not distinct or counts.keys().isdisjoint(distinct):
        # no gold answer among them: every h is 0, so best1, P, R and each F are 0 (the
        # expressions below give 0.0 there)
        return (1.0,) + _EMPTY
    get = counts.get
    best1 = max(get(distinct[0], 0.0), 0.0) / max(counts.values())
    # one pass: the first k answers' coverage F for k = 1..10, then all of them
    found, wrong, cut_f = 0.0, 0.0, []
    for answer in distinct[:CUTS[-1]]:
        h = get(answer, 0.0)
        found += h
        wrong += h <= 0
        if found > 0:  # _f's F, inline (the same expressions): one call per answer
            p, r = found / (found + PENALTY * wrong), found / total
            cut_f.append(2 * p * r / (p + r))
        else:
            cut_f.append(0.0 if found == 0 else _f(found, wrong, total)[2])
    for answer in distinct[CUTS[-1]:]:
        h = get(answer, 0.0)
        found += h
        wrong += h <= 0
    cut_f += cut_f[-1:] * (len(CUTS) - len(cut_f))
    return (1.0, best1, *_f(found, wrong, total), *cut_f)


def jabbari_metrics(s: dict) -> dict[str, object]:
    """Means (fractions) from summed columns; arrays broadcast (for resamples)."""
    # imported here: the per-item rows above need no numpy (generative imports it)
    from leaderboard.scoring.swords.generative import safe_div

    items = s["jb_item"]
    out = {"best1": safe_div(s["jb_best1"], items), "coverage_p": safe_div(s["jb_cov_p"], items),
           "coverage_r": safe_div(s["jb_cov_r"], items),
           "coverage_f": safe_div(s["jb_cov_f"], items)}
    out.update((f"coverage_f@{k}", safe_div(s[f"jb_cov_f@{k}"], items)) for k in CUTS)
    return out
