"""The demo: an invented split, three demo teams and their public submissions.

What ``make run`` loads when no real split is given, so the site has something to show.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlmodel import Session, select

from leaderboard.config import PROJECT_ROOT
from leaderboard.models import Split, Submission, SubmissionStatus, System, Team
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board

DEMO_DIR = PROJECT_ROOT / "leaderboard" / "demo"
DEMO_NAME, DEMO_VERSION, DEMO_SPLIT = "swords-demo", "1", "test"
#: submission file stem -> (team, system name, description)
DEMO_ENTRIES = {
    "demo_strong": ("Demo Lab North", "Contextual ranker (demo)",
                    "Invented demo system: a strong contextual ranker."),
    "demo_baseline": ("Demo Lab South", "Thesaurus baseline (demo)",
                      "Invented demo system: thesaurus candidates in thesaurus order."),
    "demo_weak": ("Demo Lab East", "Frequency baseline (demo)",
                  "Invented demo system: frequent words, context ignored."),
}


def load_demo(*, session: Session, enqueue: bool = True, connection: Any = None,
              queue_name: str | None = None) -> Split:
    """Import the invented demo split (hidden, default) with public demo submissions.

    Safe to run again: nothing is duplicated. With ``enqueue`` the demo submissions not yet
    scored are queued (``connection``/``queue_name`` default to the current app's).
    """

    benchmark = import_benchmark(
        session=session, raw=(DEMO_DIR / "demo_split.json").read_bytes(), name=DEMO_NAME,
        version=DEMO_VERSION, split=DEMO_SPLIT, hidden=True, make_default=True)
    board = import_board(session, benchmark)
    pending: list[int] = []
    for stem, (team_name, system_name, description) in DEMO_ENTRIES.items():
        path = DEMO_DIR / "submissions" / f"{stem}.json"
        if not path.exists():
            continue
        team = session.exec(select(Team).where(Team.name == team_name)).first()
        if team is None:
            team = Team(name=team_name)
            session.add(team)
            session.flush()
        submission = session.exec(select(Submission).where(
            Submission.team_id == team.id, Submission.split_id == benchmark.id,
            Submission.system_name == system_name)).first()
        if submission is None:
            raw = path.read_bytes()
            lemmatized = json.loads(raw).get("substitutes_lemmatized")
            system = session.exec(select(System).where(
                System.team_id == team.id, System.name == system_name)).first()
            if system is None:
                system = System(team_id=team.id, name=system_name, description=description)
                session.add(system)
                session.flush()
            submission = Submission(
                team_id=team.id, split_id=benchmark.id, board_id=board.id,
                system_id=system.id, system_name=system_name, filename=path.name, file_bytes=raw,
                file_sha256=hashlib.sha256(raw).hexdigest(), file_size=len(raw),
                substitutes_lemmatized=lemmatized if isinstance(lemmatized, bool) else None,
                is_public=True, status=SubmissionStatus.QUEUED)
            session.add(submission)
            session.flush()
        if submission.status == SubmissionStatus.QUEUED:
            pending.append(submission.id)
    session.commit()
    if enqueue:
        _enqueue(pending, connection, queue_name)
    return benchmark


def _enqueue(ids: list[int], connection: Any, queue_name: str | None) -> None:
    from leaderboard.infra import queue

    if connection is None or queue_name is None:
        from flask import current_app

        connection = connection or queue.get_redis()
        queue_name = queue_name or current_app.config["LEADERBOARD"]["QUEUE_NAME"]
    for submission_id in ids:
        queue.enqueue_scoring(submission_id, connection=connection, queue_name=queue_name)
