"""HTML error pages per status code; the API blueprint answers JSON instead.

An outage of the database or Redis (connection refused, dropped, timed out) is a 503 with
``Retry-After``, not a bare 500: a friendly page in HTML, the JSON error envelope in the API.
"""

import contextlib
import logging

from flask import Flask, g, jsonify, make_response, render_template, request
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from werkzeug.exceptions import HTTPException, InternalServerError

HTML_PAGES = (400, 403, 404, 405, 413, 429, 500)
#: Seconds a client is asked to wait during an outage (a restart usually takes about that).
OUTAGE_RETRY_AFTER = 15
OUTAGE_ERRORS = (OperationalError, InterfaceError, PoolTimeoutError, RedisConnectionError,
                 RedisTimeoutError)
OUTAGE_MESSAGE = ("The leaderboard is briefly unavailable (its database or queue does not "
                  "answer). Nothing you submitted is lost; try again in a few seconds.")
log = logging.getLogger(__name__)


def register(app: Flask) -> None:
    """Install the error handlers."""

    @app.errorhandler(HTTPException)
    def handle_http_error(error: HTTPException):
        # A refusal that says when to come back (a 429 of an analysis budget) keeps it.
        retry_after = getattr(error, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else {}
        if request.path.startswith("/api/"):
            body = {"error": {"status": error.code, "code": error.name.lower().replace(" ", "_"),
                              "message": error.description}}
            if headers:
                body["error"]["retry_after"] = retry_after
            return jsonify(body), error.code, headers
        page = f"errors/{error.code}.html" if error.code in HTML_PAGES else "errors/generic.html"
        try:
            return render_template(page, error=error), error.code, headers
        except OUTAGE_ERRORS as outage:  # the page's navigation looks up the logged-in user
            return outage_response(outage)

    def handle_backend_error(error: Exception):
        if is_outage(error):
            return outage_response(error)
        # A real bug that happens to share the class (e.g. SQLite's "no such table").
        log.error("unhandled database error", exc_info=error)
        return handle_http_error(InternalServerError(original_exception=error))

    for error_class in OUTAGE_ERRORS:
        app.register_error_handler(error_class, handle_backend_error)


#: SQLite says "OperationalError" for missing tables too; only these mean "try again".
_SQLITE_OUTAGE = ("database is locked", "unable to open database", "disk i/o error")


def is_outage(error: Exception) -> bool:
    """Whether ``error`` means a backend is unreachable (retrying later can succeed)."""
    if isinstance(error, DBAPIError) and not isinstance(error, PoolTimeoutError):
        if error.connection_invalidated or isinstance(error, InterfaceError):
            return True
        if type(error.orig).__module__.startswith("sqlite3"):
            return any(text in str(error.orig).lower() for text in _SQLITE_OUTAGE)
        return True  # psycopg's OperationalError: connection refused, dropped, shut down
    return True


def outage_response(error: Exception):
    """503 + Retry-After for a backend that does not answer."""
    log.warning("backend unavailable during %s %s: %s", request.method, request.path,
                f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    # The request's session holds a dead connection: drop it without touching the database.
    session = g.pop("db_session", None)
    if session is not None:
        with contextlib.suppress(Exception):
            session.invalidate()
    if request.path.startswith("/api/"):
        response = jsonify({"error": {"status": 503, "code": "service_unavailable",
                                      "message": OUTAGE_MESSAGE,
                                      "retry_after": OUTAGE_RETRY_AFTER}})
    else:
        # Templates get current_user: make it anonymous rather than load it from the database.
        from flask_login import AnonymousUserMixin

        g._login_user = AnonymousUserMixin()
        # A page of its own, not base.html: its navigation depends on the logged-in user.
        response = make_response(render_template("errors/503.html", message=OUTAGE_MESSAGE,
                                                 retry_after=OUTAGE_RETRY_AFTER))
    response.status_code = 503
    response.headers["Retry-After"] = str(OUTAGE_RETRY_AFTER)
    g.outage_retry_after = OUTAGE_RETRY_AFTER
    response.headers["Cache-Control"] = "no-store"
    return response



def keep_outage_retry_after(response):
    """after_request: a 503 (and a 202 "still working", a 429 of a team's dry runs) keeps
    our Retry-After.

    Flask-Limiter sets Retry-After on every rate-limited response to its window's reset (up
    to 60 s); for an outage that would hold clients back longer than needed. Registered
    before the limiter, so it runs after it.
    """
    if response.status_code in (202, 429, 503) and "outage_retry_after" in g:
        response.headers["Retry-After"] = str(g.outage_retry_after)
    elif response.status_code == 429 and "analysis_retry_after" in g:
        # a refused comparison has its own budget's wait (blueprints/public/analysis_limits)
        response.headers["Retry-After"] = str(g.analysis_retry_after)
    return response
