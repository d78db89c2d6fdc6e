"""Quotas with a frozen clock: daily and total scored quotas, the attempt cap, 429 bodies."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from leaderboard.models import Submission, SubmissionStatus
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.quotas import quota_status
from leaderboard.services.intake.submissions import SubmissionError, create_submission
from tests.factories import make_team, make_token

NOON = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def upload(session, team, benchmark, settings, n, now, status=None):
    raw = json.dumps({"substitutes": {}, "n": n}).encode()
    accepted = create_submission(session=session, team=team,
                                 board=import_board(session, benchmark), raw=raw,
                                 system_name=f"s{n}", settings=settings, now=now)
    if status:
        accepted.submission.status = status
        session.add(accepted.submission)
        session.commit()
    return accepted.submission


def test_daily_quota_counts_scored_and_pending_but_not_invalid_or_failed(session, benchmark,
                                                                         settings):
    team, _ = make_team(session)
    settings.update(DAILY_SCORED_QUOTA=2, DAILY_ATTEMPT_CAP=20)
    upload(session, team, benchmark, settings, 1, NOON, SubmissionStatus.SCORED)
    upload(session, team, benchmark, settings, 2, NOON, SubmissionStatus.INVALID)
    upload(session, team, benchmark, settings, 3, NOON, SubmissionStatus.FAILED)
    upload(session, team, benchmark, settings, 4, NOON)  # queued counts
    quota = quota_status(session=session, team=team, board=import_board(session, benchmark),
                         settings=settings, now=NOON)
    assert (quota.scored_today, quota.attempts_today, quota.remaining_today) == (2, 4, 0)
    with pytest.raises(SubmissionError) as refused:
        upload(session, team, benchmark, settings, 5, NOON)
    assert (refused.value.status, refused.value.code) == (429, "quota_exceeded")
    assert refused.value.message == "daily quota reached (2 scored submissions per day)"
    assert refused.value.resets_at == datetime(2026, 11, 22, tzinfo=UTC)
    # The next UTC day starts afresh.
    tomorrow = NOON + timedelta(hours=12, minutes=1)
    assert upload(session, team, benchmark, settings, 6, tomorrow).created_at == tomorrow


def test_attempt_cap_stops_endless_invalid_uploads(session, benchmark, settings):
    team, _ = make_team(session)
    settings.update(DAILY_ATTEMPT_CAP=3)
    for n in range(3):
        upload(session, team, benchmark, settings, n, NOON, SubmissionStatus.INVALID)
    with pytest.raises(SubmissionError) as refused:
        upload(session, team, benchmark, settings, 9, NOON)
    assert refused.value.message == ("daily attempt cap reached (3 uploads today, including "
                                     "invalid ones)")


def test_total_quota_does_not_reset_by_itself(session, benchmark, settings):
    team, _ = make_team(session)
    settings.update(TOTAL_SCORED_QUOTA=1)
    upload(session, team, benchmark, settings, 1, NOON - timedelta(days=3),
           SubmissionStatus.SCORED)
    with pytest.raises(SubmissionError) as refused:
        upload(session, team, benchmark, settings, 2, NOON)
    assert refused.value.resets_at is None
    team.quota_reset_at = NOON - timedelta(hours=1)  # the admin's reset
    session.add(team)
    session.commit()
    assert upload(session, team, benchmark, settings, 3, NOON).status == "queued"


def test_api_429_says_when_the_quota_resets(client, session, benchmark, settings, team_token):
    team, _user, token = team_token
    settings.update(DAILY_SCORED_QUOTA=1)
    session.add(Submission(team_id=team.id, split_id=benchmark.id,
                           board_id=import_board(session, benchmark).id, system_name="old",
                           file_bytes=b"{}", file_sha256="1" * 64, status="scored"))
    session.commit()
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "x", "file": (io.BytesIO(b'{"substitutes":{}}'), "r")})
    assert response.status_code == 429
    error = response.get_json()["error"]
    assert error["code"] == "quota_exceeded"
    assert error["message"] == "daily quota reached (1 scored submissions per day)"
    midnight = datetime.combine(datetime.now(UTC).date() + timedelta(days=1),
                                datetime.min.time(), tzinfo=UTC)
    assert error["resets_at"] == midnight.isoformat()
    # Flask-Limiter's after_request rewrites the header with its own rounding.
    assert abs(int(response.headers["Retry-After"]) - error["retry_after"]) <= 2
    assert error["retry_after"] > 0


def test_api_rate_limit_is_429_with_retry_after(app, client, benchmark, team_token):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["API_RATE_LIMIT"] = "2 per minute"
    headers = {"Authorization": f"Bearer {token}"}
    statuses = []
    for _ in range(6):  # a minute boundary may reset the fixed window once
        limited = client.get("/api/v1/submissions", headers=headers)
        statuses.append(limited.status_code)
        if limited.status_code == 429:
            break
    assert statuses[:2] == [200, 200] and statuses[-1] == 429, statuses
    body = limited.get_json()["error"]
    assert body["code"] == "rate_limited" and 0 < body["retry_after"] <= 61
    assert int(limited.headers["Retry-After"]) > 0


def limited_after_two(requests):
    """Call ``requests[i % len]`` until a 429; the budget of 2 allows exactly two."""
    statuses = []
    for i in range(9):  # a minute boundary may reset the fixed window once
        response = requests[i % len(requests)]()
        statuses.append(response.status_code)
        if response.status_code == 429:
            return statuses, response
    raise AssertionError(statuses)


def test_api_rate_limit_is_one_budget_per_token_across_endpoints(app, client, benchmark,
                                                                team_token):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["API_RATE_LIMIT"] = "2 per minute"
    headers = {"Authorization": f"Bearer {token}"}
    # Each call from another IP: only the token's budget can run out.
    calls = [lambda i=i, path=path: client.get(path, headers=headers,
                                               environ_base={"REMOTE_ADDR": f"10.0.0.{i}"})
             for i, path in enumerate(("/api/v1/submissions", "/api/v1/leaderboard",
                                       "/api/v1/submissions/999999"), start=1)]
    statuses, limited = limited_after_two(calls)
    assert statuses[-1] == 429 and 3 <= len(statuses) <= 5, statuses
    body = limited.get_json()["error"]
    assert body["code"] == "rate_limited" and 0 < body["retry_after"] <= 61
    assert body["message"].startswith("too many requests (2 per 1 minute); retry after ")
    assert int(limited.headers["Retry-After"]) > 0


def test_api_rate_limit_is_one_budget_per_ip_across_tokens_and_endpoints(app, client, session,
                                                                        benchmark, team_token):
    _team, _user, token = team_token
    other = make_token(session, make_team(session, name="Lab Two")[0])
    app.config["LEADERBOARD"]["API_RATE_LIMIT"] = "2 per minute"
    calls = [lambda: client.get("/api/v1/submissions",
                                headers={"Authorization": f"Bearer {token}"}),
             lambda: client.get("/api/v1/leaderboard"),
             lambda: client.get("/api/v1/submissions",
                                headers={"Authorization": f"Bearer {other}"})]
    statuses, limited = limited_after_two(calls)
    assert statuses[-1] == 429 and 3 <= len(statuses) <= 5, statuses
    assert limited.get_json()["error"]["code"] == "rate_limited"
