"""Pipeline fixtures: the demo split as the default benchmark, a team with a token, workers.

Workers are real ``leaderboard worker`` processes pointed at the test's database and Redis
through ``LEADERBOARD_*`` variables; every one started is terminated by the fixture.
"""

from __future__ import annotations

import gzip
import json
import time

import pytest
from sqlmodel import Session

from leaderboard.config import PROJECT_ROOT
from leaderboard.models import Submission
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from tests.factories import make_team, make_token

DEMO_DIR = PROJECT_ROOT / "leaderboard" / "demo"
DEMO_SPLIT = DEMO_DIR / "demo_split.json"
DEMO_SUBMISSIONS = DEMO_DIR / "submissions"


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


def drain(connection, settings: dict) -> None:
    """Run every job of the test's queues in this process (dry runs, scoring, then the
    ranking refreshes they ask for), as a worker and a ranker would."""
    from rq import Queue, SimpleWorker

    from leaderboard.rankers import ranking_queue_name
    from leaderboard.services.intake.checks import checks_queue_name

    name = settings["QUEUE_NAME"]
    queues = [Queue(q, connection=connection) for q in
              (checks_queue_name(name), name, ranking_queue_name(name))]
    SimpleWorker(queues, connection=connection).work(burst=True)
