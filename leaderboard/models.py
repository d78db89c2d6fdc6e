"""Database tables. The submission row is the truth about a submission; RQ state is a cache.

Datetimes are timezone-aware UTC (``utcnow``); SQLModel's UTCDateTime stores them alike on
SQLite and PostgreSQL and refuses naive values.
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Index,
    LargeBinary,
    UniqueConstraint,
    event,
    insert,
    select,
)
from sqlalchemy.orm import defer
from sqlmodel import Field, SQLModel

from leaderboard.services.access.mailboxes import mailbox_key
from leaderboard.services.access.team_names import name_skeleton


def utcnow() -> datetime:
    """Current time, timezone-aware UTC."""
    return datetime.now(UTC)


class SubmissionStatus:
    """Lifecycle: queued -> running -> scored | invalid | failed."""

    QUEUED = "queued"
    RUNNING = "running"
    SCORED = "scored"
    INVALID = "invalid"
    FAILED = "failed"
    PENDING = (QUEUED, RUNNING)
    ALL = (QUEUED, RUNNING, SCORED, INVALID, FAILED)


def team_name_key(name: str) -> str:
    """The form of a team name that must be unique: NFKC, case-folded, blanks collapsed.

    Computed here rather than with the database's ``lower()``: SQLite's folds ASCII only and
    PostgreSQL's depends on the server's locale, so only a stored key is the same on both.
    """
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


class Team(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=80)
    # team_name_key(name), kept by the listener below; its unique index makes "Case Team"
    # and "CASE TEAM" one name for the database, whichever request commits first.
    # (NFKC and case-folding can lengthen a name: "ﬃ" is "ffi".)
    name_key: str = Field(default="", index=True, unique=True, max_length=255)
    # team_names.name_skeleton(name), kept by the listener below: its unique index keeps one
    # of two look-alike names ("Team 1" and "Team l", Latin "pax" and Cyrillic "рах"),
    # whichever request commits first.
    name_skeleton: str = Field(default="", index=True, unique=True, max_length=255)
    disabled: bool = False
    # Moves the start of the quota window (admin "reset quota").
    quota_reset_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    # Client address of the sign-up request (None: created by the host with the CLI).
    signup_ip: str | None = Field(default=None, max_length=45)
    # K of the team's authorship secret (leaderboard.scoring.certificates.authorship_key),
    # never the secret: its result certificates commit to it. None: no secret made yet.
    authorship_key: str | None = Field(default=None, max_length=64)


@event.listens_for(Team, "before_insert")
@event.listens_for(Team, "before_update")
def _set_team_name_key(_mapper, _connection, team: Team) -> None:
    team.name_key = team_name_key(team.name)
    team.name_skeleton = name_skeleton(team.name)


class User(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True, max_length=254)
    password_hash: str = Field(max_length=255)
    team_id: int | None = Field(default=None, foreign_key="team.id", index=True)
    is_admin: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    password_changed_at: datetime = Field(default_factory=utcnow)
    # None until the address is confirmed by its signed link (host-made accounts: at once).
    email_verified_at: datetime | None = None
    # Opt-in: an e-mail when one of the team's submissions reaches a final status.
    notify_on_finish: bool = False
    # mailbox_key(email), kept by the listener below: one account per mailbox (me+1@ and me+2@
    # are one), checked under a lock (accounts.claim_mailbox); not unique in the database, as
    # accounts made before the rule may share one (migration 0009).
    mailbox: str = Field(default="", index=True, max_length=320)


@event.listens_for(User, "before_insert")
@event.listens_for(User, "before_update")
def _set_user_mailbox(_mapper, _connection, user: User) -> None:
    user.mailbox = mailbox_key(user.email)


class LoginSession(SQLModel, table=True):
    """A signed-in browser: logout deletes its row, so a replayed cookie is worthless."""

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user.id", index=True)
    # sha256 of the random id kept in the signed session cookie.
    token_hash: str = Field(index=True, unique=True, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class ApiToken(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    team_id: int = Field(foreign_key="team.id", index=True)
    created_by_id: int | None = Field(default=None, foreign_key="user.id")
    name: str = Field(max_length=80)
    # First characters of the secret, kept in clear so a token can be found and shown.
    prefix: str = Field(index=True, max_length=16)
    secret_hash: str = Field(max_length=128)
    scopes: str = Field(default="submit read", max_length=200)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class Split(SQLModel, table=True):
    """One split of one benchmark version, with its prepared gold."""

    __table_args__ = (UniqueConstraint("name", "version", "split"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    version: str = Field(max_length=40)
    split: str = Field(max_length=80)
    checksum: str = Field(max_length=64)
    hidden: bool = True
    n_targets: int = 0
    # The file as imported (gzipped JSON), for input export and re-preparation.
    source_bytes: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    # PreparedSplit.to_bytes(): what a worker loads instead of re-lemmatizing gold.
    prepared_bytes: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    scorer_version: str = Field(max_length=40)
    created_at: datetime = Field(default_factory=utcnow)

    @staticmethod
    def without_files() -> tuple:
        """Loader options leaving the two files (megabytes each) unread until an attribute
        read inside the session needs them: most uses want the id, checksum or name only."""
        return (defer(Split.source_bytes), defer(Split.prepared_bytes))


class Track:
    """What a submission gives: its own ranked substitutes, or a score for every candidate."""

    GENERATIVE = "generative"
    RANKING = "ranking"
    ALL = (GENERATIVE, RANKING)


class Phase:
    """Test: hidden labels, strict quotas. Dev: public labels, a generous quota, diagnostics."""

    TEST = "test"
    DEV = "dev"
    ALL = (TEST, DEV)


class Release:
    """When a board shows a new result. ``full``: always. ``ladder`` (Blum & Hardt 2015): only
    when it is significantly better than its team's best released result on the board, so an
    adaptive probe reads at most one bit per submission from hidden labels."""

    FULL = "full"
    LADDER = "ladder"
    ALL = (FULL, LADDER)


class ReleaseState:
    """A scored submission's release: ``""`` (not decided yet, or scored before the policy
    existed: released), ``released`` or ``held`` (its numbers are shown to nobody but hosts)."""

    UNDECIDED = ""
    RELEASED = "released"
    HELD = "held"


class Board(SQLModel, table=True):
    """One leaderboard: a benchmark split × track × phase, with its own ranking and quotas."""

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(index=True, unique=True, max_length=120)
    split_id: int = Field(foreign_key="split.id", index=True)
    track: str = Field(default=Track.GENERATIVE, max_length=16)
    phase: str = Field(default=Phase.TEST, max_length=16)
    is_default: bool = False
    # Release.FULL or Release.LADDER (the default for a test board with hidden labels).
    release: str = Field(default=Release.FULL, max_length=16)
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def labels_public(self) -> bool:
        """Dev-phase labels are public: per-target diagnostics may be shown."""
        return self.phase == Phase.DEV


#: Letters of a system's public id (RFC 4648 base32, lower case); the first is a letter,
#: so an id is never a whole number (``/systems/<submission id>`` are uploads' pages).
SLUG_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"


def new_slug() -> str:
    """A random public id of 10 base32 characters (50 bits): public URLs name a system by
    it, never by its sequential row id, which would count a board's systems and date them."""
    rest = "".join(secrets.choice(SLUG_ALPHABET) for _ in range(9))
    return secrets.choice(SLUG_ALPHABET[:26]) + rest


class System(SQLModel, table=True):
    """A team's system, one across boards: its uploads (``Submission.system_id``) on every
    board, and the metadata researchers cite and filter by (edits kept in ``SystemEdit``)."""

    __table_args__ = (UniqueConstraint("team_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(default_factory=new_slug, unique=True, index=True, max_length=16)
    team_id: int = Field(foreign_key="team.id", index=True)
    name: str = Field(max_length=120)
    description: str = Field(default="", max_length=5000)
    paper_url: str = Field(default="", max_length=500)
    code_url: str = Field(default="", max_length=500)
    base_model: str = Field(default="", max_length=200)
    parameter_count: int | None = Field(default=None, sa_column=Column(BigInteger))
    external_llm_api: bool | None = None
    # Free text ("WordNet, CoInCo"): resources beyond the training data can leak the gold.
    extra_resources: str = Field(default="", max_length=1000)
    open_weights: bool | None = None
    # Double-blind review: while set, every public surface names the system "Anonymous
    # <anonymous_tag>" and withholds its team, links and free text (services/ranking/anonymity).
    # indexed: every public read asks which systems are anonymous now
    anonymous: bool = Field(default=False, index=True)
    # Random and kept once made, so "Anonymous 7f3k" stays the same name across boards and
    # across anonymous spells; never derived from an id.
    anonymous_tag: str = Field(default="", max_length=8)
    # When the name is revealed by itself (the ranker notices the day); None: by hand.
    reveal_on: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class SystemEdit(SQLModel, table=True):
    """One change of one metadata field of a system, as values were shown (never deleted)."""

    id: int | None = Field(default=None, primary_key=True)
    system_id: int = Field(foreign_key="system.id", index=True)
    user_id: int | None = Field(default=None, foreign_key="user.id")
    # upload, form or api: what the team used
    via: str = Field(default="", max_length=16)
    field: str = Field(max_length=40)
    old: str = Field(default="", max_length=5000)
    new: str = Field(default="", max_length=5000)
    created_at: datetime = Field(default_factory=utcnow)


class Submission(SQLModel, table=True):
    # Every public read asks which of a board's systems are not public: answered from this
    # index alone (SQLite keeps ``file_bytes`` in the row before these columns, and reading
    # them from the row walks its overflow pages).
    __table_args__ = (UniqueConstraint("team_id", "idempotency_key"),
                      Index("ix_submission_board_visibility", "board_id", "id", "team_id",
                            "status", "is_public", "hidden", "release_state"))

    id: int | None = Field(default=None, primary_key=True)
    team_id: int = Field(foreign_key="team.id", index=True)
    split_id: int = Field(foreign_key="split.id", index=True)
    board_id: int = Field(foreign_key="board.id", index=True)
    submitted_by_id: int | None = Field(default=None, foreign_key="user.id")
    system_id: int = Field(foreign_key="system.id", index=True)
    # System.name, copied when stored (a system is never renamed): read by listings, mails
    # and snapshots without a join. The metadata lives on the System only.
    system_name: str = Field(max_length=120)
    filename: str = Field(default="", max_length=255)
    file_bytes: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    file_sha256: str = Field(index=True, max_length=64)
    file_size: int = 0
    substitutes_lemmatized: bool | None = None
    status: str = Field(default=SubmissionStatus.QUEUED, index=True, max_length=16)
    # Human-readable stage while running: validating, scoring, intervals.
    progress: str = Field(default="", max_length=40)
    errors: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    warnings: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    # Shown to the team: our own words, never exception text (that is failure_detail).
    failure_reason: str = Field(default="", max_length=2000)
    # For the hosts only (admin pages): the exception of the last failed attempt.
    failure_detail: str = Field(default="", max_length=2000)
    attempts: int = 0
    is_public: bool = False
    hidden: bool = False
    hidden_reason: str = Field(default="", max_length=1000)
    # Withdrawn by its team: private for good (publish refuses it), kept for the hosts.
    withdrawn_at: datetime | None = None
    idempotency_key: str | None = Field(default=None, max_length=200)
    scorer_version: str = Field(default="", max_length=40)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    queued_at: datetime | None = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    heartbeat_at: datetime | None = None
    # When the "your submission finished" e-mails went out (set once, atomically).
    notified_at: datetime | None = None
    # ReleaseState; decided once, when the first result is stored (re-scoring keeps it).
    release_state: str = Field(default=ReleaseState.UNDECIDED, max_length=16)
    # Why held: the team's best released submission it was compared with (id, system,
    # metric, value) and whether p reached alpha; never a number derived from this file.
    release_detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))

    @property
    def held(self) -> bool:
        """Scored under the ladder without a significant gain: no number of it is shown."""
        return self.release_state == ReleaseState.HELD


def new_public_id() -> str:
    """A result's permalink id: random (64 bits, hex), so that a URL tells nothing of when it
    was scored or which other results are its team's, as a sequential id would."""
    return secrets.token_hex(8)


@event.listens_for(Submission, "before_insert")
def _set_system(_mapper, connection, sub: Submission) -> None:
    """A submission stored with a name only (the demo, host commands, tests) joins the
    team's system of that name, made when new; uploads pass ``system_id`` themselves."""
    if sub.system_id is not None:
        return
    table = System.__table__
    where = (table.c.team_id == sub.team_id) & (table.c.name == sub.system_name)
    found = connection.execute(select(table.c.id).where(where)).scalar()
    if found is None:
        found = connection.execute(insert(table).values(
            slug=new_slug(), team_id=sub.team_id, name=sub.system_name, description="",
            paper_url="", code_url="", base_model="", extra_resources="",
            created_at=utcnow())).inserted_primary_key[0]
    sub.system_id = found


class Result(SQLModel, table=True):
    """One scoring of a submission; older rows are kept as history (``is_current`` false)."""

    id: int | None = Field(default=None, primary_key=True)
    # The frozen record's permalink (/results/<public_id>); a re-score is a new row, a new id.
    public_id: str = Field(default_factory=new_public_id, unique=True, index=True,
                           max_length=32)
    submission_id: int = Field(foreign_key="submission.id", index=True)
    is_current: bool = True
    scorer_version: str = Field(max_length=40)
    split_checksum: str = Field(max_length=64)
    bootstrap_seed: int = 0
    bootstrap_samples: int = 1000
    metrics: dict[str, float] = Field(default_factory=dict, sa_column=Column(JSON))
    intervals: dict[str, list[float]] = Field(default_factory=dict, sa_column=Column(JSON))
    by_pos: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    counts: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    # Private per-target statistics (TargetStats.to_bytes()): never served publicly.
    target_stats: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class ReferenceSystem(SQLModel, table=True):
    """Humans and oracle rows: scored by the same engine, shown pinned, never ranked."""

    id: int | None = Field(default=None, primary_key=True)
    split_id: int = Field(foreign_key="split.id", index=True)
    name: str = Field(max_length=120)
    kind: str = Field(max_length=16)  # "human", "oracle" or "random"
    # The track whose boards show it (None: every track; a ranking board shows only humans).
    track: str | None = Field(default=None, max_length=16)
    note: str = Field(default="", max_length=1000)
    # Which metric keys this file provides (None: all); Humans combines three files.
    metric_keys: list[str] | None = Field(default=None, sa_column=Column(JSON))
    file_bytes: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    file_sha256: str = Field(max_length=64)
    scorer_version: str = Field(default="", max_length=40)
    metrics: dict[str, float] = Field(default_factory=dict, sa_column=Column(JSON))
    intervals: dict[str, list[float]] = Field(default_factory=dict, sa_column=Column(JSON))
    by_pos: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)


class ReportedRow(SQLModel, table=True):
    """Numbers copied from a publication: shown with the citation, never re-scored or ranked."""

    __table_args__ = (UniqueConstraint("board_id", "origin", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    board_id: int = Field(foreign_key="board.id", index=True)
    name: str = Field(max_length=200)
    # Percent, keyed by the scorer's metric keys; a metric the publication did not print is absent.
    metrics: dict[str, float] = Field(default_factory=dict, sa_column=Column(JSON))
    citation: str = Field(default="", max_length=500)
    url: str = Field(default="", max_length=500)
    # Where in the publication, e.g. "Table 4".
    source: str = Field(default="", max_length=200)
    # The file (shipped name or host path) the row came from; adding it again replaces its rows.
    origin: str = Field(default="", max_length=300)
    # What the publication computed it on, e.g. swords 1.0 test.
    benchmark_name: str = Field(default="", max_length=80)
    benchmark_version: str = Field(default="", max_length=40)
    benchmark_split: str = Field(default="", max_length=80)
    note: str = Field(default="", max_length=1000)
    created_at: datetime = Field(default_factory=utcnow)


class LeaderboardSnapshot(SQLModel, table=True):
    """Ranks, rank intervals and ties, recomputed when a submission is scored/published/hidden."""

    # Every page asks for a board's latest (id, created_at): answered from this index alone.
    # SQLite keeps ``data`` (large on a large board) in the row before created_at, and
    # reading created_at from the row walks its overflow pages on every request.
    __table_args__ = (Index("ix_leaderboardsnapshot_board_latest", "board_id", "id",
                            "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    split_id: int = Field(foreign_key="split.id", index=True)
    board_id: int = Field(foreign_key="board.id", index=True)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)


class ResultResamples(SQLModel, table=True):
    """A result's values of its board's headline metrics on the shared bootstrap resamples of
    one POS ("all" for every target): what an incremental ranking refresh reads instead of
    recomputing them from the target statistics. Written by the scoring job."""

    __table_args__ = (UniqueConstraint("result_id", "pos"),)

    id: int | None = Field(default=None, primary_key=True)
    result_id: int = Field(foreign_key="result.id", index=True)
    pos: str = Field(max_length=8)
    # Metric keys of the rows, comma-separated (a plain string: read thousands at a time).
    keys: str = Field(max_length=1000)
    # float64 array (number of keys, B), C order.
    values: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class RankingState(SQLModel, table=True):
    """What an incremental refresh of a board needs beside its snapshot's public data
    (:mod:`leaderboard.scoring.rank_state`, one per ranked metric and POS)."""

    id: int | None = Field(default=None, primary_key=True)
    snapshot_id: int = Field(foreign_key="leaderboardsnapshot.id", unique=True, index=True,
                             ondelete="CASCADE")
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class AuditLog(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    actor_id: int | None = Field(default=None, foreign_key="user.id")
    action: str = Field(max_length=80)
    object_type: str = Field(max_length=40)
    object_id: int | None = None
    reason: str = Field(default="", max_length=1000)
    created_at: datetime = Field(default_factory=utcnow)


class DeploymentSetting(SQLModel, table=True):
    """A fact every machine of a deployment checks itself against (``leaderboard deploy
    check``), such as the secret key's fingerprint: never a secret itself."""

    name: str = Field(primary_key=True, max_length=64)
    value: str = Field(max_length=255)
    created_at: datetime = Field(default_factory=utcnow)
