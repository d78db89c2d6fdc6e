"""Per-target diagnostics are computed by a worker, never in a web process.

Computing them re-reads the stored upload (validation, lemmatization): work on a user's
bytes, which runs only in a worker's child under hard limits. The worker stores the rows in
Redis for a day, keyed by submission, file digest, scorer version and split checksum; a web
request reads them there, or queues the job on the checks queue and waits up to
CHECK_WAIT_SECONDS for it (a cooperative sleep), then answers "being prepared".
"""

from __future__ import annotations

import pickle
import time
from typing import Any

from redis import Redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from leaderboard.services.intake.checks import checks_connection, checks_queue_name
from leaderboard.services.intake.submissions import SubmissionError

DIAGNOSE_FUNCTION = "leaderboard.worker.jobs.diagnose_job"
#: Seconds a submission's computed diagnostics stay in Redis.
ROWS_TTL = 24 * 3600


class NotReady(Exception):
    """The rows are being computed (or Redis is away): the caller says "retry shortly"."""


def _key(queue_name: str, key: tuple) -> str:
    return f"leaderboard:diagnostics:{queue_name}:" + ":".join(str(part) for part in key)


def store_outcome(connection: Redis, queue_name: str, key: tuple, outcome: tuple) -> None:
    """Worker side: keep ``("rows", rows)`` or ``("error", status, code, message)``."""
    connection.set(_key(queue_name, key), pickle.dumps(outcome), ex=ROWS_TTL)


def stored_outcome(connection: Redis, queue_name: str, key: tuple) -> tuple | None:
    """What a worker stored for ``key``; None when nothing (yet)."""
    raw = connection.get(_key(queue_name, key))
    # Written by our workers only (as RQ's own job payloads are): not user bytes.
    return None if raw is None else pickle.loads(raw)


def outcome_for(*, queue_name: str, key: tuple, submission_id: int,
                settings: dict[str, Any]) -> tuple:
    """The stored outcome, computing it through a worker if needed; raises
    :class:`NotReady` when it is not there within CHECK_WAIT_SECONDS."""
    try:
        connection = checks_connection()
    except SubmissionError as exc:
        raise NotReady() from exc
    outcome = stored_outcome(connection, queue_name, key)
    if outcome is not None:
        return outcome
    job_id = f"diagnose-{queue_name}-{submission_id}-{key[1][:16]}"
    if _failed(connection, job_id):
        return FAILED
    if not Job.exists(job_id, connection=connection):
        Queue(checks_queue_name(queue_name), connection=connection).enqueue(
            DIAGNOSE_FUNCTION, queue_name, submission_id, job_id=job_id,
            job_timeout=int(settings["CHECK_TIMEOUT"]) + 60, result_ttl=0, failure_ttl=600,
            description=f"diagnostics of submission {submission_id}")
    deadline = time.monotonic() + float(settings["CHECK_WAIT_SECONDS"])
    pause = 0.02
    while time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 1.5, 0.25)
        outcome = stored_outcome(connection, queue_name, key)
        if outcome is not None:
            return outcome
        if _failed(connection, job_id):
            return FAILED
    raise NotReady()


#: What a diagnose job that raised answers until RQ forgets it (its failure_ttl): an error
#: now, not "being prepared" until the wait runs out on every view.
FAILED = ("error", 500, "failed", "the diagnostics could not be computed (the worker's log "
          "says why); retry in ten minutes or ask the hosts")


def _failed(connection: Redis, job_id: str) -> bool:
    try:
        return Job.fetch(job_id, connection=connection).get_status() == JobStatus.FAILED
    except NoSuchJobError:
        return False
