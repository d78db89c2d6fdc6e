"""Structured logs: one JSON line per request and per scoring job, on standard error.

Web: :func:`init_request_logging` (called by ``security.init_app``) logs method, path,
status, duration and the user / team. Worker: :func:`log_job` logs one finished job.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the worker logs jobs without importing Flask
    from flask import Flask, Response

ACCESS_LOGGER = "leaderboard.access"
JOB_LOGGER = "leaderboard.jobs"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is now (it may be replaced after set-up)."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


class JsonFormatter(logging.Formatter):
    """A record's ``fields`` (plus time, level and logger) as one JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def configure_logging(level: str = "INFO") -> None:
    """Attach the JSON handler to the access and job loggers (idempotent)."""
    formatter = JsonFormatter()
    formatter.converter = time.gmtime
    for name in (ACCESS_LOGGER, JOB_LOGGER):
        logger = logging.getLogger(name)
        logger.setLevel(level.upper())
        # Our own handler, not the root's: gunicorn and RQ configure the root differently.
        logger.propagate = False
        if not any(getattr(h, "_leaderboard", False) for h in logger.handlers):
            handler = _StderrHandler()
            handler.setFormatter(formatter)
            handler._leaderboard = True  # type: ignore[attr-defined]
            logger.addHandler(handler)


def log_job(*, submission_id: int | None, outcome: str, ms: float, **fields: Any) -> None:
    """One line for a finished (or failed) scoring job.

    ``outcome``: scored, invalid, failed, retry, skipped... Extra ``fields`` (attempt, job
    id, error) are added to the line.
    """
    configure_logging()
    logging.getLogger(JOB_LOGGER).info(
        "job", extra={"fields": {"submission_id": submission_id, "outcome": outcome,
                                 "ms": round(ms, 1), **fields}})


def init_request_logging(app: Flask) -> None:
    """Log every request once it has a response (error pages included)."""
    from flask import g, request

    if app.config["LEADERBOARD"].get("CPU_TIME_HEADER"):
        _time_cpu(app)
    if not app.config["LEADERBOARD"].get("LOG_REQUESTS", True):
        return
    configure_logging(app.config["LEADERBOARD"].get("LOG_LEVEL", "INFO"))
    logger = logging.getLogger(ACCESS_LOGGER)

    @app.before_request
    def _start_timer() -> None:
        g.request_started = time.perf_counter()

    @app.after_request
    def _log_request(response: Response) -> Response:
        started = g.get("request_started")
        fields: dict[str, Any] = {
            "method": request.method, "path": request.path, "status": response.status_code,
            "ms": round((time.perf_counter() - started) * 1000, 1) if started else None,
            "ip": request.remote_addr,
        }
        # Only what was already loaded: logging must not cost a database query.
        user = g.get("_login_user")
        if user is not None and getattr(user, "is_authenticated", False):
            fields["user_id"] = user.id
            fields["team_id"] = user.team_id
        team = g.get("api_team")
        if team is not None:
            fields["team_id"] = team.id
        logger.info("request", extra={"fields": fields})
        return response


def _time_cpu(app: Flask) -> None:
    """``X-CPU-ms``: CPU time the web process spent on the request until its headers were
    sent (every hook, the session, the body unless streamed). It is the thread's time, so
    under gevent exact only when no other request ran meanwhile: measure with one client.
    For benchmarks (``CPU_TIME_HEADER``); off by default."""
    inner = app.wsgi_app

    def timed(environ, start_response):  # type: ignore[no-untyped-def]
        started = time.thread_time()

        def start(status, headers, exc_info=None):  # type: ignore[no-untyped-def]
            headers.append(("X-CPU-ms", f"{(time.thread_time() - started) * 1000:.2f}"))
            return start_response(status, headers, exc_info)

        return inner(environ, start)

    app.wsgi_app = timed  # type: ignore[method-assign]
