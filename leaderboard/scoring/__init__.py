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

TYPE_CHECKING = False  # not typing's: a one-off `leaderboard score` should not pay for importing it
if TYPE_CHECKING:
    from leaderboard.scoring.bootstrap import compare, rank_intervals, resample_counts
    from leaderboard.scoring.swords.engine import ScoreResult, score_submission
    from leaderboard.scoring.swords.gold import GoldTarget, PreparedSplit, load_split, prepare_split
    from leaderboard.scoring.swords.lemmatize import WordNetMissing, ensure_wordnet, lemma
    from leaderboard.scoring.swords.stats import METRIC_KEYS, TargetStats
    from leaderboard.scoring.swords.validate import (
        Problem,
        Submission,
        ValidationReport,
        validate_submission,
    )
    from leaderboard.scoring.version import SCORER_VERSION

#: Each exported name and the module it lives in.
_HOMES = {
    "compare": "bootstrap", "rank_intervals": "bootstrap", "resample_counts": "bootstrap",
    "ScoreResult": "swords.engine", "score_submission": "swords.engine",
    "GoldTarget": "swords.gold", "PreparedSplit": "swords.gold", "load_split": "swords.gold",
    "prepare_split": "swords.gold",
    "WordNetMissing": "swords.lemmatize", "ensure_wordnet": "swords.lemmatize",
    "lemma": "swords.lemmatize",
    "METRIC_KEYS": "swords.stats", "TargetStats": "swords.stats",
    "Problem": "swords.validate", "Submission": "swords.validate",
    "ValidationReport": "swords.validate",
    "validate_submission": "swords.validate",
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
