"""api blueprint: upload, status and list of a team's submissions (dry runs: checks.py)."""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime
from typing import Any

from flask import current_app, g, jsonify, request, url_for
from flask_limiter.util import get_remote_address
from sqlmodel import col, select
from werkzeug.exceptions import TooManyRequests

from leaderboard.db import get_session
from leaderboard.models import Board, SubmissionStatus, System, utcnow
from leaderboard.services.access.verification import require_verified
from leaderboard.services.catalog.benchmarks import get_split
from leaderboard.services.catalog.boards import BoardError, board_or_default
from leaderboard.services.intake import diagnostics, systems
from leaderboard.services.intake import submissions as service
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.web.api.blueprint import bp, token_required
from leaderboard.web.extensions import limiter

TRUE_VALUES = {"1", "true", "yes", "on"}


def _api_limit() -> str:
    return current_app.config["LEADERBOARD"]["API_RATE_LIMIT"]


def _scoped(key: str) -> str:
    # The app's RATELIMIT_KEY_PREFIX goes in the key: the Limiter is shared by every app in
    # the process and keeps only the first app's prefix.
    return f"{current_app.config.get('RATELIMIT_KEY_PREFIX', '')}:{key}"


def _token_key() -> str:
    # Keyed on the credential itself, so one token is limited across all its clients' IPs.
    header = request.headers.get("Authorization", "")
    return _scoped("token:" + hashlib.sha256(header.encode()).hexdigest()[:24])


def _ip_key() -> str:
    return _scoped("ip:" + get_remote_address())


def _no_token() -> bool:
    # Without a token there is no token budget (else all anonymous callers would share one).
    return not request.headers.get("Authorization")


# One budget per token and one per client IP across every API endpoint (shared scopes),
# not one per endpoint: spreading calls over endpoints must not multiply the limit.
_per_token = limiter.shared_limit(_api_limit, scope="api-token", key_func=_token_key,
                                  exempt_when=_no_token)
_per_ip = limiter.shared_limit(_api_limit, scope="api-ip", key_func=_ip_key)


def rate_limited(view):
    """Apply API_RATE_LIMIT per token and per client IP, each shared by the whole API."""
    return _per_ip(_per_token(view))


def error_response(status: int, code: str, message: str, **extra: Any):
    """The API's JSON error envelope."""
    body = {"error": {"status": status, "code": code, "message": message, **extra}}
    return jsonify(body), status


#: Seconds a client waits before retrying a dry run refused as busy.
BUSY_RETRY_AFTER = 5


def submission_error(exc: SubmissionError):
    if exc.status == 503 and exc.code == "busy":
        response, status = error_response(503, exc.code, exc.message,
                                          retry_after=BUSY_RETRY_AFTER)
        response.headers["Retry-After"] = str(BUSY_RETRY_AFTER)
        g.outage_retry_after = BUSY_RETRY_AFTER  # kept over Flask-Limiter's header
        return response, status
    if exc.status != 429:
        return error_response(exc.status, exc.code, exc.message)
    if exc.resets_at is None:
        return error_response(429, exc.code, exc.message + "; it does not reset by itself",
                              resets_at=None)
    retry_after = max(1, math.ceil((exc.resets_at - utcnow()).total_seconds()))
    response, status = error_response(429, exc.code, exc.message,
                                      resets_at=exc.resets_at.isoformat(),
                                      retry_after=retry_after)
    response.headers["Retry-After"] = str(retry_after)
    return response, status


@bp.errorhandler(TooManyRequests)
def _rate_limited(error: TooManyRequests):
    current = limiter.current_limit
    reset_at = current.reset_at if current is not None else utcnow().timestamp() + 60
    retry_after = max(1, math.ceil(reset_at - utcnow().timestamp()))
    response, status = error_response(
        429, "rate_limited", f"too many requests ({error.description}); retry after "
        f"{retry_after} s", retry_after=retry_after,
        resets_at=datetime.fromtimestamp(reset_at, UTC).isoformat())
    response.headers["Retry-After"] = str(retry_after)
    return response, status


def board_from_request() -> Board:
    """The board named by the ``leaderboard`` form or query field, else the default one."""
    slug = (request.form.get("leaderboard") or request.args.get("leaderboard") or "").strip()
    try:
        board = board_or_default(get_session(), slug or None)
    except BoardError as exc:
        raise SubmissionError(404, "unknown_leaderboard", str(exc)) from exc
    if board is None:
        raise SubmissionError(503, "no_benchmark", "no benchmark split is loaded yet")
    return board


def _boards_by_id(session, ids) -> dict[int, Board]:
    return {b.id: b for b in session.exec(select(Board).where(col(Board.id).in_(set(ids))))}


def read_upload(settings: dict[str, Any]) -> tuple[bytes, str]:
    upload = request.files.get("file")
    if upload is None:
        raise SubmissionError(400, "missing_file",
                              "send the result file as multipart form field 'file'")
    return service.read_limited(upload.stream, settings["MAX_UPLOAD_BYTES"]), \
        upload.filename or ""


def _form_field(*names: str) -> str:
    """The first of ``names`` the form has (``system``; older clients send ``system_name``
    or ``name``)."""
    return next((request.form[n] for n in names if n in request.form), "")


def _metadata() -> dict[str, str]:
    """The system's metadata fields the upload form carries."""
    fields = {key: request.form[key] for key in systems.EDITABLE if key in request.form}
    if "paper_url" not in fields and "url" in request.form:
        fields["paper_url"] = request.form["url"]
    return fields


def _system_brief(system: System) -> dict[str, Any]:
    """The upload's system as its team sees it: slug, name, and how the public sees it."""
    full = systems.system_json(system)
    return {key: full[key] for key in ("id", "name", "anonymous", "public_name", "reveal_on")}


def _status_body(submission) -> dict[str, Any]:
    return {"id": submission.id, "status": submission.status,
            "status_url": url_for("api.get_submission", submission_id=submission.id,
                                  _external=True)}


@bp.post("/submissions")
@rate_limited
@token_required("submit")
def create_submission():
    """Upload a result file; 202 with the new (or earlier identical) submission."""
    from leaderboard.infra.queue import enqueue_committed

    settings = current_app.config["LEADERBOARD"]
    session = get_session()
    try:
        board = board_from_request()
        require_verified(session, g.api_team, get_split(session, board.split_id))
        raw, filename = read_upload(settings)
        accepted = service.create_submission(
            session=session, team=g.api_team, board=board, raw=raw,
            system_name=_form_field("system", "system_name", "name"),
            settings=settings, metadata=_metadata(), filename=filename,
            is_public=request.form.get("public", "").strip().lower() in TRUE_VALUES,
            idempotency_key=(request.headers.get("Idempotency-Key") or "").strip()[:200] or None)
    except SubmissionError as exc:
        return submission_error(exc)
    submission = accepted.submission
    if accepted.created:
        enqueue_committed(submission.id)
    system = session.get(System, submission.system_id)
    body = {**_status_body(submission), "leaderboard": board.slug,
            "is_public": submission.is_public,
            "system": _system_brief(system) if system else None}
    if accepted.reason == "duplicate":
        body["duplicate"] = True
        body["message"] = "identical file already submitted; this is that submission"
    response = jsonify(body)
    response.status_code = 202
    response.headers["Location"] = body["status_url"]
    if accepted.reason == "idempotent_replay":
        response.headers["Idempotent-Replayed"] = "true"
    return response


@bp.get("/submissions/<int:submission_id>")
@rate_limited
@token_required("read")
def get_submission(submission_id: int):
    """Status, errors and, when scored, metrics, intervals, per-POS numbers and signature."""
    session = get_session()
    try:
        submission = service.team_submission(session=session, team_id=g.api_team.id,
                                             submission_id=submission_id)
    except SubmissionError as exc:
        return submission_error(exc)
    result = service.current_result(session, submission)
    board = session.get(Board, submission.board_id)
    body = service.submission_dict(submission, result, board=board,
                                   system=session.get(System, submission.system_id))
    if result is not None and diagnostics.diagnostics_allowed(
            board, get_split(session, submission.split_id)):
        body["targets_url"] = url_for("api.submission_targets", submission_id=submission.id,
                                      _external=True)
    return jsonify(body)


@bp.get("/submissions")
@rate_limited
@token_required("read")
def list_submissions():
    """The team's submissions, newest first (``?status=`` filters)."""
    session = get_session()
    status = request.args.get("status") or None
    if status and status not in SubmissionStatus.ALL:
        return error_response(400, "bad_status",
                              f"status must be one of {', '.join(SubmissionStatus.ALL)}")
    rows = service.list_team_submissions(session=session, team_id=g.api_team.id, status=status)
    items = []
    boards = _boards_by_id(session, [row.board_id for row in rows])
    for row in rows:
        result = service.current_result(session, row)
        item = service.submission_dict(row, result, board=boards[row.board_id], brief=True)
        item["status_url"] = url_for("api.get_submission", submission_id=row.id, _external=True)
        items.append(item)
    return jsonify({"submissions": items})


@bp.get("/submissions/<int:submission_id>/targets")
@rate_limited
@token_required("read")
def submission_targets(submission_id: int):
    """Per-target diagnostics of one of the team's dev-phase submissions (public labels).

    404 for another team's submission and for any board whose labels are hidden.
    """
    session = get_session()
    try:
        query = diagnostics.parse_query(request.args)
    except ValueError as exc:
        return error_response(400, "bad_query", str(exc))
    try:
        submission = service.team_submission(session=session, team_id=g.api_team.id,
                                             submission_id=submission_id)
    except SubmissionError as exc:
        return submission_error(exc)
    try:
        found = diagnostics.submission_diagnostics(
            session, submission, current_app.config["LEADERBOARD"], query)
    except diagnostics.DiagnosticsUnavailable as exc:
        return error_response(exc.status, exc.code, exc.message)
    return jsonify(diagnostics.diagnostics_dict(found))
