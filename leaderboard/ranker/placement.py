"""Rankers and which one ranks a board: each board's refreshes go to the ranker holding its
state, so a refresh updates the state in memory instead of rebuilding it.

Every ranker registers in a sorted set with the time its registration expires and renews it
every few seconds. A board goes to the live ranker with the highest rendezvous hash of
(board, ranker): the map is stable while rankers come and go (a new ranker takes about 1/n
of the boards; a gone one's boards spread over the rest). With no ranker alive, refreshes go
to the shared ranking queue, which every ranker also works on.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time

from redis import Redis

#: A ranker renews its registration this often, and is taken for gone after REGISTRATION_TTL.
BEAT_SECONDS = 5.0
REGISTRATION_TTL = 15.0


def registry_key(queue_name: str) -> str:
    """The sorted set of rankers (member: name, score: expiry) of a site."""
    return f"leaderboard:rankers:{queue_name}"


def ranking_queue_name(queue_name: str, ranker: str | None = None) -> str:
    """The shared ranking queue of the site, or one ranker's own queue."""
    return f"{queue_name}-ranking" + (f"-{ranker}" if ranker else "")


def new_ranker_name() -> str:
    """A name unique to this process (a restarted ranker starts with an empty state)."""
    return f"{socket.gethostname()}-{os.getpid()}"


def register(connection: Redis, queue_name: str, name: str, now: float | None = None) -> None:
    """Announce (or renew) a live ranker until ``now + REGISTRATION_TTL``."""
    now = time.time() if now is None else now
    connection.zadd(registry_key(queue_name), {name: now + REGISTRATION_TTL})


def unregister(connection: Redis, queue_name: str, name: str) -> None:
    """A ranker that stops cleanly leaves at once (its boards move without waiting)."""
    connection.zrem(registry_key(queue_name), name)


def live_rankers(connection: Redis, queue_name: str, now: float | None = None) -> list[str]:
    """Names of the rankers whose registration has not expired."""
    now = time.time() if now is None else now
    return [m.decode() for m in connection.zrangebyscore(registry_key(queue_name), now, "+inf")]


def gone_rankers(connection: Redis, queue_name: str, now: float | None = None) -> list[str]:
    """Names of registered rankers whose registration expired (killed, or their machine)."""
    now = time.time() if now is None else now
    return [m.decode() for m in connection.zrangebyscore(registry_key(queue_name), "-inf",
                                                         f"({now}")]


def ranker_for(board_id: int, rankers: list[str]) -> str | None:
    """The ranker of a board among ``rankers`` (rendezvous hashing), None when empty."""
    if not rankers:
        return None
    return max(rankers, key=lambda name: hashlib.sha1(f"{board_id}|{name}".encode()).digest())
