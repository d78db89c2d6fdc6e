"""Each scoring job writes one JSON line with the submission id, outcome and duration."""

from __future__ import annotations

import json
import logging

from leaderboard.infra.logs import JOB_LOGGER
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.submissions import create_submission
from leaderboard.worker import jobs
from tests.demo import demo_bytes, submission_doc


def job_records(caplog):
    return [r for r in caplog.records if r.name == JOB_LOGGER]


def test_each_job_logs_one_line_with_its_submission_and_outcome(app, session, benchmark,
                                                                team_token, settings, caplog,
                                                                capsys):
    team, _user, _token = team_token
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    good = create_submission(session=session, team=team,
                                 board=import_board(session, benchmark), raw=demo_bytes(),
                             system_name="good", settings=settings).submission.id
    bad = create_submission(session=session, team=team,
                                 board=import_board(session, benchmark),
                            raw=submission_doc({"no-such-target": [["word", 1.0]]}),
                            system_name="bad", settings=settings).submission.id
    # The job logger does not propagate (its own JSON handler): let caplog see it directly.
    logging.getLogger(JOB_LOGGER).addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.INFO, logger=JOB_LOGGER):
            assert jobs.score_submission_job(good) == "scored"
            assert jobs.score_submission_job(bad) == "invalid"
            assert jobs.score_submission_job(good) == "scored"  # ran already: not claimed
    finally:
        logging.getLogger(JOB_LOGGER).removeHandler(caplog.handler)
    fields = [r.fields for r in job_records(caplog)]
    assert [(f["submission_id"], f["outcome"]) for f in fields] == [
        (good, "scored"), (bad, "invalid"), (good, "scored")]
    assert all(f["ms"] >= 0 and f["job_id"] is None for f in fields)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()
             if '"logger":"leaderboard.jobs"' in line]
    assert [(x["event"], x["submission_id"], x["outcome"]) for x in lines] == [
        ("job", good, "scored"), ("job", bad, "invalid"), ("job", good, "scored")]
