"""SWORDS scoring engine: pure Python and numpy, no web, database or queue imports.

Typical use::

    prepared = prepare_split(load_split(path), name="test")      # needs WordNet, once
    report = validate_submission(raw_bytes, prepared)
    if report.ok:
        result = score_submission(prepared, report)

See ``docs/scoring-spec.md`` (shared) for the metric contract.

The names below are imported from their modules on first use (PEP 562), so that importing
one submodule (``leaderboard.scoring.lexsub.split``, say) does not import numpy and the whole
engine with it: a one-off ``leaderboard score --bootstrap 0`` on LS07/CoInCo needs neither.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # not typing's: its import costs `leaderboard score` 8 ms
if TYPE_CHECKING:
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

#: Each exported name and the module it lives in.
_HOMES = {
    "compare": "bootstrap", "rank_intervals": "bootstrap", "resample_counts": "bootstrap",
    "ScoreResult": "engine", "score_submission": "engine",
    "GoldTarget": "gold", "PreparedSplit": "gold", "load_split": "gold",
    "prepare_split": "gold",
    "WordNetMissing": "lemmatize", "ensure_wordnet": "lemmatize", "lemma": "lemmatize",
    "METRIC_KEYS": "stats", "TargetStats": "stats",
    "Problem": "validate", "Submission": "validate", "ValidationReport": "validate",
    "validate_submission": "validate",
    "SCORER_VERSION": "version",
}

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


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
