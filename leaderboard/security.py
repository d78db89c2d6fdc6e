"""Response hardening: security headers on every response, proxy awareness, request logs."""

from __future__ import annotations

from flask import Flask, Response, request
from werkzeug.middleware.proxy_fix import ProxyFix

from leaderboard.logs import init_request_logging

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
    """Install the headers, ProxyFix (when ``PROXY_FIX_HOPS`` > 0) and request logging."""
    hops = int(app.config["LEADERBOARD"].get("PROXY_FIX_HOPS", 0))
    if hops > 0:
        # Trust X-Forwarded-* from exactly this many proxies, so is_secure and remote_addr
        # reflect the client and not the reverse proxy.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                x_port=hops, x_prefix=hops)
    app.after_request(security_headers)
    init_request_logging(app)


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
