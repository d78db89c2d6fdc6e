"""Per-instance diagnostics on LS07 and CoInCo, whose labels are published.

The same rows as SWORDS's (:class:`leaderboard.scoring.swords.diagnostics.TargetDiagnostics`), read
for this family: a gold answer is "acceptable" when annotators gave it (its score is its
share of the instance's answers, ``votes`` its count); the system's top 10 is its ranking by
score (ranking track: multiword and hyphenated candidates dropped, as GAP drops them) or its
first ``.oot`` line, else its first ``.best`` line (generative track); P/R/F compare that top
10 with the gold answers; GAP is the instance's own (ranking track), undefined where
lst_gap.py skips the instance.
"""

from __future__ import annotations

from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.data import LexsubSplit, LexsubTarget
from leaderboard.scoring.lexsub.gap import gap_parts, gold_weights, is_mwe, ranked_order
from leaderboard.scoring.lexsub.jabbari_rows import first_lines
from leaderboard.scoring.swords.diagnostics import (
    ACCEPTABLE,
    NOT_IN_GOLD,
    ListedSubstitute,
    MissedSubstitute,
    TargetDiagnostics,
)
from leaderboard.scoring.swords.generative import K, safe_div


def _answer_lists(answers: formats.Answers) -> dict[str, list[str]]:
    """score.pl's item id (lines match by the id, as best and oot match them) -> the answers
    diagnosed: the first .oot line, else the first .best one."""
    lists = first_lines(answers.best_lines, "best")
    lists.update(first_lines(answers.oot_lines, "oot"))
    return lists


def instance_diagnostics(target: LexsubTarget, listed: list[str],
                         ranking: list[tuple[str, float]] | None) -> TargetDiagnostics:
    """One instance: ``listed`` is the system's answers in order; ``ranking`` its scored
    ranking on the ranking track (for GAP), None on the generative one."""
    counts = target.answer_counts()
    total = sum(c for c in counts.values() if c > 0) or 1
    distinct = list(dict.fromkeys(listed))
    top = [ListedSubstitute(rank, sub, sub, ACCEPTABLE if counts.get(sub, 0) > 0
                            else NOT_IN_GOLD, counts[sub] / total if sub in counts else None,
                            counts.get(sub))
           for rank, sub in enumerate(distinct[:K], start=1)]
    position = {sub: rank for rank, sub in enumerate(distinct, start=1)}
    gold = sorted((s for s, c in counts.items() if c > 0), key=lambda s: -counts[s])
    missed = [MissedSubstitute(s, counts[s] / total, counts[s], position.get(s))
              for s in gold if position.get(s, K + 1) > K]
    hits = sum(s.label == ACCEPTABLE for s in top)
    gold_k = min(len(gold), K)
    p, r = safe_div(hits, len(top)), safe_div(hits, gold_k)
    gap = None
    if ranking is not None:
        numerator, denominator = gap_parts(gold_weights(target.line), ranking)
        gap = 100 * numerator / denominator if denominator > 0 else None
    return TargetDiagnostics(
        target.target_id, target.lemma, target.pos, bool(distinct), len(distinct), top, missed,
        len(gold), 0, hits, len(top), gold_k, 100 * p, 100 * r,
        100 * safe_div(2 * p * r, p + r), gold_k > 0, gap, None)


def diagnose(split: LexsubSplit, answers: formats.Answers,
             ranking_track: bool) -> list[TargetDiagnostics]:
    """Diagnostics of every instance of ``split``, in split order (a validated file)."""
    rows = []
    lines = _answer_lists(answers) if answers.kind == formats.LINES else {}
    for target in split.targets:
        if answers.kind == formats.LINES:
            rows.append(instance_diagnostics(target, lines.get(target.item_id, []), None))
            continue
        scored = ranked_order(answers.ranked.get(target.target_id, []))
        if ranking_track:
            scored = [(c, s) for c, s in scored if not is_mwe(c)]
        rows.append(instance_diagnostics(target, [c.strip() for c, _ in scored],
                                         scored if ranking_track else None))
    return rows
