"""The one place that talks to RQ: the Redis connection, the queue and enqueue_scoring."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job

from leaderboard.infra.redis_conn import connect_redis
from leaderboard.ranker.placement import live_rankers, ranker_for, ranking_queue_name

log = logging.getLogger(__name__)


def get_redis() -> Redis:
    """The app's Redis connection, connected on first use."""
    from flask import current_app  # here, not at the top: the worker has no app

    conn = current_app.extensions.get("redis")
    if conn is None:
        settings = current_app.config["LEADERBOARD"]
        conn = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
        current_app.extensions["redis"] = conn
    return conn


def get_queue() -> Queue:
    """The scoring queue."""
    from flask import current_app

    settings = current_app.config["LEADERBOARD"]
    return Queue(settings["QUEUE_NAME"], connection=get_redis())


#: RQ job states in which a job will still run (or is running).
LIVE_STATES = frozenset({"queued", "started", "scheduled", "deferred"})
JOB_FUNCTION = "leaderboard.worker.jobs.score_submission_job"
#: RQ's own time limit of a scoring job, past JOB_TIMEOUT: the job's child is killed at
#: JOB_TIMEOUT, and the parent still stores that outcome.
JOB_TIMEOUT_MARGIN = 120


def job_id_for(submission_id: int, run: int, queue_name: str) -> str:
    """The job id of run number ``run`` (1-based) of a submission: unique per attempt.

    The queue name is part of it: job ids are global in Redis, and two sites (or test runs)
    sharing one Redis must not mistake each other's jobs for their own.
    """
    return f"score-{queue_name}-{submission_id}-{run}"


def enqueue_scoring(submission_id: int, *, connection: Redis, queue_name: str, run: int = 1,
                    job_timeout: int = 900) -> str:
    """Enqueue scoring of a committed submission; the one place that talks to RQ for that.

    Call only after the submission row is committed (the job reads it). The job id names the
    submission and the run, so a reconciler can tell whether the current run has a live job.
    Returns the job id.
    """
    job_id = job_id_for(submission_id, run, queue_name)
    queue = Queue(queue_name, connection=connection)
    queue.enqueue(JOB_FUNCTION, submission_id, job_id=job_id,
                  job_timeout=job_timeout + JOB_TIMEOUT_MARGIN,
                  result_ttl=24 * 3600, failure_ttl=7 * 24 * 3600,
                  description=f"score submission {submission_id} (run {run})")
    return job_id


def enqueue_committed(submission_id: int) -> str | None:
    """Enqueue a just-committed upload from a web request; None when Redis is unreachable.

    The row is already stored as ``queued``, so the upload has succeeded either way: the
    reconciler (worker start and every RECONCILE_SECONDS) enqueues it once Redis is back.
    """
    from flask import current_app

    settings = current_app.config["LEADERBOARD"]
    try:
        return enqueue_scoring(submission_id, connection=get_redis(),
                               queue_name=settings["QUEUE_NAME"],
                               job_timeout=settings["JOB_TIMEOUT"])
    except (RedisError, OSError):
        log.warning("could not enqueue submission %s (Redis unreachable); the reconciler "
                    "will enqueue it", submission_id, exc_info=True)
        return None


ACCOUNT_MAIL_FUNCTION = "leaderboard.worker.jobs.account_mail_job"


def enqueue_account_mail(kind: str, email: str, link: str) -> str | None:
    """From a web request: queue an account e-mail for the worker; None if Redis is away.

    Takes the address, not a user: the request must not look it up (see
    :mod:`leaderboard.services.access.account_mail`). Ahead of queued scoring jobs
    (``at_front``), as someone waits for it.
    """
    import uuid

    from flask import current_app

    settings = current_app.config["LEADERBOARD"]
    job_id = f"mail-{settings['QUEUE_NAME']}-{uuid.uuid4().hex}"
    try:
        Queue(settings["QUEUE_NAME"], connection=get_redis()).enqueue(
            ACCOUNT_MAIL_FUNCTION, kind, email, link, job_id=job_id, job_timeout=120,
            result_ttl=600, failure_ttl=24 * 3600, at_front=True,
            description=f"account mail ({kind})")
    except (RedisError, OSError):
        log.warning("could not queue an account e-mail (%s; Redis unreachable)", kind,
                    exc_info=True)
        return None
    return job_id


def job_is_live(connection: Redis, job_id: str, queue_name: str) -> bool:
    """True when RQ still holds ``job_id`` in a state where it will run (or runs)."""
    from rq.exceptions import NoSuchJobError
    from rq.job import Job

    try:
        job = Job.fetch(job_id, connection=connection)
    except NoSuchJobError:
        return False
    status = str(getattr(job.get_status(refresh=False), "value", job.get_status(refresh=False)))
    if job.origin != queue_name:
        return False
    if status == "queued":
        # The job hash can outlive the queue's list (a partial flush): then nothing pops it.
        return connection.lpos(Queue(queue_name, connection=connection).key, job_id) is not None
    return status in LIVE_STATES


def worker_key(worker_name: str) -> str:
    """RQ's key of a live worker (it expires when the worker stops beating)."""
    from rq.worker import Worker

    return f"{Worker.redis_worker_namespace_prefix}{worker_name}"


def job_worker_alive(connection: Redis, job_id: str) -> bool:
    """True when ``job_id`` has started on a worker that is in RQ's worker registry and whose
    key still lives without a recorded death (a stopped worker's key lingers a minute)."""
    from rq.exceptions import NoSuchJobError
    from rq.job import Job
    from rq.worker_registration import REDIS_WORKER_KEYS

    try:
        job = Job.fetch(job_id, connection=connection)
    except NoSuchJobError:
        return False
    if not job.worker_name:
        return False
    key = worker_key(job.worker_name)
    with connection.pipeline() as pipe:
        pipe.sismember(REDIS_WORKER_KEYS, key)
        pipe.exists(key)
        pipe.hexists(key, "death")
        registered, exists, dead = pipe.execute()
    return bool(registered) and bool(exists) and not dead


REFRESH_FUNCTION = "leaderboard.ranker.refresh.refresh_snapshot_job"
#: A pending marker outlives a lost refresh job by at most this long (then a new one queues).
REFRESH_PENDING_TTL = 900
# Delete the pending marker only while it still names this job (another may have replaced it).
_RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
#: Point the pending marker from the job it names (ARGV[1]) to another (ARGV[2]).
_REPLACE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return 0
"""


def _waiting(connection: Redis, job_id: str) -> bool:
    """Whether the job is still in its queue, not taken (a coalesced request will be seen
    by it). Its queue's list, not its status: a worker killed right after taking a job
    leaves it "queued" but out of every queue."""
    try:
        origin = Job.fetch(job_id, connection=connection).origin
    except NoSuchJobError:
        return False
    return connection.lpos(Queue(origin, connection=connection).key, job_id) is not None


def refresh_keys(board_id: int, queue_name: str) -> dict[str, str]:
    """Redis keys of a board's refresh: pending job marker, run counter and run lease."""
    base = f"leaderboard:refresh:{queue_name}:board-{board_id}"
    return {"pending": f"{base}:pending", "counter": f"{base}:n", "lock": f"{base}:lock"}


def refresh_stats_key(queue_name: str) -> str:
    """Hash of counters of the site's refreshes: ``warm`` (the ranker held the board's state
    in memory), ``cold``, ``incremental`` and ``full`` (the state rebuilt)."""
    return f"leaderboard:refresh:{queue_name}:stats"


def running_refreshes_key(queue_name: str) -> str:
    """Hash board id -> the ranker running its refresh (a gone ranker's boards are redone)."""
    return f"leaderboard:refresh:{queue_name}:running"


#: A refresh is incremental and takes seconds, but one that must start from nothing (first
#: snapshot of a large board, a new snapshot format after a deploy) can take many minutes
#: (docs/contributors/performance.md): it must not be killed half-way.
REFRESH_JOB_TIMEOUT = 3600


def request_snapshot_refresh(board_id: int, *, connection: Redis, queue_name: str,
                             job_timeout: int = REFRESH_JOB_TIMEOUT) -> str | None:
    """Ask for the board's ranking snapshot to be recomputed; coalesces requests.

    At most one refresh job per queue and board waits in the queue: while one is queued
    and not yet started (it will read everything committed so far), this does nothing and
    returns None. Otherwise (none, or one already running) it enqueues exactly one more
    ``refresh_snapshot_job(board_id)`` with id ``refresh-<queue>-<board>-<n>`` and
    returns that id, on the queue of the board's ranker (:mod:`leaderboard.ranker.placement`), or
    the shared ranking queue when no ranker is alive. The running job's id cannot be
    reused for the next one (RQ would mix their hashes), hence the run number. Call after
    the data to show is committed.
    """
    keys = refresh_keys(board_id, queue_name)
    job_id = f"refresh-{queue_name}-{board_id}-{connection.incr(keys['counter'])}"
    if not connection.set(keys["pending"], job_id, nx=True, ex=REFRESH_PENDING_TTL):
        held = connection.get(keys["pending"])
        # Coalesce only onto a job still waiting: the marker may name one a ranker took and
        # died with before it cleared the marker (then this board would wait for nothing
        # until the marker expired).
        if held is None or _waiting(connection, held.decode()) or not connection.eval(
                _REPLACE_SCRIPT, 1, keys["pending"], held, job_id, REFRESH_PENDING_TTL):
            return None
    target = ranking_queue_name(queue_name,
                                ranker_for(board_id, live_rankers(connection, queue_name)))
    try:
        Queue(target, connection=connection).enqueue(
            REFRESH_FUNCTION, board_id, job_id=job_id, job_timeout=job_timeout,
            result_ttl=600, failure_ttl=7 * 24 * 3600,
            description=f"refresh ranking of leaderboard {board_id}")
    except Exception:
        release_refresh(connection, board_id, queue_name, job_id)
        raise
    return job_id


def release_refresh(connection: Redis, board_id: int, queue_name: str, job_id: str) -> None:
    """Clear the pending marker if it names ``job_id`` (the job has started or was not queued)."""
    connection.eval(_RELEASE_SCRIPT, 1, refresh_keys(board_id, queue_name)["pending"], job_id)


def refresh_from_request(board_id: int) -> bool:
    """The read path's way to get a board's snapshot: inside a web request, queue its refresh
    for a worker and answer True (the page shows "updating"); elsewhere (a host command,
    a script) False, and the caller computes it."""
    from flask import current_app, has_request_context

    if not has_request_context():
        return False
    request_snapshot_refresh(board_id, connection=get_redis(),
                             queue_name=current_app.config["LEADERBOARD"]["QUEUE_NAME"])
    return True


def announce_visibility(*, hidden: Mapping[int, Iterable[int]] | None = None,
                        shown: Mapping[int, Iterable[int]] | None = None) -> bool:
    """From a web request, after committing a change of who may see submissions (board id ->
    submission ids): each board's ranker is asked for a new snapshot (``hidden`` left every
    public page with the commit: reads ask the database who is withdrawn). Nothing is
    computed here. False when Redis is unreachable (the reconciler asks again later)."""
    from flask import current_app

    hidden, shown = dict(hidden or {}), dict(shown or {})
    queue_name = current_app.config["LEADERBOARD"]["QUEUE_NAME"]
    try:
        connection = get_redis()
        for board_id in sorted(set(hidden) | set(shown)):
            request_snapshot_refresh(board_id, connection=connection, queue_name=queue_name)
    except (RedisError, OSError):
        log.warning("could not announce a visibility change (Redis unreachable)",
                    exc_info=True)
        return False
    return True
