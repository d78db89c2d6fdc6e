"""During a re-score, re-queued submissions keep their previous numbers on the ranking."""

from __future__ import annotations

from sqlmodel import select

from leaderboard.models import Board, Submission, SubmissionStatus
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.ops.test_rescore import _demo_scored


def ranked(session, board_id) -> dict[int, dict]:
    snapshot = refresh_snapshot(session=session, board_id=board_id)
    session.commit()
    return {s["id"]: s["metrics"] for s in snapshot.data["systems"]}


def set_status(session, submission_id, status) -> None:
    row = session.get(Submission, submission_id)
    row.status = status
    session.add(row)
    session.commit()


def test_requeued_and_running_rows_stay_ranked_with_their_previous_numbers(runner, app, session):
    rows = _demo_scored(runner, app, session)
    bench_id = session.exec(select(Board.id)).first()
    before = ranked(session, bench_id)
    assert sorted(before) == sorted(r.id for r in rows)

    result = runner.invoke(args=["rescore", "--all", "--force"])
    assert result.output.startswith("3 submission(s) re-queued"), result.output
    session.expire_all()
    assert {session.get(Submission, r.id).status for r in rows} == {SubmissionStatus.QUEUED}
    assert ranked(session, bench_id) == before

    set_status(session, rows[0].id, SubmissionStatus.RUNNING)
    assert ranked(session, bench_id) == before

    set_status(session, rows[0].id, SubmissionStatus.QUEUED)
    assert score_submission_now(engine_or_session=app.extensions["db_engine"],
                                submission_id=rows[0].id,
                                settings=app.config["LEADERBOARD"]) == "scored"
    assert ranked(session, bench_id) == before  # same scorer rules, same numbers

    # A file the new scorer rejects leaves the ranking; a hidden one never shows.
    set_status(session, rows[1].id, SubmissionStatus.INVALID)
    hidden = session.get(Submission, rows[2].id)
    hidden.hidden = True
    session.add(hidden)
    session.commit()
    assert ranked(session, bench_id) == {rows[0].id: before[rows[0].id]}
