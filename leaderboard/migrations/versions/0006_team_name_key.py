"""team.name_key: team names unique whatever their case, enforced by the database

The key is the name in NFKC, case-folded, blanks collapsed (``models.team_name_key``; copied
here, as a migration must not change when the model does). Existing teams whose names differ
only by case were possible before (the old index compared exact names): the oldest keeps its
name, each later one is renamed ``<name> (2)``, ``<name> (3)``... and every rename is logged
as a warning, so the hosts can tell the teams.

Revision ID: 0006_team_name_key
Revises: 0004_boards
Create Date: 2026-11-23 09:00:00
"""

import logging
import unicodedata

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006_team_name_key"
down_revision = "0005_submission_failure_detail"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")
NAME_MAX = 80


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _free_name(name: str, taken: set[str]) -> str:
    """``name (n)`` with the smallest n >= 2 whose key is not taken, within NAME_MAX."""
    n = 2
    while True:
        suffix = f" ({n})"
        candidate = name[:NAME_MAX - len(suffix)].rstrip() + suffix
        if _key(candidate) not in taken:
            return candidate
        n += 1


def rename_duplicates(bind) -> list[tuple[int, str, str]]:
    """Give every team a key, renaming the later of two teams with one key; returns renames."""
    teams = bind.execute(sa.text("SELECT id, name FROM team ORDER BY id")).all()
    taken = {_key(name) for _id, name in teams}
    seen: set[str] = set()
    renamed = []
    for team_id, name in teams:
        key = _key(name)
        new_name = name
        if key in seen:
            new_name = _free_name(name, taken | seen)
            key = _key(new_name)
            renamed.append((team_id, name, new_name))
        seen.add(key)
        taken.add(key)
        bind.execute(sa.text("UPDATE team SET name = :name, name_key = :key WHERE id = :id"),
                     {"name": new_name, "key": key, "id": team_id})
    return renamed


def upgrade() -> None:
    bind = op.get_bind()
    column = sa.Column("name_key", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=True)
    if bind.dialect.name == "sqlite":
        # In place (a batch copy of team would trip the foreign keys pointing at it). SQLite
        # keeps the column nullable; the model's listener fills it on every insert and update.
        op.execute("ALTER TABLE team ADD COLUMN name_key VARCHAR(255)")
    else:
        op.add_column("team", column)
    for team_id, old, new in rename_duplicates(bind):
        log.warning("team %s renamed from %r to %r: another team has that name in another "
                    "case, and team names are now unique whatever their case", team_id, old, new)
    if bind.dialect.name != "sqlite":
        op.alter_column("team", "name_key", nullable=False)
    op.create_index("ix_team_name_key", "team", ["name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_team_name_key", table_name="team")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("name_key")
