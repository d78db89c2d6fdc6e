"""Request and response hardening: control characters refused in every request, security
headers on every response, proxy awareness, request logs."""

from __future__ import annotations

from flask import Flask, Response, abort, jsonify, request
from werkzeug.middleware.proxy_fix import ProxyFix

from leaderboard.infra.logs import init_request_logging
from leaderboard.services.text_fields import text_problem
from leaderboard.web.request_body import BodyGuard, refuse_oversized_body

#: Only our own files: no inline script or style, no eval, nothing from another origin.
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
])
HSTS = "max-age=31536000; includeSubDomains"


def init_app(app: Flask) -> None:
    """Install the headers, ProxyFix (when ``PROXY_FIX_HOPS`` > 0), the request body's guard
    (:mod:`leaderboard.web.request_body`) and request logging."""
    app.wsgi_app = BodyGuard(app.wsgi_app)
    hops = int(app.config["LEADERBOARD"].get("PROXY_FIX_HOPS", 0))
    if hops > 0:
        # Trust X-Forwarded-* from exactly this many proxies, so is_secure and remote_addr
        # reflect the client and not the reverse proxy.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                x_port=hops, x_prefix=hops)
    # After CSRF and the rate limiter (registered earlier), before any view.
    app.before_request(refuse_oversized_body)
    app.before_request(refuse_control_characters)
    app.after_request(security_headers)
    init_request_logging(app)


#: How a refused field is named to the user ("the system name contains ..."); any other field
#: by its form name. Per endpoint where one name means different things.
FIELD_LABELS = {
    "name": "system name", "description": "description", "url": "paper URL",
    "paper_url": "paper URL", "code_url": "code URL", "team_name": "team name",
    "email": "e-mail address", "leaderboard": "leaderboard", "reason": "reason",
}
ENDPOINT_FIELD_LABELS = {"account.create_token": {"name": "token name"}}
#: Query arguments whose view falls back to a default rather than refuse: ``next`` after
#: login, unsafe (control characters included) means the account page (auth.safe_next).
FALLBACK_ARGS = frozenset({"next"})


def _label(field: str) -> str:
    labels = ENDPOINT_FIELD_LABELS.get(request.endpoint or "", {})
    return labels.get(field) or FIELD_LABELS.get(field) or f"field {field!r}"


def request_text_problem() -> tuple[int, str] | None:
    """(status, message) when the request holds a character no user text may, else None.

    The one rule of :func:`leaderboard.services.text_fields.text_problem` (control characters, lone
    surrogates), applied to the path (404: no page has such a name), every query argument
    and form field, names and values (400), and uploaded file names. Form values may hold
    tab and newlines (text areas); query arguments may not. :data:`FALLBACK_ARGS` are left
    to their view.
    """
    if text_problem("path", request.path):
        return 404, "no page has a control character in its address"
    fields = [(request.args, False), (request.form, True)]
    for source, multiline in fields:
        for key, value in source.items(multi=True):
            if source is request.args and key in FALLBACK_ARGS:
                continue
            problem = (text_problem("name of a field", key)
                       or text_problem(_label(key), value, multiline=multiline))
            if problem:
                return 400, problem
    for _key, upload in request.files.items(multi=True):
        problem = text_problem("file name", upload.filename or "")
        if problem:
            return 400, problem
    return None


def refuse_control_characters() -> Response | None:
    """before_request: 400 (404 for the path) naming the field, never a 500 further on.

    PostgreSQL refuses NUL in text and a header refuses CR/LF, so such a value used to
    surface as a 500 from wherever a view happened to use it.
    """
    found = request_text_problem()
    if found is None:
        return None
    status, message = found
    if status == 400 and request.path.startswith("/api/"):
        response = jsonify({"error": {"status": 400, "code": "bad_characters",
                                      "message": message}})
        response.status_code = 400
        return response
    abort(status, description=message)


def security_headers(response: Response) -> Response:
    """The same headers on every HTML, JSON and file response."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "strict-origin-when-cross-origin")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", HSTS)
    return response
