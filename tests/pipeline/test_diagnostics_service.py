"""The diagnostics service: its gate, its query parsing and its per-submission cache."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from leaderboard.models import Split
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake import diagnostics
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from tests.dev_split import dev_split_bytes, dev_submission_bytes


def test_query_defaults_and_refusals():
    assert diagnostics.parse_query(MultiDict()) == diagnostics.TargetQuery("f", "asc", None, None)
    assert diagnostics.parse_query(MultiDict({"sort": "gap_rat", "dir": "desc", "pos": "noun",
                                              "limit": "5"})) == diagnostics.TargetQuery(
        "gap_rat", "desc", "NOUN", 5)
    assert diagnostics.parse_query(MultiDict({"pos": "ALL", "limit": "all"})).pos is None
    for args, message in (({"dir": "up"}, "dir must be asc"), ({"pos": "X"}, "pos must be"),
                          ({"limit": "0"}, "limit must be"), ({"limit": "-3"}, "limit must")):
        with pytest.raises(ValueError, match=message):
            diagnostics.parse_query(MultiDict(args))


def test_cached_per_submission_and_closed_when_the_split_is_hidden(app, session, team_token,
                                                                   settings):
    """A web request gets the rows from a worker's job (here run in this process, the way
    a worker runs it) through Redis, then keeps them; nothing is parsed in the request."""
    from rq.job import Job, JobStatus

    from leaderboard.infra.queue import get_redis
    from leaderboard.services.intake.checks import checks_connection
    from leaderboard.services.intake.diagnostics_store import stored_outcome
    from leaderboard.worker import jobs
    from tests.jobs import drain

    team, _user, _token = team_token
    settings.update(CHECK_WAIT_SECONDS=0)
    diagnostics.clear_cache()  # an earlier test's submission 1 may have had the same file
    settings = app.config["LEADERBOARD"]
    bench = import_benchmark(session=session, raw=dev_split_bytes(), name="tiny", version="1",
                             split="dev", hidden=False, bootstrap=0)
    board = import_board(session, bench)
    row = create_submission(session=session, team=team, board=board,
                            raw=dev_submission_bytes(), system_name="s",
                            settings=settings).submission
    with pytest.raises(diagnostics.DiagnosticsUnavailable) as queued:
        diagnostics.target_rows(session, row, settings)
    assert (queued.value.status, queued.value.code) == (409, "not_scored")
    assert score_submission_now(engine_or_session=app.extensions["db_engine"],
                                submission_id=row.id, settings=settings) == "scored"
    session.refresh(row)
    with app.test_request_context():
        with pytest.raises(diagnostics.DiagnosticsUnavailable) as preparing:
            diagnostics.target_rows(session, row, settings)  # queued for a worker
        assert (preparing.value.status, preparing.value.code) == (503, "preparing")
        key = diagnostics.rows_key(row, session.get(Split, bench.id))
        assert stored_outcome(get_redis(), settings["QUEUE_NAME"], key) is None
        # A job that raised (RQ marks it failed) answers an error at once, not "preparing".
        job = Job.fetch(f"diagnose-{settings['QUEUE_NAME']}-{row.id}-{key[1][:16]}",
                        connection=checks_connection())
        job.set_status(JobStatus.FAILED)
        with pytest.raises(diagnostics.DiagnosticsUnavailable) as failed:
            diagnostics.target_rows(session, row, settings)
        assert (failed.value.status, failed.value.code) == (500, "failed")
        job.set_status(JobStatus.QUEUED)
        jobs.configure(settings=settings, engine=app.extensions["db_engine"])
        drain(get_redis(), settings)
        assert stored_outcome(get_redis(), settings["QUEUE_NAME"], key)[0] == "rows"
        _board, first = diagnostics.target_rows(session, row, settings)
        _board, again = diagnostics.target_rows(session, row, settings)
    assert again is first and len(first) == 3  # the second call is the cached list
    # Belt and braces: a dev board whose split was somehow marked hidden shows nothing.
    hidden = session.get(Split, bench.id)
    hidden.hidden = True
    session.add(hidden)
    session.commit()
    with app.test_request_context(), \
            pytest.raises(diagnostics.DiagnosticsUnavailable) as refused:
        diagnostics.target_rows(session, row, settings)
    assert (refused.value.status, refused.value.code) == (404, "not_found")
