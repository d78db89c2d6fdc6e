"""system: one row per team and system name, holding the metadata (with its edit history);
submission.system_id points to it; submission.withdrawn_at

Revision ID: 0016_systems
Revises: 0015_split_table
Create Date: 2026-12-02 07:00:00
"""

import sqlalchemy as sa
from alembic import op

from leaderboard.models import new_slug

revision = "0016_systems"
down_revision = "0015_split_table"
branch_labels = None
depends_on = None

METADATA = ("description", "paper_url", "code_url")


def upgrade() -> None:
    op.create_table(
        "system",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("slug", sa.String(16), nullable=False),
        sa.Column("team_id", sa.Integer(), sa.ForeignKey("team.id"), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("description", sa.String(5000), nullable=False),
        sa.Column("paper_url", sa.String(500), nullable=False),
        sa.Column("code_url", sa.String(500), nullable=False),
        sa.Column("base_model", sa.String(200), nullable=False),
        sa.Column("parameter_count", sa.BigInteger(), nullable=True),
        sa.Column("external_llm_api", sa.Boolean(), nullable=True),
        sa.Column("extra_resources", sa.String(1000), nullable=False),
        sa.Column("open_weights", sa.Boolean(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("team_id", "name"))
    op.create_index("ix_system_slug", "system", ["slug"], unique=True)
    op.create_index("ix_system_team_id", "system", ["team_id"])
    op.create_table(
        "systemedit",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("system_id", sa.Integer(), sa.ForeignKey("system.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        sa.Column("via", sa.String(16), nullable=False),
        sa.Column("field", sa.String(40), nullable=False),
        sa.Column("old", sa.String(5000), nullable=False),
        sa.Column("new", sa.String(5000), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False))
    op.create_index("ix_systemedit_system_id", "systemedit", ["system_id"])
    _backfill()
    # Plain ALTERs (SQLite 3.35+ drops columns itself): a batch copy of submission would
    # drop the table the results point to, which SQLite's foreign keys refuse.
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("submission", "system_id", nullable=False)
    for column in METADATA:
        op.execute(f"ALTER TABLE submission DROP COLUMN {column}")
    op.create_index("ix_submission_system_id", "submission", ["system_id"])


def _backfill() -> None:
    """One system per distinct (team, name); its metadata is the newest upload's that gave
    any (older uploads' texts are dropped: there was one text per upload before)."""
    if op.get_bind().dialect.name == "sqlite":  # no ALTER of constraints: inline
        op.execute("ALTER TABLE submission ADD COLUMN system_id INTEGER REFERENCES system (id)")
    else:
        op.add_column("submission", sa.Column("system_id", sa.Integer(),
                                              sa.ForeignKey("system.id"), nullable=True))
    op.add_column("submission", sa.Column("withdrawn_at", sa.DateTime(), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, team_id, system_name, description, paper_url, code_url, created_at "
        "FROM submission ORDER BY created_at, id")).all()
    systems: dict[tuple[int, str], dict] = {}
    for row in rows:
        entry = systems.setdefault((row.team_id, row.system_name), {
            "slug": new_slug(), "team_id": row.team_id, "name": row.system_name,
            "description": "", "paper_url": "", "code_url": "", "base_model": "",
            "extra_resources": "", "created_at": row.created_at, "ids": []})
        if any(getattr(row, c) for c in METADATA):
            entry.update((c, getattr(row, c) or "") for c in METADATA)
        entry["ids"].append(row.id)
    columns = ("slug", "team_id", "name", *METADATA, "base_model", "extra_resources",
               "created_at")
    insert = sa.text(f"INSERT INTO system ({', '.join(columns)}) "
                     f"VALUES ({', '.join(':' + c for c in columns)})")
    for entry in systems.values():
        ids = entry.pop("ids")
        bind.execute(insert, entry)  # the stored time as it is (text on SQLite)
        system_id = bind.execute(sa.text("SELECT id FROM system WHERE slug = :slug"),
                                 {"slug": entry["slug"]}).scalar()
        bind.execute(sa.text("UPDATE submission SET system_id = :s WHERE id IN :ids")
                     .bindparams(sa.bindparam("ids", expanding=True)),
                     {"s": system_id, "ids": ids})


def downgrade() -> None:
    op.drop_index("ix_submission_system_id", table_name="submission")
    for column, size in (("description", 5000), ("paper_url", 500), ("code_url", 500)):
        op.add_column("submission", sa.Column(column, sa.String(size), nullable=False,
                                              server_default=""))
        op.execute(f"UPDATE submission SET {column} = (SELECT {column} FROM system "
                   "WHERE system.id = submission.system_id)")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("submission_system_id_fkey", "submission", type_="foreignkey")
    op.execute("ALTER TABLE submission DROP COLUMN withdrawn_at")
    op.execute("ALTER TABLE submission DROP COLUMN system_id")
    op.drop_table("systemedit")
    op.drop_table("system")
