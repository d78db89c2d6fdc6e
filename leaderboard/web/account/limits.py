"""Rate limits of the sign-up, login and reset forms: per client address, per e-mail, global.

A per-address limit alone gives way to an attacker with many addresses: a handful of
loopback addresses passed every one. So each form also has a limit keyed by the mailbox
of the e-mail address it names
(:func:`~leaderboard.services.access.mailboxes.mailbox_key`: ``me+1@`` and
``me+2@`` count as one; whether or not an account has it, so the limit tells nothing about
who is registered) and one for the whole site. docs/hosts/security.md says what each one stops.

The site-wide sign-up limit does not lock everyone out (a flood from a few dozen addresses
would otherwise block every real sign-up until the window ends): past it the site is *busy*
and takes one sign-up per network (/24, /48) an hour, counting the networks' sign-ups from
before, so a flood shuts out its own networks and not the others'. Only a ceiling ten times
higher refuses everybody (:func:`signup_site_limits`).

Keys carry the app's ``RATELIMIT_KEY_PREFIX``: the limiter is shared by every app in the
process and keeps only the first app's prefix.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
from collections.abc import Callable
from functools import wraps

from flask import Response, abort, current_app, request
from flask_limiter.util import get_remote_address
from limits import parse

from leaderboard.services.access.mailboxes import mailbox_key
from leaderboard.web.extensions import limiter

log = logging.getLogger(__name__)

LOGIN_LIMITED = ("Too many login attempts from your address. Wait a minute, then try again "
                 "(or reset your password from the login page).")
LOGIN_ACCOUNT_LIMITED = ("Too many failed logins for this e-mail address. Wait an hour, or "
                         "reset your password from the login page.")
LOGIN_GLOBAL_LIMITED = ("The site is refusing logins for a moment: too many failed attempts. "
                        "Try again in a minute.")
SIGNUP_LIMITED = ("Too many sign-ups from your address. Try again in an hour, or ask the hosts "
                  "of the leaderboard to create your team.")
SIGNUP_EMAIL_LIMITED = "Too many sign-ups with this e-mail address. Try again in an hour."
SIGNUP_GLOBAL_LIMITED = ("The site takes no more sign-ups this hour. Try again later, or ask "
                         "the hosts of the leaderboard to create your team.")
SIGNUP_BUSY_LIMITED = ("The site is taking many sign-ups this hour, so for now it takes one per "
                       "network an hour, and yours has had its turn. Try again later, or ask "
                       "the hosts of the leaderboard to create your team.")
RESET_LIMITED = "Too many password reset requests from your address. Try again in an hour."
RESET_EMAIL_LIMITED = ("Too many password reset requests for this e-mail address. Check your "
                       "mail (and spam folder) for the links already sent, or try again in an "
                       "hour.")
RESET_GLOBAL_LIMITED = "The site takes no more password reset requests this hour. Try later."


def _setting(name: str) -> Callable[[], str]:
    def value() -> str:
        return current_app.config["LEADERBOARD"][name]
    return value


def _prefix() -> str:
    return current_app.config.get("RATELIMIT_KEY_PREFIX", "")


def ip_key(kind: str) -> Callable[[], str]:
    """Key of a per-client-address limit (the address ProxyFix trusted, see security.py)."""
    def key() -> str:
        return f"{kind}:{_prefix()}:{get_remote_address()}"
    return key


def email_key(kind: str) -> Callable[[], str]:
    """Key of a per-e-mail limit: a digest of the mailbox of the form's address (``+tag``,
    case and Gmail's dots folded), so that a mailbox's other addresses share its limit."""
    def key() -> str:
        address = mailbox_key(request.form.get("email", ""))
        digest = hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return f"{kind}-email:{_prefix()}:{digest}"
    return key


def global_key(kind: str) -> Callable[[], str]:
    """Key of a limit shared by every client."""
    def key() -> str:
        return f"{kind}-global:{_prefix()}"
    return key


def _failed(response: Response) -> bool:
    # A refused login answers 400 with the form; a success redirects. 429s are not counted.
    return response.status_code == 400


def login_limits(view: Callable) -> Callable:
    """Per address (every attempt), per e-mail and site-wide (failed attempts only)."""
    view = limiter.limit(_setting("LOGIN_GLOBAL_RATE_LIMIT"), key_func=global_key("login"),
                         methods=["POST"], deduct_when=_failed,
                         error_message=LOGIN_GLOBAL_LIMITED)(view)
    view = limiter.limit(_setting("LOGIN_ACCOUNT_RATE_LIMIT"), key_func=email_key("login"),
                         methods=["POST"], deduct_when=_failed,
                         error_message=LOGIN_ACCOUNT_LIMITED)(view)
    return limiter.limit(_setting("LOGIN_RATE_LIMIT"), key_func=ip_key("login"),
                         methods=["POST"], error_message=LOGIN_LIMITED)(view)


def network_of(address: str | None) -> str:
    """The client's network: its /24 (IPv4, an IPv4-mapped IPv6 address too) or /48 (IPv6,
    where one host may hold a whole /64); a non-IP address stands for itself."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return address or "-"
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ipaddress.ip_network(f"{ip}/{24 if ip.version == 4 else 48}", strict=False))


def _signup_refusal() -> str | None:
    """Why the site-wide limits refuse this sign-up, or None. Every sign-up counts toward the
    ceiling, the site-wide limit and its network's (that last one always: a network that
    signed up many before the site got busy gets none while it is)."""
    settings, prefix = current_app.config["LEADERBOARD"], _prefix()
    strategy = limiter.limiter
    if not strategy.hit(parse(settings["SIGNUP_CEILING_RATE_LIMIT"]), "signup-ceiling", prefix):
        return SIGNUP_GLOBAL_LIMITED
    network = ("signup-network", prefix, network_of(get_remote_address()))
    busy = not strategy.hit(parse(settings["SIGNUP_GLOBAL_RATE_LIMIT"]), "signup-global", prefix)
    network_turn = strategy.hit(parse(settings["SIGNUP_BUSY_NETWORK_RATE_LIMIT"]), *network)
    return SIGNUP_BUSY_LIMITED if busy and not network_turn else None


def signup_site_limits(view: Callable) -> Callable:
    """The site-wide sign-up limits, past the per-address and per-e-mail ones (a sign-up they
    refuse does not count here): under ``SIGNUP_GLOBAL_RATE_LIMIT`` a sign-up a network
    makes goes through; past it (busy) only while its network is under
    ``SIGNUP_BUSY_NETWORK_RATE_LIMIT``; past ``SIGNUP_CEILING_RATE_LIMIT`` none does. POSTs
    only; with Redis unreachable no limit applies, as for the other limits."""
    @wraps(view)
    def limited(*args, **kwargs):
        if request.method == "POST":
            try:
                refusal = _signup_refusal()
            except Exception:  # RATELIMIT_SWALLOW_ERRORS: an outage must not refuse sign-ups
                log.warning("sign-up limits not checked", exc_info=True)
                refusal = None
            if refusal:
                abort(429, description=refusal)
        return view(*args, **kwargs)
    return limited


def signup_limits(view: Callable) -> Callable:
    """Per address, per e-mail and site-wide (:func:`signup_site_limits`); every POST
    counts."""
    view = signup_site_limits(view)
    view = limiter.limit(_setting("SIGNUP_EMAIL_RATE_LIMIT"), key_func=email_key("signup"),
                         methods=["POST"], error_message=SIGNUP_EMAIL_LIMITED)(view)
    return limiter.limit(_setting("SIGNUP_RATE_LIMIT"), key_func=ip_key("signup"),
                         methods=["POST"], error_message=SIGNUP_LIMITED)(view)


def reset_limits(view: Callable) -> Callable:
    """Per address, per e-mail and site-wide; every POST counts."""
    view = limiter.limit(_setting("RESET_GLOBAL_RATE_LIMIT"), key_func=global_key("reset"),
                         methods=["POST"], error_message=RESET_GLOBAL_LIMITED)(view)
    view = limiter.limit(_setting("RESET_EMAIL_RATE_LIMIT"), key_func=email_key("reset"),
                         methods=["POST"], error_message=RESET_EMAIL_LIMITED)(view)
    return limiter.limit(_setting("RESET_RATE_LIMIT"), key_func=ip_key("reset"),
                         methods=["POST"], error_message=RESET_LIMITED)(view)
