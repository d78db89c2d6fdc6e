"""JSON API under /api/v1, authenticated with ``Authorization: Bearer <token>``.

submissions.py: upload, validate, status, list; leaderboard.py: the public ranking;
docs.py: OpenAPI description and the human API page.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn

from flask import Blueprint, abort, g, jsonify, request

from leaderboard.extensions import csrf

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


def token_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator: run ``require_token()`` before the view."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        require_token()
        return view(*args, **kwargs)

    return wrapper


from leaderboard.blueprints.api import analysis, docs, leaderboard, submissions  # noqa: E402,F401,I001
