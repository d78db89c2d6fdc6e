"""Per-target diagnostics for splits whose labels are public (the dev phase).

For each scored target: the system's top 10 after the spec's normalisation, each with its
gold score and label; the acceptable gold substitutes missing from that top 10; strict
F^10 (acceptable, k = 10) and GAP on that one target. Everything here reveals gold labels:
callers must offer it only for public-label splits, never for a hidden one.

Per-target P/R/F use the pooled formulas of the spec on one target, with its rule that
0/0 is 0: an abstention has P = R = F = 0, and so does any list for a target with no
acceptable substitute (``f_defined`` is false there: no system can score above 0).
Summing ``hits``, ``n_top`` and ``gold_a_k`` over targets gives the pooled strict_a
metrics. GAP is ``None`` for a target with no positive gold weight, which the engine
leaves out of its mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from leaderboard.scoring.swords.engine import normalise_list
from leaderboard.scoring.swords.gap import gap_row
from leaderboard.scoring.swords.generative import K
from leaderboard.scoring.swords.gold import GoldTarget, PreparedSplit
from leaderboard.scoring.swords.lemmatize import lemmatizer_for

ACCEPTABLE = "acceptable"
CONCEIVABLE = "conceivable"
NOT_CONCEIVABLE = "not_conceivable"
NOT_IN_GOLD = "not_in_gold"
SORT_KEYS = ("f", "gap", "gap_rat")


@dataclass(frozen=True)
class ListedSubstitute:
    """One entry of the system's top 10: the lemma as scored and what the gold says of it."""

    rank: int
    substitute: str
    submitted: str
    label: str
    score: float | None
    votes: int | None


@dataclass(frozen=True)
class MissedSubstitute:
    """An acceptable gold substitute outside the top 10; ``rank`` in the whole list or None."""

    substitute: str
    score: float
    votes: int
    rank: int | None


@dataclass(frozen=True)
class TargetDiagnostics:
    """What one submission did on one target; metric values in percent.

    ``answered`` and ``list_length`` describe the list after normalisation (a list holding
    only the target's own word is empty there).
    """

    target_id: str
    lemma: str
    pos: str
    answered: bool
    list_length: int
    top: list[ListedSubstitute]
    missed: list[MissedSubstitute]
    n_acceptable: int
    n_conceivable: int
    hits: int
    n_top: int
    gold_a_k: int
    precision: float
    recall: float
    f: float
    f_defined: bool
    gap: float | None
    gap_rat: float | None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def gold_label(target: GoldTarget, substitute: str) -> str:
    """acceptable / conceivable / not_conceivable (a candidate below 0.1) / not_in_gold."""
    if substitute in target.acceptable:
        return ACCEPTABLE
    if substitute in target.conceivable:
        return CONCEIVABLE
    return NOT_CONCEIVABLE if substitute in target.candidate_set else NOT_IN_GOLD


def _submitted_forms(entries: list[tuple[str, float]], pos: str) -> dict[str, str]:
    """Lemma -> the submitted string whose score it carries (the highest; ties: first)."""
    lemma_of = lemmatizer_for(pos)
    best: dict[str, tuple[float, str]] = {}
    for sub, score in sorted(entries, key=lambda e: -e[1]):
        lem = lemma_of(sub)
        if lem not in best or score > best[lem][0]:
            best[lem] = (score, sub)
    return {lem: sub for lem, (_, sub) in best.items()}


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def target_diagnostics(target: GoldTarget,
                       entries: list[tuple[str, float]]) -> TargetDiagnostics:
    """Diagnostics of one target's submitted (substitute, score) list."""
    ranked = normalise_list(entries, target)
    forms = _submitted_forms(entries, target.pos) if ranked else {}
    index = {c: i for i, c in enumerate(target.candidates)}
    top = []
    for rank, sub in enumerate(ranked[:K], start=1):
        i = index.get(sub)
        top.append(ListedSubstitute(
            rank, sub, forms.get(sub, sub), gold_label(target, sub),
            None if i is None else target.scores[i],
            None if i is None else target.positives[i]))
    position = {sub: rank for rank, sub in enumerate(ranked, start=1)}
    missed = [
        MissedSubstitute(c, target.scores[i], target.positives[i], position.get(c))
        for i, c in sorted(enumerate(target.candidates), key=lambda p: -target.scores[p[0]])
        if c in target.acceptable and position.get(c, K + 1) > K
    ]
    hits = sum(s.label == ACCEPTABLE for s in top)
    gold_a_k = min(len(target.acceptable), K)
    p, r = _ratio(hits, len(top)), _ratio(hits, gold_a_k)
    gap, _, gap_rat, _ = gap_row(
        ranked, target.weights, target.gap_denominator, target.gap_rat_denominator)
    # No positive gold weight: the mean counts the target as -1 (the original's rule), but
    # per target there is nothing to rank against, so diagnostics say "undefined".
    gap_defined = target.gap_denominator > 0
    return TargetDiagnostics(
        target.target_id, target.lemma, target.pos, bool(ranked), len(ranked), top, missed,
        len(target.acceptable), len(target.conceivable), hits, len(top), gold_a_k,
        100 * p, 100 * r, 100 * _ratio(2 * p * r, p + r), gold_a_k > 0,
        100 * gap if gap_defined else None, 100 * gap_rat if gap_defined else None)


def diagnose(prepared: PreparedSplit,
             entries: Mapping[str, list[tuple[str, float]]]) -> list[TargetDiagnostics]:
    """Diagnostics of every scored target, in split order.

    ``entries`` is a validated submission's :attr:`Submission.entries`; a target it does not
    answer is an abstention. Only for public-label splits (this reveals the gold).
    """
    return [target_diagnostics(t, entries.get(t.target_id, []))
            for t in prepared.scored_targets]


def worst_targets(diagnostics: list[TargetDiagnostics], by: str = "f", *,
                  pos: str | None = None, best_first: bool = False,
                  limit: int | None = None) -> list[TargetDiagnostics]:
    """Targets ordered worst first by ``by`` (``f``, ``gap`` or ``gap_rat``), or best first.

    ``pos`` keeps one part of speech. Targets where the metric is undefined (F without an
    acceptable substitute, GAP without a positive weight) come last either way; ties keep
    the given (split) order.
    """
    if by not in SORT_KEYS:
        raise ValueError(f"cannot sort by {by!r}; choose one of {', '.join(SORT_KEYS)}")
    rows = [d for d in diagnostics if pos is None or d.pos == pos]

    def value(d: TargetDiagnostics) -> float | None:
        if by == "f":
            return d.f if d.f_defined else None
        return getattr(d, by)

    defined = [d for d in rows if value(d) is not None]
    defined.sort(key=value, reverse=best_first)  # stable both ways: ties keep split order
    ordered = defined + [d for d in rows if value(d) is None]
    return ordered if limit is None else ordered[:limit]
