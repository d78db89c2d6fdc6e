"""Engines and sessions. Web requests get one session per request on ``g``; jobs and
commands open their own with ``session_scope``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine

from leaderboard import models  # noqa: F401  (registers the tables on SQLModel.metadata)


def _json_dumps(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def _json_loads(text: str | bytes) -> Any:
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:  # NaN or Infinity, as json.dumps wrote them before
        return json.loads(text)


#: JSON columns through msgspec: a large board's ranking snapshot is a large JSON document,
#: which the stdlib is slow to encode in the worker and to parse in every web process;
#: msgspec does both several times faster, with the same values.
JSON_CODEC = {"json_serializer": _json_dumps, "json_deserializer": _json_loads}


def make_engine(url: str) -> Engine:
    """Create an engine; SQLite gets a busy timeout and WAL so web and worker can share it."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               **JSON_CODEC)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):  # pragma: no cover - trivial wiring
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    # A database that does not answer fails a connection in 10 s instead of libpq's "wait for
    # ever": a web process warming up at start (leaderboard/web/warmup.py) or a job then fails
    # and says why, instead of hanging until gunicorn or RQ kills it.
    return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 10},
                         **JSON_CODEC)


def create_all(engine: Engine) -> None:
    """Create every table directly (tests); real databases are built by migrations."""
    SQLModel.metadata.create_all(engine)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


# Flask is imported where an app is in use: the worker imports this module without it.


def get_engine() -> Engine:
    """The current app's engine."""
    from flask import current_app

    return current_app.extensions["db_engine"]


def get_session() -> Session:
    """The request's session, opened on first use and closed at teardown."""
    from flask import g

    if "db_session" not in g:
        g.db_session = Session(get_engine(), expire_on_commit=False)
    return g.db_session


def close_session(_exc: BaseException | None = None) -> None:
    from flask import g

    session = g.pop("db_session", None)
    if session is not None:
        session.close()
