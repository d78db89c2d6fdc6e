"""RQ job functions. They take ids, open their own sessions and are safe to run twice."""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Engine

_context: dict[str, Any] = {}


def configure(*, settings: dict[str, Any], engine: Engine) -> None:
    """Set the settings and engine jobs use (the worker entry does this once at start)."""
    _context["settings"] = settings
    _context["engine"] = engine


def _ensure_context() -> tuple[dict[str, Any], Engine]:
    if "engine" not in _context:
        # A worker started some other way (e.g. plain `rq worker`): settings from the env.
        from leaderboard.config import load_settings
        from leaderboard.db import make_engine

        settings = load_settings()
        configure(settings=settings, engine=make_engine(settings["DATABASE_URL"]))
    return _context["settings"], _context["engine"]


def score_submission_job(submission_id: int) -> str:
    """Validate and score one submission; returns its status afterwards."""
    from leaderboard.services.results import score_submission_now

    settings, engine = _ensure_context()
    return score_submission_now(engine_or_session=engine, submission_id=submission_id,
                                settings=settings)
