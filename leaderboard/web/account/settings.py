"""Account settings: confirming the e-mail address (signed link, resend) and notifications."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, url_for
from flask_limiter.util import get_remote_address
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from wtforms import BooleanField

from leaderboard.db import get_session
from leaderboard.models import User
from leaderboard.services.access import accounts, verification
from leaderboard.services.access import signed_links as tokens
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.forms import ActionForm
from leaderboard.web.extensions import limiter

RESEND_LIMIT = "3 per hour"


class NotificationForm(FlaskForm):
    """The opt-in for "your submission finished" e-mails."""

    notify_on_finish = BooleanField("E-mail me when a submission of my team finishes scoring")


def send_verification_link(user: User) -> bool:
    """Mail ``user`` a link that confirms their address (logged when SMTP is not set)."""
    link = url_for("account.verify_email", token=tokens.make_verification_token(user),
                   _external=True)
    return verification.send_verification(current_app.config["LEADERBOARD"], user, link)


@bp.get("/verify/<token>")
def verify_email(token: str):
    """Confirm an address from its signed link (works while logged out, too)."""
    session = get_session()
    try:
        user = tokens.read_verification_token(session=session, token=token)
    except tokens.LinkError as exc:
        abort(400, description=str(exc))
    if verification.mark_verified(session, user):
        session.commit()
        flash(f"Thank you: {user.email} is confirmed. Your team can now submit to the hidden "
              "test split.", "success")
    else:
        flash(f"{user.email} was already confirmed.", "info")
    target = "account.home" if current_user.is_authenticated else "account.login"
    return redirect(url_for(target))


def _resend_key() -> str:
    prefix = current_app.config.get("RATELIMIT_KEY_PREFIX", "")
    who = current_user.id if current_user.is_authenticated else get_remote_address()
    return f"resend:{prefix}:{who}"


@bp.post("/verify/resend")
@login_required
@limiter.limit(RESEND_LIMIT, key_func=_resend_key,
               error_message="Verification e-mails are limited to 3 an hour. Check your spam "
                             "folder, or try again later.")
def resend_verification():
    """Send a new verification link to the logged-in user's address."""
    if not ActionForm().validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    user = accounts.get_user(session=get_session(), user_id=current_user.id)
    if user.email_verified_at is not None:
        flash("Your e-mail address is already confirmed.", "info")
    else:
        send_verification_link(user)
        flash(f"We sent a new confirmation link to {user.email}.", "success")
    return redirect(url_for("account.home"))


@bp.post("/notifications")
@login_required
def notifications():
    """Turn the "your submission finished" e-mail on or off."""
    form = NotificationForm()
    if not form.validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    session = get_session()
    user = accounts.get_user(session=session, user_id=current_user.id)
    user.notify_on_finish = bool(form.notify_on_finish.data)
    session.add(user)
    session.commit()
    flash("You will get an e-mail when a submission of your team finishes."
          if user.notify_on_finish else "Submission e-mails are off.", "success")
    return redirect(url_for("account.home"))
