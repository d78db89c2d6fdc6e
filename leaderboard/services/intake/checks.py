"""Dry runs ("Check file", ``POST /api/v1/validate``) as jobs: the web process never parses.

The web process stores the bytes in Redis for a few minutes, queues a check job on the
checks queue and waits for its report by polling Redis (a cooperative sleep: under gevent
its other connections go on). A worker reads the bytes and validates them in a child process
under hard limits (``run_check``). Nothing reaches the database; the report lives in Redis
for ``CHECK_TTL`` seconds, readable only with the team that asked for it.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from redis import Redis
from redis.exceptions import RedisError
from rq import Queue

from leaderboard.infra.queue import get_redis
from leaderboard.services.intake.isolation import Isolate, LimitExceeded, in_process
from leaderboard.services.intake.submissions import SubmissionError

log = logging.getLogger(__name__)
CHECK_FUNCTION = "leaderboard.worker.jobs.check_file_job"
#: Seconds a check's bytes and report stay in Redis.
CHECK_TTL = 600
PENDING, DONE = "pending", "done"
#: Seconds a team whose own checks fill its share waits before sending another.
TEAM_BUSY_RETRY_AFTER = 5


class ChecksBusy(Exception):
    """Too many dry runs wait already: the caller says "busy, try again"."""


class TeamChecksBusy(ChecksBusy):
    """The team's own dry runs fill its MAX_QUEUED_CHECKS_PER_TEAM: it waits for one of them
    (a 429), and the other teams' checks are not held up behind its flood."""


def checks_queue_name(queue_name: str) -> str:
    """The queue of dry runs beside the scoring queue ``queue_name`` (workers alternate)."""
    return f"{queue_name}-checks"


def checks_connection() -> Redis:
    """The web app's Redis, answering; a 503 ``queue_unavailable`` when it is away."""
    try:
        connection = get_redis()
        connection.ping()
    except (RedisError, OSError) as exc:
        raise SubmissionError(503, "queue_unavailable", "checks are unavailable for a moment; "
                              "try again shortly") from exc
    return connection


def _key(queue_name: str, check_id: str) -> str:
    return f"leaderboard:check:{queue_name}:{check_id}"


def _team_key(queue_name: str, team_id: int) -> str:
    return f"leaderboard:checks:{queue_name}:team-{team_id}"


# Admit a check into its team's set (check id -> admission time) unless the team already has
# ARGV[4] there. A member leaves once its check is done or gone (expired, Redis lost it), or
# CHECK_TTL after admission (its bytes are gone by then): a killed worker's check frees its
# slot by itself. One script, so that a team's parallel clients cannot all pass the count.
_ADMIT_SCRIPT = """
local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
for i = 1, #members, 2 do
  local state = redis.call('HGET', ARGV[1] .. members[i], 'state')
  if (not state) or state == ARGV[6] or tonumber(members[i + 1]) < tonumber(ARGV[5]) then
    redis.call('ZREM', KEYS[1], members[i])
  end
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[7])
return 1
"""


def _admit_for_team(connection: Redis, queue_name: str, team_id: int, check_id: str,
                    limit: int) -> bool:
    now = time.time()
    return bool(connection.eval(_ADMIT_SCRIPT, 1, _team_key(queue_name, team_id),
                                _key(queue_name, ""), check_id, now, limit, now - CHECK_TTL,
                                DONE, CHECK_TTL))


def submit_check(*, connection: Redis, queue_name: str, board_id: int, team_id: int,
                 raw: bytes, settings: dict[str, Any]) -> str:
    """Store ``raw`` and queue its check; returns the check id. Raises
    :class:`TeamChecksBusy` when the team has ``MAX_QUEUED_CHECKS_PER_TEAM`` checks waiting or
    running, :class:`ChecksBusy` when ``MAX_QUEUED_CHECKS`` checks of anyone wait (the bytes
    are then not kept)."""
    queue = Queue(checks_queue_name(queue_name), connection=connection)
    if queue.count >= int(settings["MAX_QUEUED_CHECKS"]):
        raise ChecksBusy()
    check_id = secrets.token_urlsafe(16)
    key = _key(queue_name, check_id)
    # Its state before its admission (a check counted for its team always has one), its
    # bytes after (a refused check writes none of them).
    with connection.pipeline() as pipe:
        pipe.hset(key, mapping={"state": PENDING, "board_id": board_id, "team_id": team_id})
        pipe.expire(key, CHECK_TTL)
        pipe.execute()
    if not _admit_for_team(connection, queue_name, team_id, check_id,
                           int(settings["MAX_QUEUED_CHECKS_PER_TEAM"])):
        connection.delete(key)
        raise TeamChecksBusy()
    connection.hset(key, "raw", raw)
    limit = float(settings["CHECK_TIMEOUT"])
    queue.enqueue(CHECK_FUNCTION, queue_name, check_id, job_id=f"check-{queue_name}-{check_id}",
                  job_timeout=int(limit) + 60, result_ttl=0, failure_ttl=3600,
                  description="dry run")
    return check_id


def check_outcome(connection: Redis, queue_name: str, check_id: str,
                  team_id: int) -> dict[str, Any] | None:
    """``{"state": "pending"}``, or ``{"state": "done", "report": ...}`` / ``{"state":
    "done", "error": {...}}``; None for an unknown, expired or another team's check."""
    state, owner, body = connection.hmget(_key(queue_name, check_id), "state", "team_id",
                                          "body")
    if state is None or owner is None or int(owner) != team_id:
        return None
    if state.decode() != DONE:
        return {"state": PENDING}
    return {"state": DONE, **json.loads(body)}


def wait_for_check(connection: Redis, queue_name: str, check_id: str, team_id: int,
                   timeout: float) -> dict[str, Any] | None:
    """Poll until the check is done or ``timeout`` passes; returns :func:`check_outcome`."""
    deadline = time.monotonic() + timeout
    pause = 0.02
    while True:
        outcome = check_outcome(connection, queue_name, check_id, team_id)
        if outcome is None or outcome["state"] == DONE or time.monotonic() >= deadline:
            return outcome
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 1.5, 0.25)


def start_and_wait(*, connection: Redis, queue_name: str, board_id: int, team_id: int,
                   raw: bytes, settings: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """:func:`submit_check`, then :func:`wait_for_check` for CHECK_WAIT_SECONDS."""
    check_id = submit_check(connection=connection, queue_name=queue_name, board_id=board_id,
                            team_id=team_id, raw=raw, settings=settings)
    return check_id, wait_for_check(connection, queue_name, check_id, team_id,
                                    float(settings["CHECK_WAIT_SECONDS"]))


def run_check(*, connection: Redis, queue_name: str, check_id: str,
              prepare: Callable[[int], Callable[[bytes], dict]],
              isolate: Isolate = in_process) -> str:
    """Worker side: validate the stored bytes through ``isolate`` and store the outcome.

    ``prepare(board_id)`` runs here (database reads, trusted) and returns the validator;
    the validator alone runs isolated, on the bytes. Returns "done", "limit", "error" or
    "expired" (the bytes were gone).
    """
    key = _key(queue_name, check_id)
    board_id, raw = connection.hmget(key, "board_id", "raw")
    if board_id is None or raw is None:
        return "expired"
    try:
        body: dict[str, Any] = {"report": isolate(prepare(int(board_id)), raw)}
        outcome = "done"
    except LimitExceeded as exc:
        body = {"error": {"status": 422, "code": f"{exc.kind}_limit",
                          "message": f"checking this file {exc.message} (the limit for one "
                                     "file); it was stopped"}}
        outcome = "limit"
    except Exception:
        log.exception("dry run %s failed", check_id)
        body = {"error": {"status": 500, "code": "internal_error",
                          "message": "the check failed on our side; try again"}}
        outcome = "error"
    del raw
    with connection.pipeline() as pipe:
        pipe.hset(key, mapping={"state": DONE, "body": json.dumps(body)})
        pipe.hdel(key, "raw")
        pipe.expire(key, CHECK_TTL)
        pipe.execute()
    return outcome
