"""Inviting members: a member makes a signed, week-long link; whoever opens it joins the team
with their own e-mail and password (and confirms the address, as after a sign-up)."""

from __future__ import annotations

from flask import abort, render_template, request, url_for
from flask_login import current_user, login_required

from leaderboard.db import get_session
from leaderboard.models import Team, User
from leaderboard.services.access import account_mail, accounts
from leaderboard.services.access import signed_links as tokens
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.forms import ActionForm, JoinForm


@bp.post("/invitations")
@login_required
def create_invitation():
    """A new invitation link of the member's team, shown once on this page."""
    if not current_user.team_id:
        abort(403, description="This account belongs to no team, so it cannot invite.")
    if not ActionForm().validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    session = get_session()
    team = session.get(Team, current_user.team_id)
    inviter = session.get(User, current_user.id)
    link = url_for("account.join", token=tokens.make_invitation_token(team, inviter),
                   _external=True)
    page = render_template("account/invitation.html", team=team, link=link,
                           days=tokens.INVITATION.max_age // 86400)
    return page, 201, {"Cache-Control": "no-store"}


@bp.route("/join/<token>", methods=["GET", "POST"])
def join(token: str):
    """Join the team an invitation names: e-mail and password, then confirm the address."""
    session = get_session()
    try:
        team = tokens.read_invitation_token(session=session, token=token)
    except tokens.LinkError as exc:
        abort(400, description=str(exc))
    form = JoinForm()
    if form.validate_on_submit():
        try:
            accounts.join_team(session=session, team=team, email=form.email.data,
                               password=form.password.data)
        except accounts.AccountError as exc:
            session.rollback()
            message = str(exc)
            if isinstance(exc, accounts.EmailTaken):
                message += " Log in with it, or use another address."
            form.email.errors.append(message)
        else:
            session.commit()
            account_mail.send_for_request(account_mail.VERIFY, form.email.data, url_for(
                "account.verify_email", token=account_mail.TOKEN_SLOT, _external=True))
            return render_template("account/joined.html", team=team,
                                   email=form.email.data.strip())
    status = 200 if request.method == "GET" else 400
    return render_template("account/join.html", form=form, team=team, token=token), status
