"""What a scoring job does: claim a queued submission, validate, score, store one result.

Safe to run twice: only a ``queued`` row can be claimed (atomically, bumping ``attempts``),
and the outcome is written only while the row is still this run's. Database sessions are
short; none is held while validating or scoring.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from leaderboard.models import (
    Board,
    ReleaseState,
    Result,
    Submission,
    SubmissionStatus,
    Track,
    utcnow,
)
from leaderboard.scoring import (
    SCORER_VERSION,
    TargetStats,
)
from leaderboard.scoring.families import family_for
from leaderboard.services.catalog.benchmarks import get_candidates, get_prepared, get_split
from leaderboard.services.catalog.boards import view_set
from leaderboard.services.intake.isolation import Isolate, LimitExceeded, in_process
from leaderboard.services.intake.validation import min_coverage, validate_for_track
from leaderboard.services.ranking import ladder
from leaderboard.services.ranking.metric_info import POS_VALUES, headlines
from leaderboard.services.ranking.resamples import store_for_result

log = logging.getLogger(__name__)


def _engine_of(engine_or_session: Engine | Session) -> Engine:
    if isinstance(engine_or_session, Session):
        return engine_or_session.get_bind()
    return engine_or_session


def _claim(engine: Engine, submission_id: int) -> int | None:
    """Move a queued row to running; return this run's number, or None if not ours to run."""
    now = utcnow()
    with Session(engine) as session:
        claimed = session.execute(
            update(Submission)
            .where(Submission.id == submission_id, Submission.status == SubmissionStatus.QUEUED)
            .values(status=SubmissionStatus.RUNNING, attempts=Submission.attempts + 1,
                    started_at=now, heartbeat_at=now, progress="validating",
                    finished_at=None)).rowcount
        session.commit()
        if claimed != 1:
            return None
        return session.get(Submission, submission_id).attempts


def _touch(engine: Engine, submission_id: int, run: int, **values: Any) -> None:
    with Session(engine) as session:
        session.execute(update(Submission).where(
            Submission.id == submission_id, Submission.status == SubmissionStatus.RUNNING,
            Submission.attempts == run).values(heartbeat_at=utcnow(), **values))
        session.commit()


class _Heartbeat:
    """Writes ``heartbeat_at`` every ``interval`` seconds while a job runs (own thread)."""

    def __init__(self, engine: Engine, submission_id: int, run: int, interval: float,
                 on_beat: Callable[[], Any] | None = None):
        self._args = (engine, submission_id, run)
        self._on_beat = on_beat
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="heartbeat")

    def _loop(self) -> None:
        if self._on_beat is not None:
            try:
                self._on_beat()
            except Exception:
                log.warning("first beat of submission %s failed", self._args[1], exc_info=True)
        while not self._stop.wait(self._interval):
            try:
                _touch(*self._args)
                if self._on_beat is not None:
                    self._on_beat()
            except Exception:  # a missed beat is not worth failing the job for
                log.warning("heartbeat of submission %s failed", self._args[1], exc_info=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def _own_row(session: Session, submission_id: int, run: int) -> Submission | None:
    row = session.exec(select(Submission).where(Submission.id == submission_id)
                       .with_for_update()).first()
    if row is None or row.status != SubmissionStatus.RUNNING or row.attempts != run:
        return None  # someone (the reconciler, a re-run) took over: drop this outcome
    return row


RefreshRequest = Callable[[int], Any]


def score_submission_now(*, engine_or_session: Engine | Session, submission_id: int,
                         settings: dict[str, Any] | None = None,
                         request_refresh: RefreshRequest | None = None,
                         isolate: Isolate = in_process,
                         on_beat: Callable[[], Any] | None = None) -> str:
    """Run the whole job for one submission; returns the row's status afterwards.

    Validating, scoring and storing the outcome (everything that reads the uploaded bytes)
    run through ``isolate``: a worker runs them in a child process under hard limits while
    this process keeps the heartbeat (and calls ``on_beat`` at each). When a public result
    is stored, ``request_refresh(board_id)`` asks for the ranking to be recomputed (the
    worker passes ``queue.request_snapshot_refresh``, which coalesces a burst into one job);
    without it, or if it fails, the snapshot is refreshed here. ``invalid`` lists every
    problem and is final; so is a file past a hard limit (``failed``, saying which limit).
    Our own errors re-queue the row with backoff (the reconciler enqueues it when due) until
    ``MAX_JOB_RETRIES`` retries are spent, then mark it ``failed`` with the reason.
    """
    if settings is None:
        from leaderboard.config import load_settings

        settings = load_settings()
    engine = _engine_of(engine_or_session)
    run = _claim(engine, submission_id)
    if run is None:
        with Session(engine) as session:
            row = session.get(Submission, submission_id)
            return row.status if row else "missing"
    heartbeat = _Heartbeat(engine, submission_id, run, settings["HEARTBEAT_SECONDS"],
                           on_beat)
    try:
        status, board_id = isolate(_run, engine, submission_id, run, settings,
                                   while_running=heartbeat)
    except LimitExceeded as exc:
        log.warning("submission %s (run %s) stopped: %s", submission_id, run, exc.message)
        return _stop_at_limit(engine, submission_id, run, exc)
    except Exception as exc:
        log.exception("scoring submission %s (run %s) failed", submission_id, run)
        return _fail(engine, submission_id, run, settings, exc)
    if board_id is not None:
        _refresh_board(engine, board_id, request_refresh)
    return status


def _refresh_board(engine: Engine, board_id: int, request_refresh: RefreshRequest | None) -> None:
    if request_refresh is not None:
        try:
            request_refresh(board_id)
            return
        except Exception:
            log.warning("could not request a ranking refresh of leaderboard %s; "
                        "refreshing here", board_id, exc_info=True)
    refresh_ranking(engine, board_id)


#: What a team reads when its file went past a hard limit: final, as the same file would
#: stop the same way again.
STOPPED_FOR_TEAMS = ("Stopped: checking and scoring this file {limit} (the limit for one "
                     "file). It is not retried; make the file smaller or simpler and upload "
                     "it again.")


def _stop_at_limit(engine: Engine, submission_id: int, run: int, exc: LimitExceeded) -> str:
    with Session(engine) as session:
        row = _own_row(session, submission_id, run)
        if row is None:
            session.rollback()
            return session.get(Submission, submission_id).status
        row.status, row.progress, row.finished_at = SubmissionStatus.FAILED, "", utcnow()
        row.failure_reason = STOPPED_FOR_TEAMS.format(limit=exc.message)
        row.failure_detail = f"attempt {run}: {exc.kind} limit: {exc.message}"
        session.add(row)
        session.commit()
        return row.status


def _run(engine: Engine, submission_id: int, run: int,
         settings: dict[str, Any]) -> tuple[str, int | None]:
    """Validate, score and store; returns the status and the board to refresh (if any)."""
    with Session(engine) as session:
        submission = session.get(Submission, submission_id)
        board = session.get(Board, submission.board_id)
        benchmark = get_split(session, submission.split_id)
        prepared = get_prepared(benchmark)  # reads prepared_bytes only on a cache miss
        candidates = get_candidates(benchmark) if board.track == Track.RANKING else None
        raw = submission.file_bytes
        # A re-score (after a scorer change) keeps judging the file by the rules it passed.
        rescoring = session.exec(select(Result.id).where(
            Result.submission_id == submission_id)).first() is not None
        coverage = 0.0 if rescoring else min_coverage(benchmark, settings)
        family, track = family_for(benchmark.name), board.track
        ranked_on = headlines(view_set(track, benchmark.name))
    del submission, benchmark  # the upload is held by `raw` alone, and freed once parsed
    report = validate_for_track(raw, prepared, candidates, settings, coverage, family=family,
                                track=track)
    del raw
    warnings = [p.message for p in report.warnings]
    lemmatized = getattr(report.submission, "substitutes_lemmatized", None)
    if not report.ok:
        errors = [p.to_dict() for p in report.errors]
        if report.errors_not_shown:
            errors.append({"code": "more_errors", "target_id": None, "position": None,
                           "message": f"... and {report.errors_not_shown} more problems"})
        return _finish(engine, submission_id, run, SubmissionStatus.INVALID,
                       errors=errors, warnings=warnings)
    _touch(engine, submission_id, run, progress="scoring")
    scored = family.score(prepared, report, track=track, bootstrap=settings["BOOTSTRAP_SAMPLES"],
                          seed=settings["BOOTSTRAP_SEED"])
    _touch(engine, submission_id, run, progress="storing")
    result = Result(
        submission_id=submission_id, scorer_version=SCORER_VERSION,
        split_checksum=prepared.checksum, bootstrap_seed=scored.signature["seed"],
        bootstrap_samples=scored.signature["bootstrap"], metrics=scored.metrics,
        intervals=scored.intervals, by_pos=scored.by_pos, counts=scored.counts,
        target_stats=scored.target_stats.to_bytes())
    return _finish(engine, submission_id, run, SubmissionStatus.SCORED, result=result,
                   resampled=(scored.target_stats, ranked_on),
                   warnings=warnings,
                   scoring_warnings=[w for w in scored.warnings if w not in warnings],
                   lemmatized=lemmatized)


def _finish(engine: Engine, submission_id: int, run: int, status: str, *,
            errors: list | None = None, warnings: list[str] | None = None,
            result: Result | None = None, lemmatized: bool | None = None,
            resampled: tuple[TargetStats, tuple[str, ...]] | None = None,
            scoring_warnings: list[str] | None = None) -> tuple[str, int | None]:
    """Store the outcome; returns the status and the board whose ranking must be refreshed
    (a public result was stored) or None. ``scoring_warnings`` come from scoring against
    the gold ("no hit at all for strict_a@10"): a held result keeps them out of what its
    team sees.
    ``resampled`` (statistics, headline metrics) gives the values the ranking keeps."""
    with Session(engine, expire_on_commit=False) as session:
        row = _own_row(session, submission_id, run)
        if row is None:
            session.rollback()
            return session.get(Submission, submission_id).status, None
        if result is not None and row.release_state == ReleaseState.UNDECIDED:
            board = session.get(Board, row.board_id)
            row.release_state, row.release_detail = ladder.decide(session, row, result, board)
        if result is not None:
            for old in session.exec(select(Result).where(
                    Result.submission_id == submission_id, Result.is_current)).all():
                old.is_current = False
                session.add(old)
            session.add(result)
            row.scorer_version = result.scorer_version
            if resampled is not None:
                session.flush()
                store_for_result(session, result.id, resampled[0], resampled[1],
                                 (None, *POS_VALUES))
        row.status, row.progress, row.finished_at = status, "", utcnow()
        shown_warnings = (warnings or []) + ([] if row.held else scoring_warnings or [])
        row.errors, row.warnings, row.failure_reason = errors or [], shown_warnings, ""
        row.failure_detail = ""
        row.substitutes_lemmatized = lemmatized
        session.add(row)
        session.commit()
        public = row.is_public and not row.hidden and not row.held
        board_id = row.board_id
    return status, (board_id if status == SubmissionStatus.SCORED and public else None)


def refresh_ranking(engine: Engine, board_id: int) -> None:
    """Recompute the board's snapshot (site engineer's service); a failure only logs."""
    try:
        from leaderboard.services.ranking.snapshots import refresh_snapshot

        with Session(engine) as session:
            refresh_snapshot(session=session, board_id=board_id)
            session.commit()
    except Exception:
        log.exception("refreshing the ranking of leaderboard %s failed", board_id)


def retry_delay(settings: dict[str, Any], run: int) -> float:
    """Backoff before run ``run + 1``: RETRY_BACKOFF_SECONDS doubled per attempt."""
    return settings["RETRY_BACKOFF_SECONDS"] * 2 ** (run - 1)


#: What a team is told when an attempt fails on our side. The exception can name files,
#: SQL, hosts or library internals: it goes to the log and to ``failure_detail`` (the admin
#: pages), never to the team. Problems with the file itself are ``invalid`` with named errors.
RETRYING_FOR_TEAMS = ("Attempt {run} of {max_runs} failed because of an internal error; the "
                      "hosts can see what went wrong. Retrying in {delay:g} s.")
FAILED_FOR_TEAMS = ("Scoring failed because of an internal error after {attempts}; the "
                    "hosts can see what went wrong. Your file is not at fault as far as we can "
                    "tell: you may upload it again.")


def _fail(engine: Engine, submission_id: int, run: int, settings: dict[str, Any],
          exc: BaseException) -> str:
    max_runs = 1 + settings["MAX_JOB_RETRIES"]
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    detail = f"attempt {run} of {max_runs}: {detail}"[:2000]
    with Session(engine) as session:
        row = _own_row(session, submission_id, run)
        if row is None:
            session.rollback()
            return session.get(Submission, submission_id).status
        now = utcnow()
        row.progress, row.failure_detail = "", detail
        if run < max_runs:
            delay = retry_delay(settings, run)
            row.status = SubmissionStatus.QUEUED
            row.queued_at = now + timedelta(seconds=delay)
            row.failure_reason = RETRYING_FOR_TEAMS.format(run=run, max_runs=max_runs,
                                                           delay=delay)
        else:
            row.status = SubmissionStatus.FAILED
            row.finished_at = now
            row.failure_reason = FAILED_FOR_TEAMS.format(
                attempts=f"{run} attempt{'s' if run != 1 else ''}")
        session.add(row)
        session.commit()
        return row.status
