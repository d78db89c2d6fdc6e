"""Outgoing e-mail: SMTP when ``LEADERBOARD_SMTP_URL`` is set, the log otherwise.

The URL names the server: ``smtp://[user:password@]host[:port][?starttls=1]`` (port 25 by
default), or ``smtps://...`` for TLS from the first byte (port 465). ``MAIL_FROM`` is the
sender. A message that cannot be sent is logged with its reason; callers never fail a
request or a job because of mail.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

log = logging.getLogger(__name__)
SMTP_TIMEOUT_SECONDS = 10


def smtp_configured(settings: dict[str, Any]) -> bool:
    """Whether mail goes out through SMTP (else only to the log)."""
    return bool(settings.get("SMTP_URL"))


def build_message(settings: dict[str, Any], to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text message from the configured sender."""
    message = EmailMessage()
    message["From"] = settings.get("MAIL_FROM") or "leaderboard@localhost"
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


def send(settings: dict[str, Any], to: str, subject: str, body: str) -> bool:
    """Send one message; returns True when an SMTP server accepted it.

    Without SMTP_URL the message goes to the log (the hosts read links from there) and the
    answer is False, as it is when the server cannot be reached or refuses.
    """
    if not smtp_configured(settings):
        log.warning("E-mail to %s (no LEADERBOARD_SMTP_URL set): %s\n%s", to, subject, body)
        return False
    try:
        _deliver(settings["SMTP_URL"], build_message(settings, to, subject, body))
    except (OSError, smtplib.SMTPException, ValueError) as exc:
        log.error("could not send e-mail %r to %s: %s", subject, to, exc)
        return False
    log.info("sent e-mail %r to %s", subject, to)
    return True


def _deliver(url: str, message: EmailMessage) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError(f"LEADERBOARD_SMTP_URL must start with smtp:// or smtps://, not {url!r}")
    options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    host = parts.hostname or "localhost"
    if parts.scheme == "smtps":
        client: smtplib.SMTP = smtplib.SMTP_SSL(host, parts.port or 465,
                                                timeout=SMTP_TIMEOUT_SECONDS,
                                                context=ssl.create_default_context())
    else:
        client = smtplib.SMTP(host, parts.port or 25, timeout=SMTP_TIMEOUT_SECONDS)
    with client:
        if options.get("starttls", "").lower() in ("1", "true", "yes", "on"):
            client.starttls(context=ssl.create_default_context())
        if parts.username:
            client.login(unquote(parts.username), unquote(parts.password or ""))
        client.send_message(message)
