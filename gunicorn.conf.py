"""gunicorn settings for the web process (Procfile ``web:``); overridable by environment."""

import os

bind = os.environ.get("GUNICORN_BIND", f"{os.environ.get('HOST', '127.0.0.1')}:"
                      f"{os.environ.get('PORT', '8000')}")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# gevent: a connection waiting on a slow client is a greenlet, not one of a few threads.
# With gthread, a few clients trickling header bytes (slowloris) hold every thread and the
# site answers nothing; see docs/hosts/deploy.md for a proxy in front.
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
timeout = 60
graceful_timeout = 20
# Uploads are read and stored by the app itself; keep gunicorn's own limits generous.
limit_request_field_size = 16384
# One structured line per request comes from the app (leaderboard/infra/logs.py), not gunicorn.
accesslog = None
errorlog = "-"
# gunicorn 27's control socket would live in ~/.gunicorn; nothing here uses it.
control_socket_disable = True


def on_starting(_server):
    """Refuse, in one line before any worker starts, settings that split a shared deployment
    (no LEADERBOARD_SECRET_KEY or LEADERBOARD_REDIS_URL beside a PostgreSQL URL)."""
    import sys

    from leaderboard.config import InsecureConfiguration, load_settings, require_shared_settings

    try:
        require_shared_settings(load_settings())
    except InsecureConfiguration as exc:
        sys.exit(f"Error: {exc}")


def post_fork(_server, _worker):
    """A worker dies with its master: none is left listening on the port if the master is
    killed (the parent-death signal is not inherited across fork, so set it here)."""
    import signal

    from leaderboard.infra.supervisor import set_parent_death_signal

    set_parent_death_signal(signal.SIGKILL)
