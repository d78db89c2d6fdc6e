"""account blueprint: the upload form (with a free "check file"), the team's submissions, the
submission page with its live status, and the publish toggle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from flask import (
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional

from leaderboard.db import get_session
from leaderboard.models import Board, Split, Submission, SubmissionStatus, System, Team
from leaderboard.services.access.verification import require_verified, team_is_verified
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.catalog.boards import (
    BoardError,
    benchmark_title,
    board_family,
    board_or_default,
    board_title,
    board_views,
    list_boards,
    view_set,
)
from leaderboard.services.intake import submissions as service
from leaderboard.services.intake.quotas import quota_status
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.services.intake.systems import team_systems
from leaderboard.services.ranking.ladder import release_dict
from leaderboard.web.account.blueprint import bp


class SubmitForm(FlaskForm):
    """A result file and what to show about the system."""

    leaderboard = SelectField("Leaderboard", validate_choice=False)
    file = FileField("Result file",
                     validators=[FileRequired(message="Choose a result file.")])
    name = StringField("System", render_kw={"list": "team-systems"}, validators=[
        DataRequired(message="Choose a system or enter a new name."), Length(max=120)])
    description = TextAreaField("Description", validators=[Optional(), Length(max=5000)])
    paper_url = StringField("Paper URL", validators=[Optional(), Length(max=500)])
    code_url = StringField("Code URL", validators=[Optional(), Length(max=500)])
    public = BooleanField("Show on the public ranking once scored")
    anonymous = BooleanField("Anonymous, for double-blind review (the public sees "
                             "\"Anonymous\" and a short id, not your team, links or "
                             "description, until it is revealed)")
    reveal_on = StringField("Reveal on (YYYY-MM-DD; empty: when you reveal it)",
                            validators=[Optional(), Length(max=10)])


#: The system's metadata the upload form sets (on a new system, or as edits of an old one).
METADATA_FIELDS = ("description", "paper_url", "code_url", "reveal_on")


class VisibilityForm(FlaskForm):
    """Publish/unpublish (the CSRF token is the whole form)."""


def own_team() -> Team:
    if current_user.team_id is None:
        abort(403, description="Submissions belong to a team, and this account has none.")
    return get_session().get(Team, current_user.team_id)


def _own(submission_id: int):
    try:
        return service.team_submission(session=get_session(), team_id=current_user.team_id,
                                       submission_id=submission_id)
    except SubmissionError:
        abort(404)  # another team's id looks exactly like a missing one


def _offer_boards(form: SubmitForm) -> list[tuple[Board, Split]]:
    """Every board as a choice of the form (``?leaderboard=`` preselects one)."""
    boards = list_boards(get_session())
    form.leaderboard.choices = [(b.slug, board_title(b, bench)) for b, bench in boards]
    if not form.leaderboard.data:
        form.leaderboard.data = request.args.get("leaderboard") or (
            boards[0][0].slug if boards else "")
    return boards


def _chosen_board(form: SubmitForm) -> Board | None:
    try:
        return board_or_default(get_session(), form.leaderboard.data or None)
    except BoardError as exc:
        abort(404, description=str(exc))


def render_form(form: SubmitForm, status: int = 200, report: dict | None = None,
                 error: SubmissionError | None = None, checking: str | None = None):
    settings = current_app.config["LEADERBOARD"]
    session = get_session()
    boards = _offer_boards(form)
    board = _chosen_board(form)
    quota = (quota_status(session=session, team=own_team(), board=board, settings=settings)
             if board is not None else None)
    benchmark = get_split(session, board.split_id) if board is not None else None
    needs_verification = bool(benchmark is not None and benchmark.hidden
                              and not team_is_verified(session, current_user.team_id))
    return render_template("submissions/submit.html", form=form, quota=quota, report=report,
                           error=error, board=board, benchmark=benchmark,
                           boards=_described(boards),
                           settings=settings, needs_verification=needs_verification,
                           checking=checking,
                           systems=team_systems(session, current_user.team_id)), status


def _described(boards: list[tuple[Board, Split]]) -> list[dict]:
    """What the form's header says of each board: the chosen one's is shown, and submit.js
    shows another's when the select changes (its split, formats and inputs differ)."""
    return [{"board": board, "bench": bench, "views": view_set(board.track, bench.name),
             "title": f"{benchmark_title(bench)} {bench.split}",
             "inputs": url_for("downloads.split_inputs", name=bench.name,
                               version=bench.version, split=bench.split)}
            for board, bench in boards]


def board_or_503(form: SubmitForm) -> Board:
    _offer_boards(form)
    board = _chosen_board(form)
    if board is None:
        abort(503, description="No benchmark split is loaded yet.")
    return board


@bp.get("/submit")
@login_required
def submit():
    """The upload form, with the team's remaining quota on the chosen leaderboard."""
    return render_form(SubmitForm())


@bp.post("/submit")
@login_required
def create_submission():
    """Store the upload, enqueue it and go to its page (303)."""
    from leaderboard.infra.queue import enqueue_committed

    form = SubmitForm()
    if not form.validate_on_submit():
        return render_form(form, 400)
    settings = current_app.config["LEADERBOARD"]
    session = get_session()
    try:
        board = board_or_503(form)
        require_verified(session, own_team(), get_split(session, board.split_id))
        raw = service.read_limited(form.file.data.stream, settings["MAX_UPLOAD_BYTES"])
        accepted = service.create_submission(
            session=session, team=own_team(), board=board, raw=raw,
            system_name=form.name.data or "", settings=settings,
            metadata={**{key: getattr(form, key).data or "" for key in METADATA_FIELDS},
                      "anonymous": bool(form.anonymous.data)},
            filename=form.file.data.filename or "",
            is_public=bool(form.public.data), submitted_by_id=current_user.id)
    except SubmissionError as exc:
        return render_form(form, exc.status, error=exc)
    submission = accepted.submission
    if accepted.created:
        enqueue_committed(submission.id)
        flash("Uploaded. Scoring starts as soon as a worker is free.", "success")
    else:
        flash("This exact file was already submitted; here is that submission.", "info")
    return redirect(url_for("account.submission", submission_id=submission.id), 303)


@bp.get("/submissions")
@login_required
def submissions():
    """The team's submissions, newest first."""
    team = own_team()
    session = get_session()
    rows = service.list_team_submissions(session=session, team_id=team.id)
    titles = {board.id: board_title(board, bench) for board, bench in list_boards(session)}
    return render_template("submissions/list.html", submissions=rows, board_titles=titles)


@bp.get("/submissions/<int:submission_id>")
@login_required
def submission(submission_id: int):
    """One submission: live status, every problem, or the full results and signature."""
    row = _own(submission_id)
    board = get_session().get(Board, row.board_id)
    result = service.current_result(get_session(), row)
    shown = service.track_metrics(board_views(board), result.metrics) if result else {}
    return render_template("submissions/detail.html", submission=row, result=result,
                           board=board, family=board_family(board),
                           pending=row.status in SubmissionStatus.PENDING,
                           release=release_dict(row, board),
                           visibility_form=VisibilityForm(),
                           system=get_session().get(System, row.system_id),
                           metric_groups=grouped_metrics(shown),
                           diagnostics=_diagnostics(row) if result else None)


DIAGNOSTICS_PAGE_ROWS = 50


def _diagnostics(row):
    """Per-target diagnostics for a dev-phase board (public labels), else None."""
    from leaderboard.services.intake import diagnostics

    session = get_session()
    board = session.get(Board, row.board_id)
    if not diagnostics.diagnostics_allowed(board, get_split(session, row.split_id)):
        return None
    try:
        query = diagnostics.parse_query(request.args)
    except ValueError as exc:
        abort(400, description=str(exc))
    if "limit" not in request.args:
        query = replace(query, limit=DIAGNOSTICS_PAGE_ROWS)
    try:
        return diagnostics.submission_diagnostics(
            session, row, current_app.config["LEADERBOARD"], query)
    except diagnostics.DiagnosticsUnavailable as exc:
        flash(f"Per-target diagnostics are unavailable: {exc.message}.", "error")
        return None


def grouped_metrics(metrics: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """The result's metric keys as (group title, [(key, readable label)]) for the page."""
    from leaderboard.services.ranking.metric_info import LABELS

    groups: list[tuple[str, list[tuple[str, str]]]] = [
        ("Strict F/P/R at 10", []), ("Lenient F/P/R at 10", []), ("Ranking metrics", []),
        ("SemEval-2007 legacy", [])]
    for key in metrics:
        label = LABELS.get(key, key)
        if key.startswith("strict_") and key.endswith("@10"):
            groups[0][1].append((key, label))
        elif key.startswith("lenient_"):
            groups[1][1].append((key, label))
        elif key.startswith(("best", "oot")):
            groups[3][1].append((key, label))
        else:
            groups[2][1].append((key, label))
    return [g for g in groups if g[1]]


@bp.get("/submissions/<int:submission_id>/status")
@login_required
def submission_status(submission_id: int):
    """Status for the page's poller (session-authenticated JSON)."""
    row = _own(submission_id)
    return jsonify({"id": row.id, "status": row.status, "progress": row.progress,
                    "done": row.status not in SubmissionStatus.PENDING})


def _announcer(row: Submission, public: bool) -> Callable[[int], None]:
    """After the commit (which takes an unpublished system off every public page at the next
    request): the board's ranker is asked for a new snapshot."""
    from leaderboard.infra.queue import announce_visibility

    def announce(board_id: int) -> None:
        ids = {board_id: [row.id]}
        if not announce_visibility(hidden={} if public else ids,
                                   shown=ids if public and not row.hidden else {}):
            raise ConnectionError("Redis unreachable")  # set_public refreshes instead
    return announce


@bp.post("/submissions/<int:submission_id>/visibility")
@login_required
def set_visibility(submission_id: int):
    """Publish, unpublish or withdraw (form field ``public``: 1, 0 or withdraw); refreshes
    the ranking."""
    row = _own(submission_id)
    form = VisibilityForm()
    if not form.validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    public = request.form.get("public") == "1"
    try:
        if request.form.get("public") == "withdraw":
            service.withdraw(session=get_session(), submission=row,
                             request_refresh=_announcer(row, False))
        else:
            service.set_public(session=get_session(), submission=row, public=public,
                               request_refresh=_announcer(row, public))
    except SubmissionError as exc:
        abort(exc.status, description=exc.message)
    if row.withdrawn_at is not None:
        message = "Withdrawn: it leaves every public page; the hosts keep it."
    elif not public:
        message = "Unpublished: it leaves the public ranking within a few seconds."
    elif row.status == SubmissionStatus.SCORED and not row.hidden:
        message = "Published: it appears on the public ranking within a few seconds."
    else:
        message = "Published: it appears on the ranking once scored."
    flash(message, "success")
    return redirect(url_for("account.submission", submission_id=row.id), 303)
