"""The team's authorship secret on the account page: made on request and shown once; the
site keeps only its hash, to which the team's result certificates commit."""

from __future__ import annotations

from flask import abort, render_template
from flask_login import current_user, login_required

from leaderboard.db import get_session
from leaderboard.models import Team
from leaderboard.services.access.authorship import new_authorship_secret
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.forms import ActionForm


@bp.post("/authorship")
@login_required
def create_authorship_secret():
    """Make the team a new authorship secret; it is on this response and nowhere else."""
    if current_user.team_id is None:
        abort(403, description="An authorship secret belongs to a team, and this account "
                               "has none.")
    if not ActionForm().validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    session = get_session()
    team = session.get(Team, current_user.team_id)
    replaced = team.authorship_key is not None
    secret = new_authorship_secret(session=session, team=team)
    session.commit()
    html = render_template("account/authorship_created.html", secret=secret,
                           team_id=team.id, replaced=replaced)
    # The secret must not linger in a cache or be replayed by the back button.
    return html, 201, {"Cache-Control": "no-store"}
