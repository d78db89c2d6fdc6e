"""boards: a leaderboard is a benchmark split × track × phase; reported rows

Every existing split gets its generative board (phase test when its labels are hidden, dev
otherwise), the default split's board becomes the default, and submissions and snapshots
move onto it.

Revision ID: 0004_boards
Revises: 0003_accounts
Create Date: 2026-11-22 06:30:00
"""

import re

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004_boards"
down_revision = "0003_accounts"
branch_labels = None
depends_on = None

_String = sqlmodel.sql.sqltypes.AutoString
_DateTime = sqlmodel.sql.sqltypes.UTCDateTime


def _slug(name: str, version: str, split: str) -> str:
    text = f"{name}-v{version}-{split}-generative".lower()
    return re.sub(r"[^a-z0-9.]+", "-", text).strip("-")[:120]


def upgrade() -> None:
    op.create_table(
        "board",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", _String(length=120), nullable=False),
        sa.Column("benchmark_id", sa.Integer(), nullable=False),
        sa.Column("track", _String(length=16), nullable=False),
        sa.Column("phase", _String(length=16), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("created_at", _DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["benchmark_id"], ["benchmark.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("board", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_board_slug"), ["slug"], unique=True)
        batch_op.create_index(batch_op.f("ix_board_benchmark_id"), ["benchmark_id"], unique=False)
    op.create_table(
        "reportedrow",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("board_id", sa.Integer(), nullable=False),
        sa.Column("name", _String(length=200), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=True),
        sa.Column("citation", _String(length=500), nullable=False),
        sa.Column("url", _String(length=500), nullable=False),
        sa.Column("source", _String(length=200), nullable=False),
        sa.Column("origin", _String(length=300), nullable=False),
        sa.Column("benchmark_name", _String(length=80), nullable=False),
        sa.Column("benchmark_version", _String(length=40), nullable=False),
        sa.Column("benchmark_split", _String(length=80), nullable=False),
        sa.Column("note", _String(length=1000), nullable=False),
        sa.Column("created_at", _DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["board_id"], ["board.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("board_id", "origin", "name"),
    )
    with op.batch_alter_table("reportedrow", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_reportedrow_board_id"), ["board_id"], unique=False)
    with op.batch_alter_table("referencesystem", schema=None) as batch_op:
        batch_op.add_column(sa.Column("track", _String(length=16), nullable=True))
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    for table in ("submission", "leaderboardsnapshot"):
        if sqlite:
            # In place: a batch copy of the table would trip the foreign keys pointing at it
            # (results at submissions). SQLite keeps the column nullable; the code never
            # writes a row without a board.
            op.execute(f"ALTER TABLE {table} ADD COLUMN board_id INTEGER REFERENCES board (id)")
        else:
            op.add_column(table, sa.Column("board_id", sa.Integer(), nullable=True))

    benchmarks = bind.execute(sa.text(
        "SELECT id, name, version, split, hidden, is_default FROM benchmark ORDER BY id")).all()
    for bench_id, name, version, split, hidden, is_default in benchmarks:
        bind.execute(sa.text(
            "INSERT INTO board (slug, benchmark_id, track, phase, is_default, created_at) "
            "VALUES (:slug, :bench, 'generative', :phase, :default, CURRENT_TIMESTAMP)"),
            {"slug": _slug(name, version, split), "bench": bench_id,
             "phase": "test" if hidden else "dev", "default": bool(is_default)})
        board_id = bind.execute(sa.text("SELECT id FROM board WHERE benchmark_id = :bench"),
                                {"bench": bench_id}).scalar_one()
        for table in ("submission", "leaderboardsnapshot"):
            bind.execute(sa.text(f"UPDATE {table} SET board_id = :board "
                                 "WHERE benchmark_id = :bench"),
                         {"board": board_id, "bench": bench_id})

    for table in ("submission", "leaderboardsnapshot"):
        op.create_index(f"ix_{table}_board_id", table, ["board_id"], unique=False)
        if not sqlite:
            op.alter_column(table, "board_id", existing_type=sa.Integer(), nullable=False)
            op.create_foreign_key(f"fk_{table}_board_id", table, "board", ["board_id"], ["id"])
    # The default is a board's now, not a split's. SQLite (3.35+) drops the column in place:
    # a batch copy of the table would trip the foreign keys that point at it.
    op.execute("ALTER TABLE benchmark DROP COLUMN is_default")


def downgrade() -> None:
    op.add_column("benchmark", sa.Column("is_default", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    op.execute("UPDATE benchmark SET is_default = TRUE WHERE id IN "
               "(SELECT benchmark_id FROM board WHERE is_default)")
    sqlite = op.get_bind().dialect.name == "sqlite"
    for table in ("submission", "leaderboardsnapshot"):
        if not sqlite:
            op.drop_constraint(f"fk_{table}_board_id", table, type_="foreignkey")
        op.drop_index(f"ix_{table}_board_id", table)
        op.execute(f"ALTER TABLE {table} DROP COLUMN board_id")
    op.execute("ALTER TABLE referencesystem DROP COLUMN track")
    op.drop_table("reportedrow")
    op.drop_table("board")
