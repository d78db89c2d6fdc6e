"""Admin pages under /admin; one access check for the whole blueprint.

Views are thin: queries and actions live in ``services.admin`` and ``services.rescore``.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user
from flask_wtf import FlaskForm
from werkzeug.wrappers import Response
from wtforms import StringField
from wtforms.validators import Length

from leaderboard.db import get_session
from leaderboard.infra.queue import announce_visibility, get_redis
from leaderboard.models import SubmissionStatus
from leaderboard.services.catalog.boards import list_boards
from leaderboard.services.intake import admin as service
from leaderboard.services.ranking.ladder import held_message
from leaderboard.web.extensions import csrf

bp = Blueprint("admin", __name__, url_prefix="/admin")
# CSRF is checked in require_admin, after the admin check, so that nobody else can tell
# an admin route from a missing page (the global check would answer 400 first).
csrf.exempt(bp)


class ReasonForm(FlaskForm):
    """A CSRF-protected action with an optional (or, for hiding/disabling, required) reason."""

    reason = StringField("Reason", validators=[Length(max=1000)])


@bp.before_request
def require_admin():
    """Only signed-in admins reach any admin page."""
    if not current_user.is_authenticated or not current_user.is_admin:
        abort(404)
    if request.method not in ("GET", "HEAD", "OPTIONS"):
        csrf.protect()


def _settings() -> dict:
    return current_app.config["LEADERBOARD"]


def _int_arg(name: str) -> int | None:
    value = request.args.get(name, "")
    return int(value) if value.isdigit() else None


@bp.get("/")
def queue_page() -> str:
    """Queue health: database counts, RQ queue length, workers alive, failed jobs."""
    from leaderboard.services.intake import probing
    from leaderboard.services.intake.checks import checks_queue_name

    session = get_session()
    queue_name = _settings()["QUEUE_NAME"]
    health = service.queue_health(session, get_redis(), queue_name)
    # Comparing stored files is a worker's job: the page shows what one computed.
    flags = probing.stored_flags(get_redis(), queue_name, checks_queue_name(queue_name))
    return render_template("admin/queue.html", health=health, form=ReasonForm(),
                           audit=service.recent_audit(session, 20), near_duplicates=flags,
                           clusters=probing.address_clusters(session))


@bp.get("/submissions")
def submissions_page() -> str:
    """Every submission, newest first, filtered by status, team or leaderboard."""
    session = get_session()
    status = request.args.get("status") or None
    if status not in (None, *SubmissionStatus.ALL):
        status = None
    team_id, board_id = _int_arg("team"), _int_arg("leaderboard")
    rows = service.list_submissions(session, status=status, team_id=team_id,
                                    board_id=board_id)
    return render_template(
        "admin/submissions.html", rows=rows, form=ReasonForm(), statuses=SubmissionStatus.ALL,
        teams=[r["team"] for r in service.team_rows(session)],
        boards=[board for board, _bench in list_boards(session)],
        selected={"status": status, "team": team_id, "leaderboard": board_id},
        limit=service.MAX_ROWS, held_message=held_message)


@bp.post("/submissions/<int:submission_id>/<any(hide, unhide):action>")
def hide_submission(submission_id: int, action: str) -> Response:
    """Hide (with a reason) or unhide a submission; audited, ranking refreshed."""
    form = ReasonForm()
    if not form.validate_on_submit():
        abort(400)
    try:
        row = service.set_hidden(get_session(), submission_id=submission_id,
                                 hidden=action == "hide", reason=form.reason.data or "",
                                 actor_id=current_user.id, announce=announce_visibility)
        flash(f"Submission #{row.id} ({row.system_name}) is "
              f"{'hidden' if row.hidden else 'visible again'}.", "success")
    except service.AdminError as exc:
        flash(str(exc), "error")
    return redirect(request.referrer if _same_site(request.referrer)
                    else url_for("admin.submissions_page"))


@bp.get("/teams")
def teams_page() -> str:
    """Teams with members, submissions, state; disable/enable and quota reset."""
    return render_template("admin/teams.html", rows=service.team_rows(get_session()),
                           form=ReasonForm())


@bp.post("/teams/<int:team_id>/<any(disable, enable, 'reset-quota'):action>")
def team_action(team_id: int, action: str) -> Response:
    """Disable/enable a team or reset its quota window; audited."""
    form = ReasonForm()
    if not form.validate_on_submit():
        abort(400)
    session, reason = get_session(), form.reason.data or ""
    try:
        if action == "reset-quota":
            team = service.reset_quota(session, team_id=team_id, reason=reason,
                                       actor_id=current_user.id)
            flash(f"Quota of {team.name} reset: earlier submissions no longer count.", "success")
        else:
            team = service.set_team_disabled(session, team_id=team_id,
                                             disabled=action == "disable", reason=reason,
                                             actor_id=current_user.id,
                                             announce=announce_visibility)
            flash(f"Team {team.name} is {'disabled' if team.disabled else 'enabled'}.",
                  "success")
    except service.AdminError as exc:
        flash(str(exc), "error")
    return redirect(url_for("admin.teams_page"))


@bp.post("/rescore")
def rescore() -> Response:
    """Re-score everything scored by an older scorer version (the button on the queue page)."""
    from leaderboard.services.intake.rescore import rescore_all

    form = ReasonForm()
    if not form.validate_on_submit():
        abort(400)
    session = get_session()
    report = rescore_all(session=session, connection=get_redis(),
                         queue_name=_settings()["QUEUE_NAME"],
                         job_timeout=_settings()["JOB_TIMEOUT"])
    service.audit(session, actor_id=current_user.id, action="rescore_all",
                  object_type="submission", object_id=None, reason=report.summary())
    session.commit()
    flash(report.summary() + ".", "success")
    return redirect(url_for("admin.queue_page"))


def _same_site(url: str | None) -> bool:
    return bool(url) and url.startswith(request.host_url + "admin/")
