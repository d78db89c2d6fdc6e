"""A team's one released first result on a Ladder board, under parallel workers and shared
mailboxes, on SQLite and PostgreSQL.

A new team uploads five files at once to a hidden-label board and five workers score them at
the same moment, each job with its own engine (its own connections), as five worker processes
would. Exactly one of the five may be released as the team's first result: the other four
are compared with it and held. Before the decision was serialised, all five read "no
released best" and 2 to 5 of them were released, each with every per-POS number.

Left to chance, the five jobs reach the decision within a few milliseconds of each other
often but not always: a gate (:mod:`tests.gate`) on each job's engine lines up their reads
of the team's released results.

The free first result belongs to a verified mailbox, not to a team: a team on a mailbox that
another team's verified member is on (accounts from before the one-account-per-mailbox rule)
is compared with that team's best, and held like any probe.
"""

from __future__ import annotations

import threading
from collections import Counter

from sqlmodel import Session, col, select

from leaderboard.db import make_engine
from leaderboard.models import Release, ReleaseState, Submission, Team, User, utcnow
from leaderboard.services.intake.results import score_submission_now
from tests.backends import ALL_DATABASES
from tests.factories import make_team, make_token
from tests.gate import StatementGate
from tests.pipeline.test_quota_race import distinct_files, parallel_uploads

WORKERS = 5
#: How long the first job at the gate waits for the others before the gate opens for good.
GATE_SECONDS = 5.0
#: In the Ladder's read of a team's released results.
RELEASED_READ = "FROM submission JOIN result"


def score_in_parallel(database_url: str, settings: dict, ids: list[int],
                      gate: StatementGate) -> list[str]:
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

    gate = StatementGate(RELEASED_READ, WORKERS, GATE_SECONDS)
    statuses = score_in_parallel(app_overrides["DATABASE_URL"], settings, ids, gate)

    assert statuses == ["scored"] * WORKERS
    rows = _rows(app, ids)
    states = Counter(row.release_state for row in rows)
    assert states == {ReleaseState.RELEASED: 1, ReleaseState.HELD: WORKERS - 1}, states
    first = next(row for row in rows if row.release_state == ReleaseState.RELEASED)
    assert first.release_detail == {"first": True}
    held = [row for row in rows if row.held]
    assert {row.release_detail["against_id"] for row in held} == {first.id}
    assert not any(row.release_detail.get("not_comparable") for row in held)


def _rows(app, ids: list[int]) -> list[Submission]:
    with Session(app.extensions["db_engine"]) as fresh:
        return list(fresh.exec(select(Submission).where(col(Submission.id).in_(ids))
                               .order_by(Submission.id)).all())


def _legacy_team(session, name: str, *emails: str, verified: bool = True) -> Team:
    """A team whose members were made before one account per mailbox (rows as migration
    0009 leaves them; the sign-up would refuse them now)."""
    team = Team(name=name)
    session.add(team)
    session.flush()
    for email in emails:
        session.add(User(email=email, password_hash="!", team_id=team.id,
                         email_verified_at=utcnow() if verified else None))
    session.commit()
    return team


def _upload(app, session, team: Team, files: list[bytes]) -> list[int]:
    token = make_token(session, team, name=f"t{len(files)}")
    assert parallel_uploads(app, token, files, [None] * len(files)) == [202] * len(files)
    return list(session.exec(select(Submission.id).where(Submission.team_id == team.id)
                             .order_by(Submission.id)))


@ALL_DATABASES
def test_a_new_team_on_a_used_mailbox_gets_no_fresh_first_result(app, board, session, settings):
    files = distinct_files(4)
    first_team, _user = make_team(session, name="First Lab", email="me+1@x.org")
    [first] = _upload(app, session, first_team, files[:1])
    assert score_submission_now(engine_or_session=session, submission_id=first,
                                settings=settings) == "scored"
    # The same inbox, verified, in a team made before the rule: no free first result.
    second_team = _legacy_team(session, "Second Lab", "Me+2@X.org")
    # A verified mailbox of its own, beside an unverified address of the used one: free.
    third_team = _legacy_team(session, "Third Lab", "me+3@x.org", verified=False)
    session.add(User(email="third@y.org", password_hash="!", team_id=third_team.id,
                     email_verified_at=utcnow()))
    session.commit()
    [second] = _upload(app, session, second_team, files[1:2])
    [third] = _upload(app, session, third_team, files[2:3])
    for sid in (second, third):
        assert score_submission_now(engine_or_session=session, submission_id=sid,
                                    settings=settings) == "scored"

    rows = {row.id: row for row in _rows(app, [first, second, third])}
    assert rows[first].release_detail == {"first": True}
    assert rows[second].release_state == ReleaseState.HELD
    # Held against the other team's best, which it is not told about.
    assert rows[second].release_detail == {"metric": "strict_a_f@10",
                                           "metric_label": "F^10 strict", "alpha": 0.05,
                                           "mailbox": True}
    assert rows[third].release_detail == {"first": True}
    client = app.test_client()
    token = make_token(session, second_team, name="read")
    body = client.get(f"/api/v1/submissions/{second}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["result"] is None
    assert body["release"]["state"] == "held"
    assert body["release"]["against"] == {"id": None, "system_name": None,
                                          "metric": "strict_a_f@10", "value": None}
    assert body["release"]["message"] == (
        "held: not significantly better than the best released result of another team on "
        "your verified mailbox (one first result per mailbox and board), F^10 strict "
        "(p ≥ 0.05, one-sided paired bootstrap)")


@ALL_DATABASES
def test_two_teams_on_one_mailbox_scored_at_once_release_exactly_one(app, board, session,
                                                                     settings, app_overrides):
    """Three uploads of one team and two of another on the same verified mailbox, scored by
    five workers at once: each decision locks both teams, so one of the five is released."""
    files = distinct_files(WORKERS)
    one, _user = make_team(session, name="One Lab", email="me@x.org")
    other = _legacy_team(session, "Other Lab", "me+other@x.org")
    ids = _upload(app, session, one, files[:3]) + _upload(app, session, other, files[3:])
    gate = StatementGate(RELEASED_READ, WORKERS, GATE_SECONDS)
    statuses = score_in_parallel(app_overrides["DATABASE_URL"], settings, ids, gate)
    assert statuses == ["scored"] * WORKERS
    states = Counter(row.release_state for row in _rows(app, ids))
    assert states == {ReleaseState.RELEASED: 1, ReleaseState.HELD: WORKERS - 1}, states
