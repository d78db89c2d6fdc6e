"""Pipeline fixtures: the demo split as the default benchmark, a team with a token, workers.

Workers are real ``leaderboard worker`` processes pointed at the test's database and Redis
through ``LEADERBOARD_*`` variables; every one started is terminated by the fixture.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlmodel import Session

from leaderboard.config import PROJECT_ROOT
from leaderboard.models import Submission
from leaderboard.processes import stop_processes
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from tests.factories import make_team, make_token

DEMO_DIR = PROJECT_ROOT / "leaderboard" / "demo"
DEMO_SPLIT = DEMO_DIR / "demo_split.json"
DEMO_SUBMISSIONS = DEMO_DIR / "submissions"
LEADERBOARD_BIN = str(Path(sys.executable).with_name("leaderboard"))


@pytest.fixture
def benchmark(app, session):
    """The demo split, imported as the default benchmark."""
    return import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                            version="1", split="test", hidden=True, make_default=True)


@pytest.fixture
def board(benchmark, session):
    """The demo split's generative board (the default)."""
    return import_board(session, benchmark)


@pytest.fixture
def team_token(session):
    """(team, user, plaintext token) of a fresh team."""
    team, user = make_team(session, name="Lab One", email="one@example.org")
    return team, user, make_token(session, team)


@pytest.fixture
def settings(app) -> dict:
    return app.config["LEADERBOARD"]


def demo_bytes(stem: str = "demo_strong") -> bytes:
    return (DEMO_SUBMISSIONS / f"{stem}.json").read_bytes()


def target_ids() -> list[str]:
    return list(json.loads(DEMO_SPLIT.read_bytes())["targets"])


def submission_doc(substitutes: dict, lemmatized: bool = False) -> bytes:
    return json.dumps({"substitutes_lemmatized": lemmatized,
                       "substitutes": substitutes}).encode()


def gzip_bomb(size: int) -> bytes:
    """A small .gz that expands to ``size`` bytes of spaces."""
    return gzip.compress(b" " * size, compresslevel=9)


def wait_for_status(session: Session, submission_id: int, statuses: tuple[str, ...],
                    timeout: float = 60) -> Submission:
    """Poll the row until its status is one of ``statuses``."""
    deadline = time.monotonic() + timeout
    while True:
        session.expire_all()
        row = session.get(Submission, submission_id)
        if row.status in statuses:
            return row
        if time.monotonic() > deadline:
            raise AssertionError(f"submission {submission_id} still {row.status} "
                                 f"({row.progress}) after {timeout} s: {row.failure_reason}")
        time.sleep(0.1)


@pytest.fixture
def start_worker(app_overrides, tmp_path) -> Iterator[Callable[..., subprocess.Popen]]:
    """Start ``leaderboard worker`` subprocesses on the test's database, Redis and queue."""
    procs: list[subprocess.Popen] = []

    def start(**settings) -> subprocess.Popen:
        env = dict(os.environ)
        for key in ("INSTANCE_PATH", "DATABASE_URL", "REDIS_URL", "SECRET_KEY", "QUEUE_NAME"):
            env[f"LEADERBOARD_{key}"] = str(app_overrides[key])
        env.setdefault("LEADERBOARD_HEARTBEAT_SECONDS", "0.5")
        for key, value in settings.items():
            env[f"LEADERBOARD_{key}"] = str(value)
        with open(tmp_path / f"worker-{len(procs)}.log", "wb") as log:
            proc = subprocess.Popen([LEADERBOARD_BIN, "worker"], env=env, cwd=PROJECT_ROOT,
                                    stdout=log, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    yield start
    stop_processes(procs)
