"""SWORDS leaderboard: Flask application factory."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a one-off `leaderboard score` should not pay for importing it
if TYPE_CHECKING:  # Flask is imported when an app is built: `leaderboard score` never needs it
    from typing import Any

    from flask import Flask


def create_app(overrides: dict[str, Any] | None = None) -> Flask:
    """Build the app: settings (defaults, ``LEADERBOARD_*`` env, ``overrides``), then wiring.

    Nothing here touches the database or Redis; migrations run as a command and Redis is
    connected on first use. On a shared database it refuses to build without an explicit
    secret key and Redis URL (:func:`leaderboard.config.require_shared_settings`).
    """
    from flask import Flask

    # imported here, as Flask is: a one-off `leaderboard score` imports this package only
    from leaderboard.config import (
        DEFAULTS,
        PROJECT_ROOT,
        load_settings,
        require_shared_settings,
    )

    settings = load_settings(overrides)
    require_shared_settings(settings)
    app = Flask(
        __name__,
        instance_path=settings["INSTANCE_PATH"],
        template_folder=str(PROJECT_ROOT / "templates"),
        static_folder=str(PROJECT_ROOT / "static"),
    )
    app.config["LEADERBOARD"] = settings
    app.config.update(_flask_settings(settings))
    for key, value in (overrides or {}).items():
        if key.isupper() and key not in DEFAULTS:
            app.config[key] = value  # plain Flask settings such as TESTING or WTF_CSRF_ENABLED

    _init_extensions(app)
    _init_security(app)
    _register_blueprints(app)
    _route_refresh_requests()
    _register_commands(app)
    return app


def _flask_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Flask's own settings (secret, upload cap, cookies, CSRF, rate limits) from ours."""
    from datetime import timedelta

    from leaderboard.config import resolve_secret_key

    return dict(
        SECRET_KEY=resolve_secret_key(settings),
        MAX_CONTENT_LENGTH=settings["MAX_UPLOAD_BYTES"] + 64 * 1024,
        PERMANENT_SESSION_LIFETIME=timedelta(hours=settings["SESSION_HOURS"]),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings["ENV"] == "production",
        REMEMBER_COOKIE_SECURE=settings["ENV"] == "production",
        REMEMBER_COOKIE_HTTPONLY=True,
        WTF_CSRF_TIME_LIMIT=None,
        RATELIMIT_STORAGE_URI=_limiter_storage_uri(settings["REDIS_URL"]),
        RATELIMIT_HEADERS_ENABLED=True,
        # Redis down must not turn every rate-limited request into a 500: the limit is not
        # applied while its counters are unreachable. (Not the in-memory fallback: its state
        # lives on the shared Limiter object and outlasts the outage it was made for.)
        RATELIMIT_SWALLOW_ERRORS=True,
    )


def _route_refresh_requests() -> None:
    """Send the pages' and the catalog's refresh requests to the rankers' queue."""
    from leaderboard.infra.queue import refresh_from_request
    from leaderboard.services import refresh_requests
    from leaderboard.services.ranking.snapshot_reader import (
        refresh_or_request,
        set_refresh_requester,
    )

    set_refresh_requester(refresh_from_request)  # a page never computes a ranking
    refresh_requests.set_requester(refresh_or_request)  # the catalog's new boards


def _limiter_storage_uri(redis_url: str) -> str:
    if not redis_url:
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://").split("?")[0]
    return redis_url


def _init_extensions(app: Flask) -> None:
    from leaderboard import db
    from leaderboard.web.extensions import csrf, limiter, login_manager

    app.extensions["db_engine"] = db.make_engine(app.config["LEADERBOARD"]["DATABASE_URL"])
    app.teardown_appcontext(db.close_session)
    login_manager.init_app(app)
    csrf.init_app(app)
    from leaderboard.web.errors import keep_outage_retry_after

    # Before the limiter's own after_request, so that it runs after it (Flask runs them last
    # registered first): an outage's 503 keeps its own Retry-After.
    app.after_request(keep_outage_retry_after)
    limiter.init_app(app)

    from leaderboard.services.access import accounts

    login_manager.user_loader(accounts.load_user_for_session)


def _init_security(app: Flask) -> None:
    from leaderboard.web import security

    security.init_app(app)


def _register_commands(app: Flask) -> None:
    from leaderboard.commands import all_commands

    for command in all_commands():
        app.cli.add_command(command)


def _register_blueprints(app: Flask) -> None:
    from leaderboard.web import account, admin, api, downloads, errors, public
    from leaderboard.web.template_urls import template_url_for

    app.register_blueprint(public.bp)
    app.register_blueprint(account.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(downloads.bp)
    errors.register(app)
    app.jinja_env.globals["url_for"] = template_url_for
