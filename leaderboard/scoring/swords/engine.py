"""Score a validated submission against a prepared split: point estimates, intervals, per POS."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from leaderboard.scoring.bootstrap import percentile_intervals
from leaderboard.scoring.swords.gap import gap_row
from leaderboard.scoring.swords.generative import generative_row
from leaderboard.scoring.swords.gold import GoldTarget, PreparedSplit
from leaderboard.scoring.swords.jabbari import jabbari_row
from leaderboard.scoring.swords.lemmatize import lemmatizer_for
from leaderboard.scoring.swords.notices import rule_warnings
from leaderboard.scoring.swords.semeval import semeval_row
from leaderboard.scoring.swords.stats import COLUMNS, TargetStats
from leaderboard.scoring.swords.validate import Submission, ValidationReport, validate_submission
from leaderboard.scoring.version import SCORER_VERSION

POS_ORDER = ("NOUN", "VERB", "ADJ", "ADV")


@dataclass
class ScoreResult:
    """Everything shown about a scored submission, plus its private per-target statistics.

    ``metrics`` and ``intervals`` are in percent; ``by_pos`` maps a POS to its own
    ``{"metrics", "intervals"}``; ``target_stats`` is private (never shown publicly).
    """

    metrics: dict[str, float]
    intervals: dict[str, list[float]]
    by_pos: dict[str, dict[str, dict]]
    warnings: list[str]
    counts: dict[str, float]
    signature: dict[str, object]
    target_stats: TargetStats = field(repr=False)

    def to_dict(self) -> dict:
        """The public, JSON-ready part (no per-target statistics)."""
        return {"metrics": self.metrics, "intervals": self.intervals, "by_pos": self.by_pos,
                "warnings": self.warnings, "counts": self.counts, "signature": self.signature}


def normalise_list(entries: list[tuple[str, float]], target: GoldTarget) -> list[str]:
    """A target's submitted list as scored (spec section 2, submission side).

    Stable sort by score, descending; lemmatize; drop the target's own lemma; several
    entries with one lemma keep the first position and the maximum score; stable re-sort.
    """
    ranked = sorted(entries, key=lambda e: -e[1])
    best: dict[str, float] = {}
    lemma_of = lemmatizer_for(target.pos)
    for sub, score in ranked:
        lem = lemma_of(sub)
        if lem == target.lemma:
            continue
        if lem not in best or score > best[lem]:
            best[lem] = score
    return sorted(best, key=lambda k: -best[k])


def target_row(ranked: list[str], target: GoldTarget) -> tuple[float, ...]:
    """All per-target statistic columns for one ranked list."""
    return (
        generative_row(ranked, target.candidate_set, target.acceptable, target.conceivable)
        + gap_row(ranked, target.weights, target.gap_denominator, target.gap_rat_denominator)
        + semeval_row(target.semeval, ranked)
        + jabbari_row(target.answer_counts, ranked)
    )


def _as_submission(prepared: PreparedSplit, obj: object) -> tuple[Submission, list[str]]:
    if isinstance(obj, ValidationReport):
        report = obj
    elif isinstance(obj, Submission):
        return obj, []
    elif isinstance(obj, Mapping):
        report = validate_submission(json.dumps(obj).encode("utf-8"), prepared)
    else:
        raise TypeError(f"cannot score a {type(obj).__name__}")
    if not report.ok or report.submission is None:
        raise ValueError(f"invalid submission: {[p.message for p in report.errors[:5]]}")
    return report.submission, [p.message for p in report.warnings]


def _block(stats: TargetStats, counts: np.ndarray, pos: str | None,
           keys: tuple[str, ...] | None = None) -> tuple[dict, dict]:
    metrics = stats.metrics(pos, keys)
    if counts.shape[0] == 0:
        return metrics, {}
    # each metric's interval is its own row's percentiles: those of ``keys`` alone are theirs
    return metrics, percentile_intervals(stats.resampled(counts, pos, keys))


def score_submission(prepared: PreparedSplit, report_or_parsed: object, *,
                     bootstrap: int | None = None, seed: int | None = None) -> ScoreResult:
    """Score a submission (a valid :class:`ValidationReport`, a :class:`Submission` or a
    parsed JSON mapping) on a prepared split.

    ``bootstrap``/``seed`` default to the split's; with ``bootstrap=0`` no interval is given.
    """
    submission, warnings = _as_submission(prepared, report_or_parsed)
    b = prepared.bootstrap if bootstrap is None else bootstrap
    s = prepared.seed if seed is None else seed
    rows = np.zeros((len(prepared.scored_targets), len(COLUMNS)))
    lengths = []
    for i, target in enumerate(prepared.scored_targets):
        ranked = normalise_list(submission.entries.get(target.target_id, []), target)
        if ranked:
            lengths.append(len(ranked))
        row = target_row(ranked, target)
        rows[i, :len(row)] = row  # the columns after SWORDS's (TSAR-2022's) stay 0
    answered = sum(1 for entries in submission.entries.values() if entries)
    given = sum(1 for tid in submission.entries if tid in prepared.target_index)
    return result_from_rows(prepared, rows, warnings, answered=answered, lengths=lengths,
                            bootstrap=b, seed=s, given=given)


def result_from_rows(prepared: PreparedSplit, rows: np.ndarray, warnings: list[str], *,
                     answered: int, lengths: list[int], bootstrap: int, seed: int,
                     swords_rules: bool = True, given: int | None = None,
                     pos_intervals: bool = True, pos_blocks: bool = True,
                     keys: tuple[str, ...] | None = None) -> ScoreResult:
    """Point estimates, intervals and per-POS blocks from per-target rows (any benchmark);
    ``swords_rules`` adds the warnings of the original SWORDS scorer's own rules. ``given``
    (targets the file has an entry for) splits the unanswered targets into empty lists
    (``targets_empty``) and targets left out (``targets_missing``). ``pos_intervals=False``:
    the per-POS blocks hold their metrics and no interval (``leaderboard score`` on the
    field's splits prints none of them: it resamples no POS block); ``pos_blocks=False``: no
    per-POS block at all (its table prints none); ``keys``: those metrics only, their values
    and intervals (what it prints)."""
    b, s = bootstrap, seed
    stats = TargetStats(rows, prepared.scored_pos.copy(), prepared.checksum, s, b, SCORER_VERSION)
    if swords_rules:
        warnings = warnings + rule_warnings(stats)
    metrics, intervals = _block(stats, prepared.resamples(bootstrap=b, seed=s), None, keys)
    by_pos = {}
    present = set(stats.pos) if pos_blocks else set()
    for pos in [p for p in POS_ORDER if p in present] + sorted(present - set(POS_ORDER)):
        if pos_intervals:
            pm, pi = _block(stats, prepared.resamples(pos, bootstrap=b, seed=s), pos, keys)
        else:
            pm, pi = stats.metrics(pos, keys), {}
        by_pos[pos] = {"metrics": pm, "intervals": pi}
    counts = {
        "targets_in_split": len(prepared.targets),
        "targets_scored": len(prepared.scored_targets),
        "targets_answered": answered,
        "mean_list_length": float(np.mean(lengths)) if lengths else 0.0,
    }
    if given is not None:
        counts["targets_empty"] = given - answered
        counts["targets_missing"] = len(prepared.targets) - given
    signature = {"scorer_version": SCORER_VERSION, "split_checksum": prepared.checksum,
                 "seed": s, "bootstrap": b}
    return ScoreResult(metrics, intervals, by_pos, warnings, counts, signature, stats)
