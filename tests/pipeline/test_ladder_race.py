"""The Ladder under parallel workers (issue 30, item 4), on SQLite and PostgreSQL.

A new team uploads five files at once to a hidden-label board and five workers score them at
the same moment, each job with its own engine (its own connections), as five worker processes
would. Exactly one of the five may be released as the team's first result: the other four
are compared with it and held. Before the decision was serialised, all five read "no
released best" and 2 to 5 of them were released, each with every per-POS number.

Left to chance, the five jobs reach the decision within a few milliseconds of each other
often but not always. A gate on each job's engine holds its read of the team's released
results until all five jobs are there (or for :data:`GATE_SECONDS`, whichever comes first):
unserialised, all five then read at once; serialised, only one job can be there at a time.
Nothing of the job is replaced; the gate only delays a statement.
"""

from __future__ import annotations

import threading
from collections import Counter

from sqlalchemy import event
from sqlmodel import Session, col, select

from leaderboard.db import make_engine
from leaderboard.models import Release, ReleaseState, Submission
from leaderboard.services.intake.results import score_submission_now
from tests.backends import ALL_DATABASES
from tests.factories import make_team, make_token
from tests.pipeline.test_quota_race import distinct_files, parallel_uploads

WORKERS = 5
#: How long the first job at the gate waits for the others before the gate opens for good.
GATE_SECONDS = 5.0


class Gate:
    """Holds the first read of released results of each of ``n`` jobs until all ``n`` are
    there or ``seconds`` have passed; from then on it is open."""

    def __init__(self, n: int, seconds: float):
        self.n, self.seconds = n, seconds
        self.arrived: set[int] = set()
        self.opened = threading.Event()
        self.lock = threading.Lock()

    def watch(self, engine) -> None:
        """Apply the gate to the statements of ``engine``."""
        event.listen(engine, "before_cursor_execute", self._before)

    def _before(self, _conn, _cursor, statement: str, *_args) -> None:
        if self.opened.is_set() or "FROM submission JOIN result" not in statement:
            return
        with self.lock:
            self.arrived.add(threading.get_ident())
            if len(self.arrived) >= self.n:
                self.opened.set()
        self.opened.wait(self.seconds)
        self.opened.set()


def score_in_parallel(database_url: str, settings: dict, ids: list[int],
                      gate: Gate) -> list[str]:
    """Score ``ids`` at once, one thread and one engine per job, started by a barrier."""
    barrier = threading.Barrier(len(ids))
    statuses: list[str] = [""] * len(ids)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        engine = make_engine(database_url)
        gate.watch(engine)
        try:
            barrier.wait(timeout=60)
            statuses[i] = score_submission_now(engine_or_session=engine, submission_id=ids[i],
                                               settings=settings)
        except BaseException as exc:  # reported by the test's thread
            errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(ids))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    return statuses


@ALL_DATABASES
def test_five_first_uploads_scored_at_once_release_exactly_one(app, board, session, settings,
                                                               app_overrides):
    assert board.release == Release.LADDER
    settings.update(DAILY_SCORED_QUOTA=WORKERS, API_RATE_LIMIT="1000/minute")
    team, _user = make_team(session, name="Five Workers", email="five@example.org")
    token = make_token(session, team)
    # Five different files of one quality: none is significantly better than another.
    assert parallel_uploads(app, token, distinct_files(WORKERS), [None] * WORKERS) == [202] * 5
    ids = sorted(session.exec(select(Submission.id).where(Submission.team_id == team.id)))
    assert len(ids) == WORKERS

    gate = Gate(WORKERS, GATE_SECONDS)
    statuses = score_in_parallel(app_overrides["DATABASE_URL"], settings, ids, gate)

    assert statuses == ["scored"] * WORKERS
    with Session(app.extensions["db_engine"]) as fresh:
        rows = fresh.exec(select(Submission).where(col(Submission.id).in_(ids))).all()
    states = Counter(row.release_state for row in rows)
    assert states == {ReleaseState.RELEASED: 1, ReleaseState.HELD: WORKERS - 1}, states
    first = next(row for row in rows if row.release_state == ReleaseState.RELEASED)
    assert first.release_detail == {"first": True}
    held = [row for row in rows if row.held]
    assert {row.release_detail["against_id"] for row in held} == {first.id}
    assert not any(row.release_detail.get("not_comparable") for row in held)
