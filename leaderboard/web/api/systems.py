"""api blueprint: a team's systems (metadata edits), its submissions' visibility
(publish, unpublish, withdraw) and its authorship secret."""

from __future__ import annotations

from flask import g, jsonify, request

from leaderboard.db import get_session
from leaderboard.infra.queue import announce_visibility
from leaderboard.models import Team
from leaderboard.services.access.authorship import new_authorship_secret
from leaderboard.services.intake import submissions as service
from leaderboard.services.intake import systems
from leaderboard.services.intake.submissions import SubmissionError
from leaderboard.services.ranking.system_page import system_page, system_page_json
from leaderboard.web.api.blueprint import bp, token_required
from leaderboard.web.api.submissions import error_response, rate_limited, submission_error


def _refresh(board_id: int) -> None:
    if not announce_visibility(hidden={board_id: []}):
        raise ConnectionError("Redis unreachable")  # set_public refreshes here instead


@bp.get("/systems/<slug>")
@rate_limited
def get_system(slug: str):
    """One system across boards, as its public page shows it (an anonymous one masked)."""
    page = system_page(session=get_session(), slug=slug, viewer=None)
    if page is None:
        return error_response(404, "unknown_system", f"no public system {slug!r}")
    return jsonify(system_page_json(page, systems.FIELDS))


@bp.patch("/systems/<slug>")
@rate_limited
@token_required("submit")
def edit_system(slug: str):
    """Edit a system's metadata (JSON object of fields); every change is kept as history."""
    session = get_session()
    fields = request.get_json(silent=True)
    if not isinstance(fields, dict):
        return submission_error(SubmissionError(400, "bad_body", "send a JSON object"))
    try:
        system = systems.team_system(session, g.api_team.id, slug)
        changed = systems.edit_system(
            session=session, system=system, fields=fields, via="api",
            user_id=g.api_token.created_by_id,
            request_refresh=lambda boards: announce_visibility(shown=boards))
    except SubmissionError as exc:
        session.rollback()
        return submission_error(exc)
    return jsonify({**systems.system_json(system), "changed": changed})


def _visibility(submission_id: int, action: str):
    session = get_session()
    try:
        row = service.team_submission(session=session, team_id=g.api_team.id,
                                      submission_id=submission_id)
        if action == "withdraw":
            service.withdraw(session=session, submission=row, request_refresh=_refresh)
        else:
            service.set_public(session=session, submission=row, public=action == "publish",
                               request_refresh=_refresh)
    except SubmissionError as exc:
        return submission_error(exc)
    return jsonify({"id": row.id, "is_public": row.is_public,
                    "withdrawn": row.withdrawn_at is not None})


@bp.post("/submissions/<int:submission_id>/publish")
@rate_limited
@token_required("submit")
def publish_submission(submission_id: int):
    """Show the submission on the public ranking once scored (409 when withdrawn)."""
    return _visibility(submission_id, "publish")


@bp.post("/submissions/<int:submission_id>/unpublish")
@rate_limited
@token_required("submit")
def unpublish_submission(submission_id: int):
    """Take the submission off the public ranking (it can be published again)."""
    return _visibility(submission_id, "unpublish")


@bp.delete("/submissions/<int:submission_id>")
@rate_limited
@token_required("submit")
def withdraw_submission(submission_id: int):
    """Withdraw: off every public surface for good; the hosts keep it."""
    return _visibility(submission_id, "withdraw")


@bp.post("/authorship-secret")
@rate_limited
@token_required("submit")
def create_authorship_secret():
    """A new authorship secret for the token's team, on this answer and nowhere else."""
    session = get_session()
    team = session.get(Team, g.api_team.id)
    replaced = team.authorship_key is not None
    secret = new_authorship_secret(session=session, team=team)
    session.commit()
    return jsonify({"team_id": team.id, "secret": secret, "replaced": replaced}), 201, {
        "Cache-Control": "no-store"}
