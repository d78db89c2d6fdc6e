"""API tokens on the account page: create (shown once), list, revoke."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, url_for
from flask_login import current_user, login_required

from leaderboard.db import get_session
from leaderboard.models import Team
from leaderboard.services.access import api_tokens
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.forms import ActionForm, TokenCreateForm


def _team_id() -> int:
    if current_user.team_id is None:
        abort(403, description="API tokens belong to a team, and this account has none.")
    return current_user.team_id


@bp.get("/tokens")
@login_required
def tokens():
    """The team's tokens and the form to make a new one."""
    team_id = _team_id()
    return _render(team_id, TokenCreateForm())


def _render(team_id: int, form: TokenCreateForm, status: int = 200):
    rows = api_tokens.list_tokens(session=get_session(), team_id=team_id)
    return render_template("account/tokens.html", tokens=rows, form=form,
                           action_form=ActionForm()), status


@bp.post("/tokens")
@login_required
def create_token():
    """Create a token; its secret is on this response and nowhere else, ever."""
    team_id = _team_id()
    form = TokenCreateForm()
    if not form.validate_on_submit():
        return _render(team_id, form, 400)
    session = get_session()
    team = session.get(Team, team_id)
    row, plaintext = api_tokens.issue_token(
        session=session, team=team, name=form.name.data, created_by_id=current_user.id,
        scopes="read" if form.read_only.data else api_tokens.ALL_SCOPES)
    session.commit()
    response = render_template("account/token_created.html", token=row, plaintext=plaintext)
    # The secret must not linger in a cache or be replayed by the back button.
    return response, 201, {"Cache-Control": "no-store"}


@bp.post("/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    """Revoke one of the team's tokens (kept in the list, marked revoked)."""
    team_id = _team_id()
    if not ActionForm().validate_on_submit():
        abort(400, description="The revoke form was not valid. Reload the page and try again.")
    session = get_session()
    token = api_tokens.get_team_token(session=session, team_id=team_id, token_id=token_id)
    if token is None:
        abort(404)
    api_tokens.revoke_token(session=session, token=token)
    session.commit()
    flash(f"Token {token.name} ({token.prefix}…) is revoked.", "success")
    return redirect(url_for("account.tokens"))


@bp.after_request
def _no_store_for_account_pages(response):
    # Account pages show private data; keep shared caches out of them.
    response.headers.setdefault("Cache-Control", "private, no-store")
    return response
