"""Per-target diagnostics of a team's dev-phase submission (public labels only).

A worker validates the stored file again against the board's prepared split to get its
entries, in a child under hard limits, then the family's ``diagnose`` runs
(:func:`compute_outcome`); the rows reach web processes through Redis
(:mod:`.diagnostics_store`) and stay in a small in-process LRU keyed by submission, file
digest, scorer version and split checksum, so the table's sort and filter links cost
nothing.

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

from leaderboard.models import Board, Split, Submission, SubmissionStatus, Track
from leaderboard.scoring import SCORER_VERSION
from leaderboard.scoring.families import SWORDS, family_for
from leaderboard.scoring.swords.diagnostics import SORT_KEYS, TargetDiagnostics, worst_targets
from leaderboard.scoring.swords.engine import POS_ORDER
from leaderboard.services.intake.isolation import Isolate, LimitExceeded, in_process
from leaderboard.services.intake.validation import validate_for_track

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


def diagnostics_allowed(board: Board | None, benchmark: Split | None) -> bool:
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


def clear_cache() -> None:
    """Forget the rows this process keeps (a fresh database reuses submission ids)."""
    with _LOCK:
        _CACHE.clear()


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


def rows_key(submission: Submission, benchmark: Split) -> tuple:
    """What a submission's diagnostics depend on: file, scorer and split."""
    return (submission.id, submission.file_sha256, SCORER_VERSION, benchmark.checksum)


def target_rows(session: Session, submission: Submission,
                settings: dict[str, Any]) -> tuple[Board, list[TargetDiagnostics]]:
    """The submission's diagnostics in split order, or :class:`DiagnosticsUnavailable`.

    Web side: the rows come from a worker (:mod:`.diagnostics_store`), never from parsing
    the file here."""
    from leaderboard.services.catalog.benchmarks import get_split
    from leaderboard.services.intake.diagnostics_store import NotReady, outcome_for

    board = session.get(Board, submission.board_id)
    benchmark = get_split(session, submission.split_id)
    _check_allowed(board, benchmark, submission)
    key = rows_key(submission, benchmark)
    rows = _cached(key)
    if rows is None:
        try:
            outcome = outcome_for(queue_name=settings["QUEUE_NAME"], key=key,
                                  submission_id=submission.id, settings=settings)
        except NotReady as exc:
            raise DiagnosticsUnavailable(
                503, "preparing", "the diagnostics are being prepared; retry in a few "
                "seconds") from exc
        if outcome[0] == "error":
            raise DiagnosticsUnavailable(*outcome[1:])
        rows = outcome[1]
        _remember(key, rows)
    return board, rows


def _check_allowed(board: Board | None, benchmark: Split | None,
                   submission: Submission) -> None:
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


def compute_outcome(session: Session, submission_id: int, settings: dict[str, Any],
                    isolate: Isolate = in_process) -> tuple[tuple, tuple]:
    """Worker side: (key, outcome) for a submission, the file parsed through ``isolate``.

    The outcome is ``("rows", rows)`` or ``("error", status, code, message)``. The file is
    validated again against the board's prepared split (coverage 0, as for a re-score: it
    is judged by the rules it passed); SWORDS's ranking-track candidate check adds only
    errors, never entries, so it is skipped (generative parse); another family parses by
    the board's track."""
    from leaderboard.services.catalog.benchmarks import get_prepared, get_split

    submission = session.get(Submission, submission_id)
    board = session.get(Board, submission.board_id)
    benchmark = get_split(session, submission.split_id)
    key = rows_key(submission, benchmark)
    try:
        _check_allowed(board, benchmark, submission)
    except DiagnosticsUnavailable as exc:
        return key, ("error", exc.status, exc.code, exc.message)
    prepared = get_prepared(benchmark)
    family = family_for(benchmark.name)
    track, board_track = (Track.GENERATIVE if family is SWORDS else board.track), board.track

    def diagnose(raw: bytes) -> tuple:
        report = validate_for_track(raw, prepared, None, settings, 0.0, family=family,
                                    track=track)
        if report.submission is None:
            return ("error", 409, "not_valid_now", "the stored file no longer passes "
                    f"validation ({'; '.join(p.message for p in report.errors[:3])})")
        return ("rows", family.diagnose(prepared, report.submission, board_track))

    try:
        return key, isolate(diagnose, submission.file_bytes)
    except LimitExceeded as exc:
        return key, ("error", 422, f"{exc.kind}_limit", f"computing them {exc.message}")


def submission_diagnostics(session: Session, submission: Submission, settings: dict[str, Any],
                           query: TargetQuery) -> SubmissionDiagnostics:
    """The diagnostics of a team's own submission, ordered and filtered by ``query``."""
    board, rows = target_rows(session, submission, settings)
    matching = worst_targets(rows, query.sort, pos=query.pos, best_first=query.dir == "desc")
    shown = matching if query.limit is None else matching[:query.limit]
    from leaderboard.services.catalog.benchmarks import get_split

    pos_values = sorted({d.pos for d in rows}, key=_pos_order)
    family = family_for(get_split(session, board.split_id).name)
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
