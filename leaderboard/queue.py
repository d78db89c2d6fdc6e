"""The one place that talks to RQ for the web side: the Redis connection and the queue."""

from __future__ import annotations

from flask import current_app
from redis import Redis
from rq import Queue

from leaderboard.redis_conn import connect_redis


def get_redis() -> Redis:
    """The app's Redis connection, connected on first use."""
    conn = current_app.extensions.get("redis")
    if conn is None:
        settings = current_app.config["LEADERBOARD"]
        conn = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
        current_app.extensions["redis"] = conn
    return conn


def get_queue() -> Queue:
    """The scoring queue."""
    settings = current_app.config["LEADERBOARD"]
    return Queue(settings["QUEUE_NAME"], connection=get_redis())
