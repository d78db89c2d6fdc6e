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
    Benchmark,
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
    PreparedSplit,
    TargetStats,
    ValidationReport,
)
from leaderboard.scoring.families import SWORDS, Family, family_for
from leaderboard.services.catalog.benchmarks import get_candidates, get_prepared, get_split
from leaderboard.services.ranking import ladder
from leaderboard.services.ranking.metric_info import POS_VALUES, headlines, view_set
from leaderboard.services.ranking.resamples import store_for_result

log = logging.getLogger(__name__)


#: Uploads from this size on are "large" dry runs: parsing one may hold a few hundred MB.
LARGE_CHECK_BYTES = 1 << 20
_large_checks: dict[int, threading.BoundedSemaphore] = {}
_large_checks_lock = threading.Lock()


def _large_check_slots(settings: dict[str, Any]) -> threading.BoundedSemaphore:
    limit = int(settings["MAX_CONCURRENT_LARGE_CHECKS"])
    with _large_checks_lock:
        return _large_checks.setdefault(limit, threading.BoundedSemaphore(limit))


def validate_upload(*, session: Session, board: Board, raw: bytes,
                    settings: dict[str, Any]) -> dict:
    """Dry run: the full validation report of ``raw`` for the board (no gold-derived data).

    Validation reads only the split's public target ids (and, on the ranking track, its
    public candidate lists); nothing is stored or counted. At most
    ``MAX_CONCURRENT_LARGE_CHECKS`` large files are checked at once per process (eight at
    once took a web process to 1.2 GB); another waits ``LARGE_CHECK_WAIT_SECONDS``, then is
    refused with a 503 ``busy`` to retry.
    """
    from leaderboard.services.intake.submissions import SubmissionError

    benchmark = get_split(session, board.benchmark_id)
    candidates = get_candidates(benchmark) if board.track == Track.RANKING else None
    prepared, coverage = get_prepared(benchmark), min_coverage(benchmark, settings)
    family = family_for(benchmark.name)
    if len(raw) < LARGE_CHECK_BYTES:
        return validate_for_track(raw, prepared, candidates, settings, coverage,
                                  family=family, track=board.track).to_dict()
    slots = _large_check_slots(settings)
    if not slots.acquire(timeout=float(settings["LARGE_CHECK_WAIT_SECONDS"])):
        raise SubmissionError(503, "busy", "other large files are being checked right now; "
                              "retry in a few seconds (uploads for scoring are not affected)")
    try:
        return validate_for_track(raw, prepared, candidates, settings, coverage,
                                  family=family, track=board.track).to_dict()
    finally:
        slots.release()


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


def min_coverage(benchmark: Benchmark, settings: dict[str, Any]) -> float:
    """The share of targets a submission must answer: MIN_ANSWERED_FRACTION on a split whose
    labels are hidden, none on one whose labels are public (nothing to probe there)."""
    return float(settings["MIN_ANSWERED_FRACTION"]) if benchmark.hidden else 0.0


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

    def __init__(self, engine: Engine, submission_id: int, run: int, interval: float):
        self._args = (engine, submission_id, run)
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="heartbeat")

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                _touch(*self._args)
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
                         request_refresh: RefreshRequest | None = None) -> str:
    """Run the whole job for one submission; returns the row's status afterwards.

    When a public result is stored, ``request_refresh(board_id)`` asks for the ranking
    to be recomputed (the worker passes ``queue.request_snapshot_refresh``, which coalesces
    a burst into one job); without it, or if it fails, the snapshot is refreshed here.
    ``invalid`` lists every problem and is final. Our own errors re-queue the row with
    backoff (the reconciler enqueues it when due) until ``MAX_JOB_RETRIES`` retries are
    spent, then mark it ``failed`` with the reason.
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
    with _Heartbeat(engine, submission_id, run, settings["HEARTBEAT_SECONDS"]):
        try:
            return _run(engine, submission_id, run, settings, request_refresh)
        except Exception as exc:
            log.exception("scoring submission %s (run %s) failed", submission_id, run)
            return _fail(engine, submission_id, run, settings, exc)


def _run(engine: Engine, submission_id: int, run: int, settings: dict[str, Any],
         request_refresh: RefreshRequest | None) -> str:
    with Session(engine) as session:
        submission = session.get(Submission, submission_id)
        board = session.get(Board, submission.board_id)
        benchmark = get_split(session, submission.benchmark_id)
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
                   lemmatized=lemmatized, request_refresh=request_refresh)


def _finish(engine: Engine, submission_id: int, run: int, status: str, *,
            errors: list | None = None, warnings: list[str] | None = None,
            result: Result | None = None, lemmatized: bool | None = None,
            resampled: tuple[TargetStats, tuple[str, ...]] | None = None,
            request_refresh: RefreshRequest | None = None,
            scoring_warnings: list[str] | None = None) -> str:
    """Store the outcome. ``scoring_warnings`` come from scoring against the gold ("no hit
    at all for strict_a@10"): a held result keeps them out of what its team sees.
    ``resampled`` (statistics, headline metrics) gives the values the ranking keeps."""
    with Session(engine, expire_on_commit=False) as session:
        row = _own_row(session, submission_id, run)
        if row is None:
            session.rollback()
            return session.get(Submission, submission_id).status
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
    if status == SubmissionStatus.SCORED and public:
        if request_refresh is not None:
            try:
                request_refresh(board_id)
                return status
            except Exception:
                log.warning("could not request a ranking refresh of leaderboard %s; "
                            "refreshing here", board_id, exc_info=True)
        refresh_ranking(engine, board_id)
    return status


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
