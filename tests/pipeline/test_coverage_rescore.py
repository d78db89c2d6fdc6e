"""A re-score keeps the rules a submission passed: raising MIN_ANSWERED_FRACTION later does not
turn a scored submission into an invalid one."""

from __future__ import annotations

import io

from sqlmodel import select

from leaderboard.models import Result, Submission, SubmissionStatus
from leaderboard.worker import jobs
from tests.demo import submission_doc, target_ids


def test_rescore_does_not_apply_a_newer_coverage_rule(app, client, session, benchmark,
                                                      team_token):
    _team, _user, token = team_token
    ids = target_ids()
    half = submission_doc({t: [["word", 1.0]] for t in ids[:7]})  # 7 of 13: passes at 0.5
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "half", "file": (io.BytesIO(half), "r.json")})
    sid = response.get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "scored"
    app.config["LEADERBOARD"]["MIN_ANSWERED_FRACTION"] = 0.9
    row = session.get(Submission, sid)
    row.status = SubmissionStatus.QUEUED  # what rescore_all does
    session.add(row)
    session.commit()
    assert jobs.score_submission_job(sid) == "scored"
    assert len(session.exec(select(Result).where(Result.submission_id == sid)).all()) == 2
    # A new upload of the same kind is held to the new rule.
    other = submission_doc({t: [["other", 1.0]] for t in ids[:7]})
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "half 2", "file": (io.BytesIO(other), "r.json")})
    assert jobs.score_submission_job(response.get_json()["id"]) == "invalid"
