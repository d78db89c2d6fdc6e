"""Validating an upload with the site's limits, by its split's family and its board's track:
the one function scoring jobs, dry runs and diagnostics run (always in a worker's child)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import Session

from leaderboard.models import Board, Split, Track
from leaderboard.scoring import PreparedSplit, ValidationReport
from leaderboard.scoring.families import SWORDS, Family, family_for
from leaderboard.services.catalog.benchmarks import get_candidates, get_prepared, get_split


def dry_run_validator(*, session: Session, board: Board,
                      settings: dict[str, Any]) -> Callable[[bytes], dict]:
    """The dry run of the board: a function from uploaded bytes to the validation report
    (no gold-derived data). Reading the split happens here; the returned function only
    parses, and a worker runs it isolated. Validation reads only the split's public target
    ids (and, on the ranking track, its public candidate lists); nothing is stored."""
    benchmark = get_split(session, board.split_id)
    candidates = get_candidates(benchmark) if board.track == Track.RANKING else None
    prepared, coverage = get_prepared(benchmark), min_coverage(benchmark, settings)
    family, track = family_for(benchmark.name), board.track

    def validate(raw: bytes) -> dict:
        return validate_for_track(raw, prepared, candidates, settings, coverage,
                                  family=family, track=track).to_dict()

    return validate


def validate_for_track(raw: bytes, prepared: PreparedSplit,
                       candidates: dict[str, list[str]] | None, settings: dict[str, Any],
                       coverage: float, *, family: Family = SWORDS,
                       track: str | None = None) -> ValidationReport:
    """Validate with the site's limits, by the split's family; on a SWORDS ranking board
    (``candidates`` given) every answered target must score each of its candidates."""
    options = {"max_bytes": settings["MAX_DECOMPRESSED_BYTES"],
               "max_substitutes": settings["MAX_SUBSTITUTES_PER_TARGET"],
               "max_structure": settings["MAX_JSON_VALUES"],
               "max_token": settings["MAX_JSON_TOKEN_BYTES"],
               "max_substitutes_bytes": settings["MAX_SUBSTITUTES_BYTES"],
               "min_answered_fraction": coverage}
    track = track or (Track.RANKING if candidates is not None else Track.GENERATIVE)
    return family.validate(raw, prepared, track=track, candidates=candidates, **options)


def min_coverage(benchmark: Split, settings: dict[str, Any]) -> float:
    """The share of targets a submission must answer: MIN_ANSWERED_FRACTION on a split whose
    labels are hidden, none on one whose labels are public (nothing to probe there)."""
    return float(settings["MIN_ANSWERED_FRACTION"]) if benchmark.hidden else 0.0
