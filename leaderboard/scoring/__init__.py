"""SWORDS scoring engine: pure Python and numpy, no web, database or queue imports.

Typical use::

    prepared = prepare_split(load_split(path), name="test")      # needs WordNet, once
    report = validate_submission(raw_bytes, prepared)
    if report.ok:
        result = score_submission(prepared, report)

See ``docs/scoring-spec.md`` (shared) for the metric contract.
"""

from leaderboard.scoring.bootstrap import compare, rank_intervals, resample_counts
from leaderboard.scoring.engine import ScoreResult, score_submission
from leaderboard.scoring.gold import GoldTarget, PreparedSplit, load_split, prepare_split
from leaderboard.scoring.lemmatize import WordNetMissing, ensure_wordnet, lemma
from leaderboard.scoring.stats import METRIC_KEYS, TargetStats
from leaderboard.scoring.validate import (
    Problem,
    Submission,
    ValidationReport,
    validate_submission,
)
from leaderboard.scoring.version import SCORER_VERSION

__all__ = [
    "METRIC_KEYS",
    "SCORER_VERSION",
    "GoldTarget",
    "PreparedSplit",
    "Problem",
    "ScoreResult",
    "Submission",
    "TargetStats",
    "ValidationReport",
    "WordNetMissing",
    "compare",
    "ensure_wordnet",
    "lemma",
    "load_split",
    "prepare_split",
    "rank_intervals",
    "resample_counts",
    "score_submission",
    "validate_submission",
]
