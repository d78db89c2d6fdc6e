"""Locks held by a database transaction until it commits or rolls back.

A read-decide-write (is this the team's first result? is this mailbox taken?) is only right
when nobody else can decide the same thing between the read and the commit. :func:`hold`
takes such a lock through the session's own transaction, on both databases:

- **PostgreSQL**: ``pg_advisory_xact_lock`` on a 64-bit key derived from each name. Two
  transactions holding different names do not wait for each other. Statements after it see
  every transaction that held the name before (read committed: each statement reads what was
  committed when it started).
- **SQLite**: the database's one write lock, taken by a write that changes nothing. Every
  other writer waits (SQLite serialises writers anyway), and the reads after it see the last
  commit, as no other transaction can commit until this one ends. Reads before it may be
  outdated, so call it before reading what the decision depends on.

Either lock ends with its transaction, and with its connection: a holder that dies frees it
at once (the database server ends the session, the operating system the file lock), so
nothing waits on a holder that is gone.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import false, text, update
from sqlmodel import Session

from leaderboard.models import Team


def lock_key(name: str) -> int:
    """The signed 64-bit advisory-lock key of ``name`` (a stable digest, not ``hash()``,
    which differs between processes)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big",
                          signed=True)


def hold(session: Session, *names: str) -> None:
    """Lock ``names`` until the session's transaction ends.

    Several names are taken in one order (by key), so two transactions asking for
    overlapping sets cannot deadlock on them.
    """
    if not names:
        return
    if session.get_bind().dialect.name == "postgresql":
        for key in sorted({lock_key(name) for name in names}):
            session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
        return
    # Any write takes SQLite's write lock; this one matches no row and changes nothing.
    session.execute(update(Team).where(false()).values(disabled=Team.disabled),
                    execution_options={"synchronize_session": False})
