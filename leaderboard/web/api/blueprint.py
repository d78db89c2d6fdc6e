"""The API blueprint and its bearer-token checks, which the route modules import (the
package imports them, so they cannot import it back)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn

from flask import Blueprint, abort, g, jsonify, request

from leaderboard.web.extensions import csrf

bp = Blueprint("api", __name__, url_prefix="/api/v1")
# Bearer tokens are not sent by browsers on their own, so cross-site forgery does not apply.
csrf.exempt(bp)


def _unauthorized(message: str) -> NoReturn:
    body = {"error": {"status": 401, "code": "unauthorized", "message": message}}
    response = jsonify(body)
    response.status_code = 401
    response.headers["WWW-Authenticate"] = 'Bearer realm="api"'
    abort(response)


def require_token() -> None:
    """Authenticate the request's bearer token, or abort 401 with the JSON error envelope.

    On success ``g.api_token`` is the ApiToken and ``g.api_team`` its Team, and the token's
    last-used time is committed.
    """
    from leaderboard.db import get_session
    from leaderboard.models import Team
    from leaderboard.services.access.api_tokens import authenticate_token

    header = request.headers.get("Authorization", "")
    scheme, _, plaintext = header.partition(" ")
    if scheme.lower() != "bearer" or not plaintext.strip():
        _unauthorized("Send an API token as 'Authorization: Bearer <token>'. "
                      "Create one on your account page under API tokens.")
    session = get_session()
    token = authenticate_token(session=session, plaintext=plaintext.strip())
    if token is None:
        session.rollback()
        _unauthorized("The API token is invalid, revoked, or its team is disabled.")
    session.commit()
    g.api_token = token
    g.api_team = session.get(Team, token.team_id)


def _require_scope(scope: str) -> None:
    """403 (JSON) unless the request's token was issued with ``scope``."""
    from leaderboard.services.access.api_tokens import has_scope

    if not has_scope(g.api_token, scope):
        body = {"error": {"status": 403, "code": "insufficient_scope",
                          "message": f"This token may not {scope} (it has: "
                                     f"{g.api_token.scopes or 'no scope'}); create a token "
                                     f"with the {scope!r} scope on your account page."}}
        response = jsonify(body)
        response.status_code = 403
        abort(response)


def token_required(scope: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: run ``require_token()``, then check the token has ``scope`` (read,
    submit)."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            require_token()
            _require_scope(scope)
            return view(*args, **kwargs)

        return wrapper

    return decorate
