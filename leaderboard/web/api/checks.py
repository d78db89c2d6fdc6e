"""api blueprint: dry runs. The web process stores the file and waits for a worker's report
(:mod:`leaderboard.services.intake.checks`); it never parses the file itself."""

from __future__ import annotations

from typing import Any

from flask import current_app, g, jsonify, url_for

from leaderboard.services.intake.checks import (
    TEAM_BUSY_RETRY_AFTER,
    ChecksBusy,
    TeamChecksBusy,
    check_outcome,
    checks_connection,
    start_and_wait,
)
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.web.api.blueprint import bp, token_required
from leaderboard.web.api.submissions import (
    board_from_request,
    error_response,
    rate_limited,
    read_upload,
    submission_error,
)
from leaderboard.web.dry_run_limit import team_dry_run_wait


@bp.post("/validate")
@rate_limited
@token_required("submit")
def validate():
    """Dry run: the full validation report (by a worker); nothing stored, no quota used.

    200 with the report when the check ends within CHECK_WAIT_SECONDS, else 202 with a
    ``check_url`` to poll; 429 past the team's DRY_RUN_RATE_LIMIT or while
    MAX_QUEUED_CHECKS_PER_TEAM of its checks wait; 503 ``busy`` when too many checks wait."""
    settings = current_app.config["LEADERBOARD"]
    wait = team_dry_run_wait(g.api_team.id)
    if wait is not None:
        return _retry_later(429, "rate_limited", f"your team's dry runs are limited to "
                            f"{settings['DRY_RUN_RATE_LIMIT']}; retry after {wait} s", wait)
    try:
        board = board_from_request()
        raw, _filename = read_upload(settings)
        check_id, outcome = start_and_wait(
            connection=checks_connection(), queue_name=settings["QUEUE_NAME"], board_id=board.id,
            team_id=g.api_team.id, raw=raw, settings=settings)
    except TeamChecksBusy:
        return _retry_later(429, "too_many_checks", f"your team has "
                            f"{settings['MAX_QUEUED_CHECKS_PER_TEAM']} checks waiting or "
                            "running; retry when one has answered", TEAM_BUSY_RETRY_AFTER)
    except ChecksBusy:
        return submission_error(SubmissionError(
            503, "busy", "too many files are being checked right now; retry in a few "
            "seconds (uploads for scoring are not affected)"))
    except SubmissionError as exc:
        return submission_error(exc)
    return _check_response(check_id, outcome)


@bp.get("/validate/<check_id>")
@rate_limited
@token_required("submit")
def validation_result(check_id: str):
    """A dry run's report once ready (202 while it is checked); 404 for an unknown, expired
    or another team's check."""
    settings = current_app.config["LEADERBOARD"]
    try:
        outcome = check_outcome(checks_connection(), settings["QUEUE_NAME"], check_id[:64],
                                g.api_team.id)
    except SubmissionError as exc:
        return submission_error(exc)
    return _check_response(check_id, outcome)


def _retry_later(status: int, code: str, message: str, seconds: int):
    response, status = error_response(status, code, message, retry_after=seconds)
    response.headers["Retry-After"] = str(seconds)
    g.outage_retry_after = seconds  # kept over Flask-Limiter's header
    return response, status


def _check_response(check_id: str, outcome: dict[str, Any] | None):
    if outcome is None:
        return error_response(404, "not_found", "no such check (they are kept 10 minutes)")
    if "error" in outcome:
        error = outcome["error"]
        return error_response(error["status"], error["code"], error["message"])
    if "report" in outcome:
        return jsonify(outcome["report"])
    url = url_for("api.validation_result", check_id=check_id, _external=True)
    response = jsonify({"status": "checking", "check_id": check_id, "check_url": url})
    response.status_code = 202
    response.headers["Location"] = url
    response.headers["Retry-After"] = "2"
    g.outage_retry_after = 2  # kept over Flask-Limiter's header
    return response
