"""Waiting for submissions and running their jobs: in this process, or through the real
``leaderboard`` command (:data:`LEADERBOARD_BIN`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sqlmodel import Session

from leaderboard.models import Submission

LEADERBOARD_BIN = str(Path(sys.executable).with_name("leaderboard"))


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

    from leaderboard.ranker.placement import ranking_queue_name
    from leaderboard.services.intake.checks import checks_queue_name

    name = settings["QUEUE_NAME"]
    queues = [Queue(q, connection=connection) for q in
              (checks_queue_name(name), name, ranking_queue_name(name))]
    SimpleWorker(queues, connection=connection).work(burst=True)
