"""Submissions: accept an upload (limits, duplicates, idempotency, quota), list, show, publish.

The uploaded bytes and their sha256 are committed before anything is enqueued; the job reads
them from the database, never from a local file.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from leaderboard.models import (
    Board,
    Result,
    Submission,
    SubmissionStatus,
    System,
    Team,
    utcnow,
)
from leaderboard.scoring.printing import printed_all
from leaderboard.services.catalog.boards import board_family, board_views
from leaderboard.services.intake import systems
from leaderboard.services.intake.errors import SubmissionError
from leaderboard.services.intake.quotas import quota_status
from leaderboard.services.ranking import ladder
from leaderboard.services.ranking.metric_info import board_metrics, default_sort, displayed
from leaderboard.services.text_fields import TextRefused, check_text

__all__ = ["Accepted", "SubmissionError", "create_submission", "set_public", "withdraw"]

_READ_CHUNK = 1 << 16
log = logging.getLogger(__name__)


@dataclass
class Accepted:
    """Outcome of an upload: the submission and whether it was created just now."""

    submission: Submission
    created: bool
    reason: str = "created"  # "created", "duplicate" (same bytes) or "idempotent_replay"


def read_limited(stream: IO[bytes], max_bytes: int) -> bytes:
    """Read at most ``max_bytes`` from ``stream``; raise 413 as soon as there is more.

    Never reads more than ``max_bytes + 1`` bytes, whatever the client claims.
    """
    chunks: list[bytes] = []
    size = 0
    while size <= max_bytes:
        chunk = stream.read(min(_READ_CHUNK, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > max_bytes:
        raise SubmissionError(413, "file_too_large",
                              f"the file is larger than the limit of {max_bytes:,} bytes")
    return b"".join(chunks)


def sha256_hex(raw: bytes) -> str:
    """Hex sha256 of ``raw``."""
    return hashlib.sha256(raw).hexdigest()


def lock_team(session: Session, team_id: int) -> None:
    """Hold the team's row until this transaction ends, so that one team's uploads are
    checked (idempotency key, duplicate file, quota) and inserted one at a time.

    Without it, 16 parallel uploads with a quota of 5 each counted the same 0 and 8 got
    through. PostgreSQL: ``SELECT ... FOR UPDATE`` on the team row. SQLite: a no-op UPDATE
    of the row, which as the transaction's first write takes the database's write lock
    (what ``BEGIN IMMEDIATE`` would) and waits out the busy timeout for it.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.exec(select(Team.id).where(Team.id == team_id).with_for_update()).one()
    else:
        session.execute(update(Team).where(Team.id == team_id).values(id=Team.id))


def _find_duplicate(session: Session, team: Team, board: Board,
                    digest: str) -> Submission | None:
    # A failed submission (our fault) may be uploaded again and scored anew.
    return session.exec(select(Submission).where(
        Submission.team_id == team.id, Submission.board_id == board.id,
        Submission.file_sha256 == digest, Submission.status != SubmissionStatus.FAILED,
    ).order_by(Submission.id)).first()


def _by_idempotency_key(session: Session, team: Team, key: str) -> Submission | None:
    return session.exec(select(Submission).where(
        Submission.team_id == team.id, Submission.idempotency_key == key)).first()


def _replay(session: Session, existing: Submission, digest: str, board: Board) -> Accepted:
    """The earlier submission of this key, when it was the same bytes to the same board.

    A key is unique per team (one row per key), so the same key for another board is a 409:
    replaying would answer with the first board's submission labelled as the second's.
    """
    if existing.board_id != board.id:
        used_on = session.get(Board, existing.board_id)
        raise SubmissionError(409, "idempotency_key_reused",
                              "this Idempotency-Key was already used for a submission to "
                              f"leaderboard {used_on.slug if used_on else existing.board_id}; "
                              f"send a new key for {board.slug}")
    if existing.file_sha256 != digest:
        raise SubmissionError(409, "idempotency_key_reused",
                              "this Idempotency-Key was already used for a different file")
    return Accepted(existing, False, "idempotent_replay")


def create_submission(*, session: Session, team: Team, board: Board, raw: bytes,
                      system_name: str, settings: dict[str, Any],
                      metadata: dict[str, Any] | None = None, filename: str = "",
                      is_public: bool = False, submitted_by_id: int | None = None,
                      idempotency_key: str | None = None,
                      now: datetime | None = None) -> Accepted:
    """Store an upload as a queued submission and commit; the caller then enqueues it.

    Same ``idempotency_key`` with the same bytes to the same board returns the earlier
    submission (409 with other bytes or another board); identical bytes already uploaded by
    the team to this board return that submission. The upload joins the team's system of
    that name (made when new); the non-empty ``metadata`` fields (:data:`systems.FIELDS`)
    are set on it as edits. Raises :class:`SubmissionError` for a missing name, bad
    metadata, oversize file or an exhausted quota of the board (429 with ``resets_at``).
    """
    now = now or utcnow()
    system_name = _checked_name(system_name, filename)
    # An upload may make its system anonymous, never name it: a reveal is its own act.
    changes = {k: v for k, v in systems.parse_changes(metadata or {}).items()
               if v not in ("", None) and not (k == "anonymous" and v is False)}
    if len(raw) > settings["MAX_UPLOAD_BYTES"]:
        raise SubmissionError(413, "file_too_large", f"the file is larger than the limit of "
                              f"{settings['MAX_UPLOAD_BYTES']:,} bytes")
    digest = sha256_hex(raw)
    lock_team(session, team.id)
    if idempotency_key:
        existing = _by_idempotency_key(session, team, idempotency_key)
        if existing is not None:
            return _replay(session, existing, digest, board)
    duplicate = _find_duplicate(session, team, board, digest)
    if duplicate is not None:
        return Accepted(duplicate, False, "duplicate")
    quota = quota_status(session=session, team=team, board=board, settings=settings, now=now)
    refusal = quota.refusal()
    if refusal:
        raise SubmissionError(429, "quota_exceeded", refusal,
                              resets_at=quota.refusal_resets_at())
    system = systems.system_for(session, team.id, system_name)  # type: ignore[arg-type]
    systems.apply_changes(session, system, changes, user_id=submitted_by_id, via="upload")
    submission = Submission(
        team_id=team.id, split_id=board.split_id, board_id=board.id,
        submitted_by_id=submitted_by_id, system_id=system.id, system_name=system.name,
        filename=filename[:255],
        file_bytes=raw, file_sha256=digest, file_size=len(raw), is_public=is_public,
        idempotency_key=idempotency_key or None, status=SubmissionStatus.QUEUED,
        created_at=now, queued_at=now)
    session.add(submission)
    try:
        session.commit()
    except IntegrityError:
        # A concurrent request with the same Idempotency-Key won the race.
        session.rollback()
        existing = _by_idempotency_key(session, team, idempotency_key or "")
        if existing is None:
            raise
        return _replay(session, existing, digest, board)
    return Accepted(submission, True)


def _checked_name(system_name: str, filename: str) -> str:
    check_fields(system_name=system_name, filename=filename)
    name = system_name.strip()
    if not name:
        raise SubmissionError(400, "missing_name", "a system name is required")
    if len(name) > 120:
        raise SubmissionError(400, "field_too_long", "the name is longer than 120 characters")
    return name


def check_fields(*, system_name: str = "", filename: str = "") -> None:
    """Refuse characters no field may hold (400 ``bad_characters`` naming the field)."""
    try:
        check_text("system name", system_name, name=True)
        check_text("file name", filename)
    except TextRefused as exc:
        raise SubmissionError(400, "bad_characters", exc.message) from exc


def team_submission(*, session: Session, team_id: int, submission_id: int) -> Submission:
    """The team's own submission; the same 404 when absent and when it belongs to another
    team (a 403 there let any token holder count and probe every team's submission ids)."""
    submission = session.get(Submission, submission_id)
    if submission is None or submission.team_id != team_id:
        raise SubmissionError(404, "not_found", f"no submission {submission_id}")
    return submission


def list_team_submissions(*, session: Session, team_id: int, limit: int = 200,
                          status: str | None = None) -> list[Submission]:
    """The team's submissions, newest first."""
    query = select(Submission).where(Submission.team_id == team_id)
    if status:
        query = query.where(Submission.status == status)
    return list(session.exec(query.order_by(Submission.id.desc()).limit(limit)).all())


def current_result(session: Session, submission: Submission) -> Result | None:
    """The current result of a submission, if scored and not held by the Ladder."""
    return ladder.visible_result(session, submission)


def set_public(*, session: Session, submission: Submission, public: bool,
               request_refresh: Callable[[int], object] | None = None) -> None:
    """Publish or unpublish; commits, then asks for the board's ranking to be recomputed.

    ``request_refresh(board_id)`` queues that work for a worker (``queue.
    request_snapshot_refresh``), as a new result does: ranking a large board takes longer
    than any request should wait. Without it, or when queueing fails (Redis
    down), the snapshot is recomputed here, so that an unpublished system never stays shown.
    A withdrawn submission stays private (409).
    """
    if public and submission.withdrawn_at is not None:
        raise SubmissionError(409, "withdrawn", "a withdrawn submission cannot be published")
    submission.is_public = public
    session.add(submission)
    session.commit()
    board_id = submission.board_id
    if request_refresh is not None:
        try:
            request_refresh(board_id)
            return
        except Exception:
            log.warning("could not queue a ranking refresh of leaderboard %s; refreshing "
                        "here", board_id, exc_info=True)
    from leaderboard.services.ranking.snapshots import refresh_snapshot

    refresh_snapshot(session=session, board_id=board_id)
    session.commit()


def withdraw(*, session: Session, submission: Submission,
             request_refresh: Callable[[int], object] | None = None) -> None:
    """Take a submission off every public surface for good, as unpublishing does, and keep
    its row for the hosts (the admin pages list it)."""
    submission.withdrawn_at = submission.withdrawn_at or utcnow()
    set_public(session=session, submission=submission, public=False,
               request_refresh=request_refresh)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def track_metrics(views: str, values: dict[str, Any]) -> dict[str, Any]:
    """The metrics a board of view set ``views`` shows (all but TSAR-2022's on a SWORDS
    generative board; a ranking-track file scores every candidate, so its F^10 and SemEval
    numbers mean nothing there; an LS07/CoInCo board has its own metrics)."""
    return {k: values[k] for k in board_metrics(views, values)}


def _track_result(track: str, result: Result) -> tuple[dict, dict, dict]:
    by_pos = {pos: {part: track_metrics(track, block.get(part, {}))
                    for part in ("metrics", "intervals")}
              for pos, block in (result.by_pos or {}).items()}
    return (track_metrics(track, result.metrics), track_metrics(track, result.intervals or {}),
            by_pos)


def submission_dict(submission: Submission, result: Result | None, *, board: Board,
                    brief: bool = False, system: System | None = None) -> dict[str, Any]:
    """JSON form for the submission's own team (never anything derived from gold per target
    here: the dev phase's diagnostics have their own route)."""
    data: dict[str, Any] = {
        "id": submission.id, "leaderboard": board.slug, "track": board.track,
        "status": submission.status, "progress": submission.progress,
        "system_name": submission.system_name, "is_public": submission.is_public,
        "created_at": _iso(submission.created_at), "finished_at": _iso(submission.finished_at),
        "file_sha256": submission.file_sha256,
        "release": ladder.release_dict(submission, board),
    }
    if brief:
        if result is not None:
            data["metrics"] = printed_all(track_metrics(board_views(board), result.metrics),
                                          board_family(board))
        return data
    data.update({
        "system": systems.system_json(system) if system is not None else None,
        "withdrawn": submission.withdrawn_at is not None, "filename": submission.filename,
        "file_size": submission.file_size, "hidden": submission.hidden,
        "queued_at": _iso(submission.queued_at), "started_at": _iso(submission.started_at),
        "attempts": submission.attempts, "errors": submission.errors or [],
        "warnings": submission.warnings or [], "failure_reason": submission.failure_reason,
        "result": None,
    })
    if result is not None:
        metrics, intervals, by_pos = _track_result(board_views(board), result)
        views = board_views(board)
        data["result"] = {
            "headline": default_sort(views),
            "metric_order": [k for k in displayed(views) if k in metrics]
            + [k for k in metrics if k not in displayed(views)],
            # as on the pages: unrounded doubles would carry about 45 bits each about the
            # hidden labels instead of about 13 (docs/hosts/security.md)
            **printed_all({"metrics": metrics, "intervals": intervals, "by_pos": by_pos},
                          board_family(board)), "counts": result.counts,
            "signature": {"scorer_version": result.scorer_version,
                          "split_checksum": result.split_checksum,
                          "seed": result.bootstrap_seed, "bootstrap": result.bootstrap_samples},
            "scored_at": _iso(result.created_at)}
    return data
