"""One team's dry runs cannot hold up the others: a budget per team across tokens and the
form, a bounded share of the checks queue per team, and workers that alternate between
checks and scoring (real workers on a real Redis)."""

from __future__ import annotations

import io
import time

from leaderboard.infra.queue import get_redis
from leaderboard.models import SubmissionStatus, Team
from leaderboard.services.intake.checks import check_outcome
from tests.demo import demo_bytes
from tests.factories import make_team, make_token
from tests.jobs import wait_for_status
from tests.pipeline.test_web import form_data, logged_in
from tests.pipeline.test_worker import upload


def _check(client, token):
    return client.post("/api/v1/validate", data={"file": (io.BytesIO(demo_bytes()), "r.json")},
                       headers={"Authorization": f"Bearer {token}"},
                       content_type="multipart/form-data")


def test_a_teams_dry_runs_share_one_budget_across_its_tokens(client, session, benchmark,
                                                             team_token, settings):
    """DRY_RUN_RATE_LIMIT counts a team's API dry runs, whichever token sends them, as the
    form does; another team keeps its own budget."""
    team, _user, token = team_token
    second_token = make_token(session, team, name="laptop")
    _other, _ = make_team(session, name="Lab Two", email="two@example.org")
    other_token = make_token(session, _other)
    settings.update(DRY_RUN_RATE_LIMIT="3 per minute", CHECK_WAIT_SECONDS=0,
                    MAX_QUEUED_CHECKS=50, MAX_QUEUED_CHECKS_PER_TEAM=50)
    statuses = [_check(client, t).status_code for t in (token, second_token, token)]
    assert statuses == [202, 202, 202]
    refused = _check(client, second_token)
    assert refused.status_code == 429
    assert refused.get_json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert _check(client, other_token).status_code == 202


def test_a_team_whose_checks_fill_its_share_is_told_to_retry(client, session, benchmark,
                                                             team_token, settings):
    """Past MAX_QUEUED_CHECKS_PER_TEAM waiting checks the team's next one is a 429 with
    Retry-After (its bytes not kept), and another team's check is still queued."""
    _team, _user, token = team_token
    other, _ = make_team(session, name="Lab Two", email="two@example.org")
    other_token = make_token(session, other)
    settings.update(CHECK_WAIT_SECONDS=0, MAX_QUEUED_CHECKS=50, MAX_QUEUED_CHECKS_PER_TEAM=2)
    assert [_check(client, token).status_code for _ in range(2)] == [202, 202]
    refused = _check(client, token)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "5"
    assert refused.get_json()["error"]["code"] == "too_many_checks"
    assert _check(client, other_token).status_code == 202
    with client.application.app_context():
        stored = get_redis().keys(f"leaderboard:check:{settings['QUEUE_NAME']}:*")
    assert len(stored) == 3


def test_an_upload_is_scored_while_another_teams_flood_of_checks_waits(
        app, client, session, benchmark, team_token, settings, start_worker):
    """Twelve dry runs of one team queued, then another team's upload: the worker takes the
    upload after one check, not after the flood (it alternates between its queues)."""
    _team, _user, flood_token = team_token
    other, _ = make_team(session, name="Lab Two", email="two@example.org")
    settings.update(CHECK_WAIT_SECONDS=0, MAX_QUEUED_CHECKS=50, MAX_QUEUED_CHECKS_PER_TEAM=50)
    flood = [_check(client, flood_token).get_json()["check_id"] for _ in range(12)]
    sid = upload(client, make_token(session, other), demo_bytes("demo_baseline"))
    start_worker()
    row = wait_for_status(session, sid, (SubmissionStatus.SCORED, SubmissionStatus.FAILED))
    assert row.status == SubmissionStatus.SCORED, row.failure_reason
    with app.app_context():
        connection = get_redis()
        waiting = [c for c in flood if check_outcome(connection, settings["QUEUE_NAME"], c,
                                                     _team.id)["state"] == "pending"]
        assert len(waiting) >= 6, "the upload waited behind the other team's checks"
        deadline = time.monotonic() + 60
        while waiting and time.monotonic() < deadline:   # and the flood is checked after it
            time.sleep(0.2)
            waiting = [c for c in waiting if check_outcome(
                connection, settings["QUEUE_NAME"], c, _team.id)["state"] == "pending"]
    assert waiting == []


def test_the_form_and_the_api_spend_one_team_budget(client, session, benchmark, settings):
    """Two API checks and one "Check file" of the same team use its three; the next, either
    way, is refused with Retry-After."""
    user = logged_in(client, session)
    token = make_token(session, session.get(Team, user.team_id))
    settings.update(DRY_RUN_RATE_LIMIT="3 per minute", CHECK_WAIT_SECONDS=0,
                    MAX_QUEUED_CHECKS=50, MAX_QUEUED_CHECKS_PER_TEAM=50)
    assert [_check(client, token).status_code for _ in range(2)] == [202, 202]
    form = client.post("/account/submit/check", data=form_data(client, demo_bytes()))
    assert form.status_code == 202
    refused = client.post("/account/submit/check", data=form_data(client, demo_bytes()))
    assert refused.status_code == 429 and "Your team&#39;s checks are limited" in \
        refused.get_data(as_text=True)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert _check(client, token).status_code == 429
