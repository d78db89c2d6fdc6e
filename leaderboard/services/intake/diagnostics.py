"""Per-target diagnostics of a team's dev-phase submission (public labels only).

The stored file is validated again against the board's prepared split to get its entries,
then :func:`leaderboard.scoring.diagnostics.diagnose` runs. The result is kept in a small
in-process LRU keyed by submission, file digest, scorer version and split checksum, so the
table's sort and filter links do not re-lemmatize the file on every click.

Everything here reveals gold labels: :func:`diagnostics_allowed` is the one gate, and it
opens only on a split imported with public labels: a dev-phase board, or any board of a
benchmark whose labels are published (LS07, CoInCo). Callers answer 404
otherwise, exactly as for a missing submission.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from leaderboard.models import Benchmark, Board, Submission, SubmissionStatus, Track
from leaderboard.scoring import SCORER_VERSION
from leaderboard.scoring.diagnostics import SORT_KEYS, TargetDiagnostics, worst_targets
from leaderboard.scoring.engine import POS_ORDER
from leaderboard.scoring.families import SWORDS, family_for

DIRECTIONS = ("asc", "desc")  # asc: worst first (the default); desc: best first
CACHE_SIZE = 16


class DiagnosticsUnavailable(Exception):
    """No diagnostics for this submission: ``status`` and ``code`` say why (for the API)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class TargetQuery:
    """The table's order and filter: ``?sort=f|gap|gap_rat&dir=asc|desc&pos=NOUN``."""

    sort: str = "f"
    dir: str = "asc"
    pos: str | None = None
    limit: int | None = None


@dataclass
class SubmissionDiagnostics:
    """Every scored target's diagnostics (split order) and the rows the query keeps."""

    submission_id: int
    board: Board
    rows: list[TargetDiagnostics]
    shown: list[TargetDiagnostics]
    matching: int
    query: TargetQuery
    pos_values: list[str]
    #: LS07/CoInCo: gold answers with annotator counts, no conceivable band, no GAP ratio.
    published: bool = False


def diagnostics_allowed(board: Board | None, benchmark: Benchmark | None) -> bool:
    """True only on a split whose labels were imported as public, on a dev-phase board or
    any board of a benchmark whose labels are published (LS07, CoInCo)."""
    if board is None or benchmark is None or benchmark.hidden:
        return False
    return board.labels_public or family_for(benchmark.name).labels_public


def parse_query(args: Any) -> TargetQuery:
    """A :class:`TargetQuery` from request arguments; ValueError names a bad value."""
    sort = (args.get("sort") or "f").strip()
    if sort not in SORT_KEYS:
        raise ValueError(f"sort must be one of {', '.join(SORT_KEYS)}, not {sort!r}")
    direction = (args.get("dir") or "asc").strip()
    if direction not in DIRECTIONS:
        raise ValueError(f"dir must be asc (worst first) or desc (best first), not {direction!r}")
    pos = (args.get("pos") or "").strip().upper() or None
    if pos == "ALL":
        pos = None
    if pos is not None and pos not in POS_ORDER:
        raise ValueError(f"pos must be ALL or one of {', '.join(POS_ORDER)}, not {pos!r}")
    limit_text = (args.get("limit") or "").strip()
    limit = None
    if limit_text and limit_text != "all":
        if not limit_text.isdigit() or int(limit_text) < 1:
            raise ValueError(f"limit must be a positive whole number or 'all', not {limit_text!r}")
        limit = int(limit_text)
    return TargetQuery(sort, direction, pos, limit)


_CACHE: OrderedDict[tuple, list[TargetDiagnostics]] = OrderedDict()
_LOCK = threading.Lock()


def _cached(key: tuple) -> list[TargetDiagnostics] | None:
    with _LOCK:
        rows = _CACHE.get(key)
        if rows is not None:
            _CACHE.move_to_end(key)
        return rows


def _remember(key: tuple, rows: list[TargetDiagnostics]) -> None:
    with _LOCK:
        _CACHE[key] = rows
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)


def target_rows(session: Session, submission: Submission,
                settings: dict[str, Any]) -> tuple[Board, list[TargetDiagnostics]]:
    """The submission's diagnostics in split order, or :class:`DiagnosticsUnavailable`."""
    from leaderboard.services.catalog.benchmarks import get_prepared, get_split
    from leaderboard.services.intake.results import validate_for_track

    board = session.get(Board, submission.board_id)
    benchmark = get_split(session, submission.benchmark_id)
    if not diagnostics_allowed(board, benchmark):
        raise DiagnosticsUnavailable(
            404, "not_found", "per-target diagnostics exist only for submissions to a "
            "dev-phase leaderboard, whose labels are public")
    if submission.status != SubmissionStatus.SCORED:
        raise DiagnosticsUnavailable(
            409, "not_scored", f"the submission is {submission.status}; diagnostics exist "
            "once it is scored")
    if submission.held:
        raise DiagnosticsUnavailable(
            409, "held", "the submission is held by the leaderboard's ladder release policy: "
            "nothing derived from it is shown")
    prepared = get_prepared(benchmark)
    key = (submission.id, submission.file_sha256, SCORER_VERSION, prepared.checksum)
    rows = _cached(key)
    if rows is None:
        # Coverage 0 as for a re-score: the file is judged by the rules it passed. SWORDS's
        # ranking-track candidate check adds only errors, never entries, so it is skipped
        # (generative parse); another family parses by the board's track.
        family = family_for(benchmark.name)
        track = Track.GENERATIVE if family is SWORDS else board.track
        report = validate_for_track(submission.file_bytes, prepared, None, settings, 0.0,
                                    family=family, track=track)
        if report.submission is None:
            raise DiagnosticsUnavailable(
                409, "not_valid_now", "the stored file no longer passes validation "
                f"({'; '.join(p.message for p in report.errors[:3])})")
        rows = family.diagnose(prepared, report.submission, board.track)
        _remember(key, rows)
    return board, rows


def submission_diagnostics(session: Session, submission: Submission, settings: dict[str, Any],
                           query: TargetQuery) -> SubmissionDiagnostics:
    """The diagnostics of a team's own submission, ordered and filtered by ``query``."""
    board, rows = target_rows(session, submission, settings)
    matching = worst_targets(rows, query.sort, pos=query.pos, best_first=query.dir == "desc")
    shown = matching if query.limit is None else matching[:query.limit]
    from leaderboard.services.catalog.benchmarks import get_split

    pos_values = sorted({d.pos for d in rows}, key=_pos_order)
    family = family_for(get_split(session, board.benchmark_id).name)
    return SubmissionDiagnostics(submission.id, board, rows, shown, len(matching), query,
                                 pos_values, published=family.labels_public)


def _pos_order(pos: str) -> tuple[int, str]:
    return (POS_ORDER.index(pos) if pos in POS_ORDER else len(POS_ORDER), pos)


def _percent(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def target_dict(d: TargetDiagnostics) -> dict[str, Any]:
    """JSON form of one target: percentages to 2 decimals, gold scores to 4."""
    body = d.to_dict()
    for key in ("precision", "recall", "f", "gap", "gap_rat"):
        body[key] = _percent(body[key])
    for item in body["top"] + body["missed"]:
        if item["score"] is not None:
            item["score"] = round(item["score"], 4)
    return body


def diagnostics_dict(result: SubmissionDiagnostics) -> dict[str, Any]:
    """The body of ``GET /api/v1/submissions/<id>/targets``."""
    q = result.query
    return {"submission_id": result.submission_id, "leaderboard": result.board.slug,
            "track": result.board.track, "scorer_version": SCORER_VERSION,
            "sort": q.sort, "dir": q.dir, "pos": q.pos, "limit": q.limit,
            "targets_scored": len(result.rows), "targets_matching": result.matching,
            "pos_values": result.pos_values,
            "targets": [target_dict(d) for d in result.shown]}
