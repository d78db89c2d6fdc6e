"""Account e-mails (reset link, address confirmation, "you already have an account") sent
so that the answer to a request does not tell whether an address is registered.

With SMTP configured, the web request only enqueues :func:`leaderboard.worker.jobs.account_mail_job`
with the address the form named; the worker looks the account up and sends (or sends
nothing). Known and unknown addresses thus cost the request the same: one Redis write, no
database lookup, no SMTP conversation, so the answer's delay does not tell them apart.
Without SMTP, mail only goes to the log, where the hosts read links; that is done at once.

Links are built by the web request as a template (:data:`TOKEN_SLOT` where the signed token
goes), so routing stays in Flask; the job signs the token with the site's secret key.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlmodel import Session

from leaderboard.infra import mail
from leaderboard.models import User
from leaderboard.services.access import accounts, verification
from leaderboard.services.access import signed_links as tokens

log = logging.getLogger(__name__)

RESET = "reset"
VERIFY = "verify"
SIGNUP_EXISTS = "signup-exists"
KINDS = (RESET, VERIFY, SIGNUP_EXISTS)
#: Stands for the signed token in a link template (survives url_for's quoting).
TOKEN_SLOT = "--token--"


def deliver(*, session: Session, settings: dict[str, Any], secret_key: str, kind: str,
            email: str, link: str) -> bool:
    """Send the ``kind`` mail to the account with ``email``, if there is one.

    ``link``: a URL template with :data:`TOKEN_SLOT` for reset and verification links, the
    login page for ``signup-exists`` (which also finds the account by mailbox: the sign-up
    was refused for it). Returns True when an SMTP server took a message; an unknown
    address, an already confirmed one (``verify``) or a logged-only message: False.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown account mail {kind!r}")
    user = accounts.find_user(session=session, email=email)
    if user is None and kind == SIGNUP_EXISTS:
        # A sign-up refused for another address of a registered mailbox (me+2@ beside me+1@):
        # tell the account's own address, which reaches the same inbox.
        user = accounts.find_by_mailbox(session=session, email=email)
    if user is None:
        return False
    if kind == RESET:
        token = tokens.make_password_token(user, tokens.password_reset(settings), secret_key)
        return _send_reset(settings, user, link.replace(TOKEN_SLOT, token))
    if kind == VERIFY:
        if user.email_verified_at is not None:
            return False
        token = tokens.make_verification_token(user, settings, secret_key)
        return verification.send_verification(settings, user, link.replace(TOKEN_SLOT, token))
    typed = email.strip().lower()
    taken = ("That address already has an account" if typed == user.email else
             f"Your account {user.email} gets its mail in the same mailbox, and the site keeps "
             "one account per mailbox")
    return mail.send(settings, user.email, "Sign-up attempt on the SWORDS leaderboard", (
        f"Hello,\n\nsomeone (hopefully you) tried to sign up a new team on the SWORDS "
        f"leaderboard with {typed}. {taken}, so no team was created. Log in here:\n\n"
        f"{link}\n\nIf you forgot your password, choose a new one with 'Forgot your "
        "password?' on that page. If it was not you, ignore this message: nothing changed.\n"))


def _send_reset(settings: dict[str, Any], user: User, link: str) -> bool:
    if not mail.smtp_configured(settings):
        # No mail server is configured: the hosts read the link from the log.
        log.warning("Password reset link for %s: %s", user.email, link)
        return False
    return mail.send(settings, user.email, "Reset your SWORDS leaderboard password", (
        f"Hello,\n\nsomeone (hopefully you) asked to reset the password of {user.email} on "
        f"the SWORDS leaderboard. Choose a new one here:\n\n{link}\n\nThe link works once and "
        f"expires in {settings['PASSWORD_RESET_MAX_AGE'] // 60} minutes. If you did not ask "
        "for it, ignore this message.\n"))


def send_for_request(kind: str, email: str, link: str) -> str | None:
    """From a web request: enqueue the mail (SMTP configured), else log it now.

    Returns the job id, or None when nothing was queued (logged at once, or Redis is
    unreachable: then the mail is lost and the user may ask again; the answer to the
    request must not differ, so it does not say).
    """
    from flask import current_app

    from leaderboard.db import get_session
    from leaderboard.infra.queue import enqueue_account_mail

    settings = current_app.config["LEADERBOARD"]
    if mail.smtp_configured(settings):
        return enqueue_account_mail(kind, email, link)
    deliver(session=get_session(), settings=settings, secret_key=current_app.secret_key,
            kind=kind, email=email, link=link)
    return None
