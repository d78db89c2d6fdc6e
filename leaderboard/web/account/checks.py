"""account blueprint: "Check file (free)" on the upload form. A worker checks the file
(:mod:`leaderboard.services.intake.checks`); the page shows its report, or reloads itself
until the report is ready."""

from __future__ import annotations

from flask import abort, current_app, g
from flask_limiter.util import get_remote_address
from flask_login import current_user, login_required
from wtforms.validators import Optional

from leaderboard.services.intake import submissions as service
from leaderboard.services.intake.checks import (
    TEAM_BUSY_RETRY_AFTER,
    ChecksBusy,
    TeamChecksBusy,
    check_outcome,
    checks_connection,
    start_and_wait,
)
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.submissions import (
    SubmitForm,
    board_or_503,
    own_team,
    render_form,
)
from leaderboard.web.dry_run_limit import team_dry_run_wait
from leaderboard.web.extensions import limiter


def _dry_run_limit() -> str:
    return current_app.config["LEADERBOARD"]["DRY_RUN_RATE_LIMIT"]


def _prefix() -> str:
    # The app's prefix goes in the key: the limiter is shared by every app in the process.
    return current_app.config.get("RATELIMIT_KEY_PREFIX", "")


def _dry_run_user_key() -> str:
    return f"dry-run:{_prefix()}:user:{getattr(current_user, 'id', None)}"


def _dry_run_ip_key() -> str:
    return f"dry-run:{_prefix()}:ip:{get_remote_address()}"


@bp.post("/submit/check")
@login_required
# Validation costs real CPU and memory: one budget per account and one per client address.
@limiter.limit(_dry_run_limit, key_func=_dry_run_user_key)
@limiter.limit(_dry_run_limit, key_func=_dry_run_ip_key)
def check_file():
    """Dry run from the form: the full validation report, nothing stored."""
    form = SubmitForm()
    form.name.validators = [Optional()]
    if not form.validate_on_submit():
        return render_form(form, 400)
    settings = current_app.config["LEADERBOARD"]
    team = own_team()
    wait = team_dry_run_wait(team.id)
    if wait is not None:
        g.outage_retry_after = wait
        return render_form(form, 429, error=SubmissionError(
            429, "rate_limited", f"Your team's checks are limited to "
            f"{settings['DRY_RUN_RATE_LIMIT']}; try again in {wait} seconds"))
    try:
        raw = service.read_limited(form.file.data.stream, settings["MAX_UPLOAD_BYTES"])
        check_id, outcome = start_and_wait(
            connection=checks_connection(), queue_name=settings["QUEUE_NAME"],
            board_id=board_or_503(form).id, team_id=team.id, raw=raw, settings=settings)
    except TeamChecksBusy:
        g.outage_retry_after = TEAM_BUSY_RETRY_AFTER
        return render_form(form, 429, error=SubmissionError(
            429, "too_many_checks", f"Your team has {settings['MAX_QUEUED_CHECKS_PER_TEAM']} "
            "files being checked; try again when one has answered"))
    except ChecksBusy:
        return render_form(form, 503, error=SubmissionError(
            503, "busy", "Too many files are being checked right now; try again in a few "
            "seconds (uploads for scoring are not affected)"))
    except SubmissionError as exc:
        return render_form(form, exc.status, error=exc)
    return _check_page(form, check_id, outcome)


@bp.get("/submit/check/<check_id>")
@login_required
def check_result(check_id: str):
    """A dry run still being checked: this page reloads itself until the report is ready."""
    settings = current_app.config["LEADERBOARD"]
    try:
        outcome = check_outcome(checks_connection(), settings["QUEUE_NAME"], check_id[:64],
                                own_team().id)
    except SubmissionError as exc:
        return render_form(SubmitForm(), exc.status, error=exc)
    return _check_page(SubmitForm(), check_id, outcome)


def _check_page(form: SubmitForm, check_id: str, outcome: dict | None):
    if outcome is None:
        abort(404)  # unknown, expired, or another team's check
    if "error" in outcome:
        error = outcome["error"]
        return render_form(form, error["status"],
                            error=SubmissionError(error["status"], error["code"],
                                                  error["message"]))
    if "report" in outcome:
        return render_form(form, 200, report=outcome["report"])
    return render_form(form, 202, checking=check_id)
