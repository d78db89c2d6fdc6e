"""Checks of one machine against the shared deployment (``leaderboard deploy check``).

Each check returns a :class:`Check`: a name, whether it passed, and one line saying what was
found. Settings that split a deployment (a secret key of its own, a private Redis) are
already refused at start (:func:`leaderboard.config.require_shared_settings`); these checks
catch what only the shared database and Redis can tell: a different key (secret or signing),
a Redis or queue name no worker uses, a machine without WordNet, a clock that disagrees with
the database's.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from leaderboard.models import DeploymentSetting

FINGERPRINT_NAME = "secret_key_fingerprint"
#: The fixed message signed under the secret key: its HMAC identifies the key, reveals nothing.
FINGERPRINT_MESSAGE = b"swords-leaderboard deployment secret key fingerprint v1"
#: The id of the key that signs result certificates (public: it is in every certificate).
SIGNING_KEY_NAME = "signing_key_id"
#: The reconciler compares heartbeats written by other machines' clocks (HEARTBEAT_STALE_SECONDS).
DEFAULT_MAX_SKEW_SECONDS = 3.0


@dataclass(frozen=True)
class Check:
    """The outcome of one check: ``name``, ``ok`` and a one-line ``detail``."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        """``ok    name: detail`` or ``FAIL  name: detail``."""
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.detail}"


def secret_fingerprint(secret_key: str) -> str:
    """HMAC-SHA256 of a fixed message under ``secret_key``, hex: equal keys, equal prints."""
    return hmac.new(secret_key.encode(), FINGERPRINT_MESSAGE, hashlib.sha256).hexdigest()


def record_fingerprint(*, engine: Engine, secret_key: str) -> bool:
    """Store this key's fingerprint unless the deployment has one; True when stored now."""
    return _store_once(engine, FINGERPRINT_NAME, secret_fingerprint(secret_key))


def _store_once(engine: Engine, name: str, value: str) -> bool:
    """Store the deployment's setting ``name`` unless it has one; True when stored now."""
    with Session(engine) as session:
        if session.get(DeploymentSetting, name) is not None:
            return False
        session.add(DeploymentSetting(name=name, value=value))
        try:
            session.commit()
        except Exception:  # another machine stored its own at the same moment: compare to it
            session.rollback()
            return False
        return True


def check_secret_key(*, engine: Engine, secret_key: str) -> Check:
    """The secret key's fingerprint equals the one stored in the database (stored if none)."""
    stored_now = record_fingerprint(engine=engine, secret_key=secret_key)
    with Session(engine) as session:
        row = session.get(DeploymentSetting, FINGERPRINT_NAME)
    mine = secret_fingerprint(secret_key)
    if stored_now:
        return Check("secret key", True, f"fingerprint {mine[:12]}… stored as the deployment's")
    if hmac.compare_digest(row.value, mine):
        return Check("secret key", True, f"same as the deployment's (fingerprint {mine[:12]}…)")
    return Check("secret key", False,
                 f"differs from the deployment's (fingerprint {mine[:12]}…, the database holds "
                 f"{row.value[:12]}…): sessions, forms and links from other machines would be "
                 f"refused; set the deployment's LEADERBOARD_SECRET_KEY")


def check_signing_key(*, engine: Engine, key_id: str) -> Check:
    """This machine signs certificates with the deployment's key: its id (public) equals
    the one stored in the database by the first check of a web machine."""
    stored_now = _store_once(engine, SIGNING_KEY_NAME, key_id)
    with Session(engine) as session:
        row = session.get(DeploymentSetting, SIGNING_KEY_NAME)
    if stored_now:
        return Check("signing key", True, f"key {key_id} stored as the deployment's")
    if row.value == key_id:
        return Check("signing key", True, f"the deployment's key {key_id}")
    return Check("signing key", False,
                 f"key {key_id} is not the deployment's ({row.value}): this machine's "
                 f"certificates would name another key than the others'; set the "
                 f"deployment's LEADERBOARD_SIGNING_KEY_FILE")


def check_database(*, engine: Engine) -> Check:
    """The database answers and its schema is at the newest migration."""
    from alembic.script import ScriptDirectory

    from leaderboard.infra import migrate

    current = migrate.current_revision(engine)
    head = ScriptDirectory.from_config(migrate.alembic_config(engine)).get_current_head()
    if current != head:
        return Check("database", False, f"{engine.url.render_as_string(hide_password=True)} "
                     f"at revision {current or '(empty)'}, code expects {head}: run "
                     f"leaderboard db upgrade")
    return Check("database", True,
                 f"{engine.url.render_as_string(hide_password=True)} at revision {head}")


def check_redis(*, connection, queue_name: str) -> list[Check]:
    """Redis answers, and the workers and rankers of ``queue_name`` are registered in it
    (RQ's worker registry; :mod:`leaderboard.ranker.placement`): then this is the Redis they use."""
    from rq import Queue, Worker

    from leaderboard.ranker.placement import live_rankers
    from leaderboard.services.intake.checks import checks_queue_name

    try:
        connection.ping()
    except Exception as exc:  # any failure to reach it is the finding
        return [Check("redis", False, f"does not answer: {exc}")]
    workers = {w.name for name in (queue_name, checks_queue_name(queue_name))
               for w in Worker.all(queue=Queue(name, connection=connection))}
    rankers = live_rankers(connection, queue_name)
    where = f"queue {queue_name!r} on this Redis"
    return [
        Check("redis", True, "answers"),
        Check("workers", bool(workers),
              f"{len(workers)} worker(s) on {where}" if workers else
              f"no worker listens on {where}: the workers use another Redis or QUEUE_NAME, "
              f"or none runs"),
        Check("rankers", bool(rankers),
              f"{len(rankers)} live ranker(s) on {where}" if rankers else
              f"no live ranker on {where}: the rankers use another Redis or QUEUE_NAME, "
              f"or none runs"),
    ]


def check_wordnet() -> Check:
    """The compiled WordNet table loads and lemmatizes (a worker cannot score without it)."""
    from leaderboard.scoring.swords.lemmatize import wordnet_status

    ok, detail = wordnet_status()
    if not ok and "wordnet install" not in detail:
        detail += " (run leaderboard wordnet install)"
    return Check("wordnet", ok, detail)


def database_clock_offset(engine: Engine) -> tuple[float, float]:
    """(database time - local time, round trip) in seconds; local time is taken at the
    middle of the query."""
    if engine.dialect.name == "postgresql":
        sql = "SELECT EXTRACT(EPOCH FROM clock_timestamp())"
    else:
        sql = "SELECT (julianday('now') - 2440587.5) * 86400.0"
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))  # connect first: the round trip is the query's
        before = time.time()
        remote = float(connection.execute(text(sql)).scalar_one())
        after = time.time()
    return remote - (before + after) / 2, after - before


def check_clock(*, engine: Engine, max_skew: float) -> Check:
    """This machine's clock agrees with the database's within ``max_skew`` seconds: the
    reconciler compares heartbeats that other machines' clocks wrote."""
    offset, round_trip = database_clock_offset(engine)
    detail = (f"database clock {offset:+.4f} s from this machine's (round trip "
              f"{round_trip * 1000:.1f} ms, tolerance {max_skew:g} s)")
    if abs(offset) > max_skew:
        return Check("clock", False, detail + ": synchronize this machine's clock (NTP)")
    return Check("clock", True, detail)


def run_checks(*, settings: dict[str, Any], engine: Engine, secret_key: str, connection,
               wordnet: bool = True, signing: Check | str | None = None,
               max_skew: float = DEFAULT_MAX_SKEW_SECONDS) -> list[Check]:
    """Every check of this machine against the deployment, in a stable order; ``signing``
    is the id of the key this machine signs certificates with (a web machine), or the
    failed Check of reading it."""
    from leaderboard.config import shared_database

    checks = [Check("settings", True,
                    "shared database, explicit secret key and Redis URL"
                    if shared_database(settings) else
                    "SQLite: one machine (embedded Redis allowed)")]
    try:
        database = check_database(engine=engine)
    except Exception as exc:  # unreachable: nothing else can be checked in the database
        return [*checks, Check("database", False, f"does not answer: {exc}")]
    checks.append(database)
    if database.ok:
        checks.append(check_secret_key(engine=engine, secret_key=secret_key))
        if isinstance(signing, str):
            checks.append(check_signing_key(engine=engine, key_id=signing))
    if isinstance(signing, Check):
        checks.append(signing)
    checks.extend(check_redis(connection=connection, queue_name=settings["QUEUE_NAME"]))
    if wordnet:
        checks.append(check_wordnet())
    checks.append(check_clock(engine=engine, max_skew=max_skew))
    return checks
