"""Sign-up, login, logout, password change and reset, and the account home page."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import abort, current_app, flash, redirect, render_template, request, url_for
from flask import session as cookie
from flask_login import current_user, login_required, login_user, logout_user

from leaderboard.db import get_session
from leaderboard.infra.mail import smtp_configured
from leaderboard.models import Team
from leaderboard.services.access import account_mail, accounts, login_sessions
from leaderboard.services.access import signed_links as tokens
from leaderboard.services.text_fields import text_problem
from leaderboard.web.account.blueprint import bp
from leaderboard.web.account.forms import (
    ActionForm,
    ChangePasswordForm,
    LoginForm,
    ResetPasswordForm,
    ResetRequestForm,
    SignupForm,
)
from leaderboard.web.account.limits import login_limits, reset_limits, signup_limits

WRONG_LOGIN = "Wrong e-mail or password."


def _log_in(session, user) -> None:
    """Start a server-side login for ``user`` (committed) and put its id in the cookie."""
    cookie[accounts.LOGIN_SESSION_KEY] = login_sessions.start(
        session=session, user_id=user.id,
        max_hours=current_app.config["LEADERBOARD"]["SESSION_HOURS"])
    session.commit()
    login_user(accounts.to_current_user(session, user))


def _end_login() -> None:
    """Log out this browser: its server-side login row goes, so the cookie is dead."""
    session = get_session()
    login_sessions.end(session=session, token=cookie.pop(accounts.LOGIN_SESSION_KEY, None))
    session.commit()
    logout_user()


def safe_next(default: str) -> str:
    """The ``?next=`` page to go to after login, or ``default`` when it is not a same-site path.

    An open redirect after login would help phishing; a backslash reads as a slash to
    browsers ("/\\evil.example" leaves the site), and control characters (CR/LF) cannot go
    in a Location header at all (they answered 500 after the login was recorded).
    """
    target = request.args.get("next", "")
    if (not target.startswith("/") or target.startswith("//") or "\\" in target
            or text_problem("next page", target) or urlsplit(target).netloc):
        return default
    return target


@bp.route("/signup", methods=["GET", "POST"])
@signup_limits
def signup():
    """Create a team and its first member, and mail a link to confirm the address.

    An address that has an account already gets the very same answer ("check your e-mail")
    and a mail saying so, not a form error: the page must not tell who is registered.
    Nobody is logged in here (that too would tell); the new member logs in with the password.
    """
    form = SignupForm()
    if form.validate_on_submit():
        session = get_session()
        email = form.email.data
        try:
            accounts.create_team(session=session, name=form.team_name.data, email=email,
                                 password=form.password.data, verified=False)
        except accounts.EmailTaken:
            session.rollback()
            account_mail.send_for_request(account_mail.SIGNUP_EXISTS, email,
                                          url_for("account.login", _external=True))
        except accounts.AccountError as exc:
            session.rollback()
            target = form.email if "e-mail" in str(exc) else form.team_name
            target.errors.append(str(exc))
        else:
            session.commit()
            account_mail.send_for_request(account_mail.VERIFY, email, url_for(
                "account.verify_email", token=account_mail.TOKEN_SLOT, _external=True))
        if not form.errors:
            return render_template("account/signup_sent.html", email=email.strip(),
                                   team=form.team_name.data.strip())
    status = 200 if request.method == "GET" else 400
    return render_template("account/signup.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
@login_limits
def login():
    """Log in with e-mail and password."""
    form = LoginForm()
    error = None
    if form.validate_on_submit():
        session = get_session()
        user = accounts.authenticate(session=session, email=form.email.data,
                                     password=form.password.data)
        team = session.get(Team, user.team_id) if user and user.team_id else None
        if user is None:
            error = WRONG_LOGIN
        elif team is not None and team.disabled and not user.is_admin:
            error = "This team is disabled. Contact the hosts of the leaderboard."
        else:
            _log_in(session, user)
            return redirect(safe_next(url_for("account.home")))
    status = 200 if request.method == "GET" else 400
    return render_template("account/login.html", form=form, error=error), status


@bp.post("/logout")
def logout():
    """Log out (POST with CSRF token, so a link elsewhere cannot log you out)."""
    form = ActionForm()
    if not form.validate_on_submit():
        abort(400, description="The log-out form was not valid. Reload the page and try again.")
    _end_login()
    flash("You are logged out.", "info")
    return redirect(url_for("public.ranking"))


@bp.post("/logout-everywhere")
@login_required
def logout_everywhere():
    """End every login of this user, in every browser (POST with CSRF token)."""
    form = ActionForm()
    if not form.validate_on_submit():
        abort(400, description="The form was not valid. Reload the page and try again.")
    session = get_session()
    count = login_sessions.end_all(session=session, user_id=current_user.id)
    session.commit()
    cookie.pop(accounts.LOGIN_SESSION_KEY, None)
    logout_user()
    flash(f"You are logged out everywhere ({count} session{'s' if count != 1 else ''} "
          "ended).", "info")
    return redirect(url_for("account.login"))


@bp.get("/")
@login_required
def home():
    """The account page: team, members, and where to go next."""
    session = get_session()
    members, team = [], None
    if current_user.team_id is not None:
        members = accounts.team_members(session=session, team_id=current_user.team_id)
        team = session.get(Team, current_user.team_id)
    return render_template("account/home.html", members=members, team=team,
                           smtp=smtp_configured(current_app.config["LEADERBOARD"]))


@bp.route("/password", methods=["GET", "POST"])
@login_required
def change_password():
    """Change the password; every other session of this user is logged out."""
    form = ChangePasswordForm()
    if form.validate_on_submit():
        session = get_session()
        user = accounts.get_user(session=session, user_id=current_user.id)
        if not accounts.check_password(user, form.current_password.data):
            form.current_password.errors.append("That is not your current password.")
        else:
            accounts.set_password(session=session, user=user, password=form.password.data)
            login_sessions.end_all(session=session, user_id=user.id)
            session.commit()
            # Every login ended: start a new one here so only the others end.
            _log_in(session, user)
            flash("Password changed. Other sessions have been logged out.", "success")
            return redirect(url_for("account.home"))
    status = 200 if request.method == "GET" else 400
    return render_template("account/change_password.html", form=form), status


@bp.route("/reset", methods=["GET", "POST"])
@reset_limits
def reset_request():
    """Ask for a reset link. The answer is the same whether the e-mail is known or not."""
    form = ResetRequestForm()
    if form.validate_on_submit():
        # Not looked up here: the worker does, so known and unknown addresses take as long.
        account_mail.send_for_request(account_mail.RESET, form.email.data, url_for(
            "account.reset_password", token=account_mail.TOKEN_SLOT, _external=True))
        return render_template("account/reset_sent.html", email=form.email.data)
    status = 200 if request.method == "GET" else 400
    return render_template("account/reset_request.html", form=form), status


@bp.route("/reset/<token>", methods=["GET", "POST"], defaults={"kind": "reset"},
          endpoint="reset_password")
@bp.route("/set-password/<token>", methods=["GET", "POST"], defaults={"kind": "set"},
          endpoint="set_password")
def reset_password(token: str, kind: str):
    """Choose a new password from a signed link; the link stops working once used."""
    session = get_session()
    try:
        user = tokens.read_password_token(session=session, token=token,
                                          purpose=tokens.PURPOSES[kind]())
    except tokens.LinkError as exc:
        abort(400, description=str(exc))
    form = ResetPasswordForm()
    if form.validate_on_submit():
        accounts.set_password(session=session, user=user, password=form.password.data)
        login_sessions.end_all(session=session, user_id=user.id)
        session.commit()
        cookie.pop(accounts.LOGIN_SESSION_KEY, None)
        logout_user()
        flash("Your password is set. Log in with it now.", "success")
        return redirect(url_for("account.login"))
    status = 200 if request.method == "GET" else 400
    return render_template("account/reset_password.html", form=form, email=user.email), status
