"""Validate and score an answer file on an LS07 or CoInCo split.

Rows are the universal per-target statistics (:data:`leaderboard.scoring.swords.stats.COLUMNS`), one
per gold instance, so intervals, per-POS blocks, the significance rule and the ranking work
as on SWORDS. The ranking track fills the GAP columns (a skipped instance has ``gap_valid``
0); the generative track fills score.pl's best/oot columns and Jabbari et al.'s.
"""

from __future__ import annotations

from array import array

import numpy as np

from leaderboard.scoring.lexsub import formats
from leaderboard.scoring.lexsub.columns import _NAMES, generative_columns
from leaderboard.scoring.lexsub.data import LexsubSplit
from leaderboard.scoring.lexsub.gap import instance_gaps
from leaderboard.scoring.lexsub.repeats import _NON_BLANK, scorepl_gold
from leaderboard.scoring.lexsub.scorepl import score_columns
from leaderboard.scoring.lexsub.validation import GENERATIVE, RANKING, validate
from leaderboard.scoring.printing import EXACT, printed
from leaderboard.scoring.swords.engine import ScoreResult, result_from_rows
from leaderboard.scoring.swords.jabbari import COLUMNS as JABBARI_COLUMNS
from leaderboard.scoring.swords.semeval import fix_guess, perl_split
from leaderboard.scoring.swords.stats import COLUMN_INDEX, COLUMNS, metrics_from_sums
from leaderboard.scoring.swords.validate import ValidationReport

__all__ = ["GENERATIVE", "RANKING", "score", "validate"]


def _ranking_rows(split: LexsubSplit, answers: formats.Answers, rows: np.ndarray) -> None:
    rows[:, COLUMN_INDEX["gap"]] = instance_gaps(split.target_ids, split.gap_gold,
                                                 answers.ranked)
    rows[:, COLUMN_INDEX["gap_valid"]] = [d > 0 for _, d in split.gap_gold]


def _generative_rows(split: LexsubSplit, answers: formats.Answers, rows: np.ndarray) -> None:
    cols, jabbari = generative_columns(split, answers)
    n = len(split.targets)
    # each column written at once (numpy pays per element write), read in place
    for name, values in cols.items():
        rows[:, COLUMN_INDEX[name]] += np.frombuffer(values)
    if n:  # one write of every row, not one per instance, for the same reason
        start, width = COLUMN_INDEX["jb_item"], len(JABBARI_COLUMNS)
        rows[:, start:start + width] = np.frombuffer(jabbari).reshape(n, width)


def score(split: LexsubSplit, report: ValidationReport, *, track: str,
          bootstrap: int | None = None, seed: int | None = None,
          pos_intervals: bool = True, pos_blocks: bool = True,
          keys: tuple[str, ...] | None = None) -> ScoreResult:
    """Score a valid report of :func:`validate` on ``split``; ``pos_intervals=False``: no
    interval in the per-POS blocks, ``pos_blocks=False``: no per-POS block, ``keys``: those
    metrics only, values and intervals
    (:func:`leaderboard.scoring.swords.engine.result_from_rows`)."""
    if not report.ok or report.submission is None:
        raise ValueError(f"invalid submission: {[p.message for p in report.errors[:5]]}")
    answers = report.submission
    b = split.bootstrap if bootstrap is None else bootstrap
    s = split.seed if seed is None else seed
    rows = np.zeros((len(split.targets), len(COLUMNS)))
    if track == RANKING:
        _ranking_rows(split, answers, rows)
    else:
        _generative_rows(split, answers, rows)
    given = answers.entries
    if answers.kind == formats.LINES:
        given = split.by_instance(given)
    lengths = split.answer_lengths(given)
    warnings = [p.message for p in report.warnings]
    result = result_from_rows(split, rows, warnings, answered=len(lengths), lengths=lengths,
                              bootstrap=b, seed=s, swords_rules=False,
                              pos_intervals=pos_intervals, pos_blocks=pos_blocks,
                              keys=keys)
    # instances that enter the mean: GAP's non-skipped ones, score.pl's counted items
    scored = rows[:, COLUMN_INDEX["gap_valid" if track == RANKING else "se_item"]]
    result.counts["targets_scored"] = int(scored.sum())
    # kept with the result: the ranking sets such a file apart where repeats inflate
    if "targets_no_candidates" in report.counts:
        result.counts["targets_no_candidates"] = int(report.counts["targets_no_candidates"])
    if "items_with_duplicates" in report.counts:
        result.counts["items_with_duplicates"] = int(report.counts["items_with_duplicates"])
        if result.counts["items_with_duplicates"]:
            result.counts["without_repeats"] = without_repeats(split, answers, rows, track,
                                                               result.metrics)
    return result


#: The metrics repeated answers inflate, by track (:mod:`.repeats`).
INFLATED = {RANKING: ("gap",), GENERATIVE: ("oot_p", "oot_r")}


def without_repeats(split: LexsubSplit, answers: formats.Answers, rows: np.ndarray,
                    track: str, metrics: dict[str, float]) -> dict[str, float]:
    """The inflated metrics of a file that repeats answers, scored again with each repeat
    dropped (its first occurrence kept), where they print otherwise than the script's figure
    (:mod:`leaderboard.scoring.printing`): one normalised repeat in 10,000 lines changes no
    printed digit, and such a file is ranked like any other."""
    free = rows.copy()
    if track == RANKING:
        ranked = {key: _first_each(entries, lambda e: e[0])
                  for key, entries in answers.ranked.items()}
        free[:, COLUMN_INDEX["gap"]] = instance_gaps(split.target_ids, split.gap_gold, ranked)
    else:
        names = _NAMES["oot"]
        columns = tuple(array("d", bytes(8 * len(split.targets))) for _ in names)
        score_columns(scorepl_gold(split), list(map(_repeat_free, answers.matches("oot"))),
                      "oot", split.item_rows, columns)
        for name, values in zip(names, columns, strict=True):
            free[:, COLUMN_INDEX[name]] = np.frombuffer(values)
    keys = INFLATED[track]
    found = metrics_from_sums(free.sum(axis=0), keys)
    return {k: round(float(found[k]), EXACT) for k in keys
            if printed(found[k], split.family) != printed(metrics[k], split.family)}


def _repeat_free(m):
    """An .oot line's match with each answer score.pl reads as an earlier one dropped (a
    blank answer part stays: score.pl then reuses the previous line's answers)."""
    if not m or not _NON_BLANK.search(m.answers):
        return m
    return m._replace(answers=";".join(_first_each(perl_split(m.answers), fix_guess)))


def _first_each(items: list, key) -> list:
    """``items`` without those whose ``key`` an earlier one had."""
    seen: set = set()
    return [x for x in items if not (key(x) in seen or seen.add(key(x)))]

