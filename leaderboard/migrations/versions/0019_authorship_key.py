"""team.authorship_key: K, what the site keeps of a team's authorship secret

A team's result certificates carry ``sha256(K + ":" + result id)``, by which the team, holding
the secret, proves an anonymous entry was theirs (``leaderboard.scoring.certificates``).
K is ``sha256("swords-leaderboard-authorship:" + team id + ":" + secret)``, hex; the secret
itself is shown once to the team and never stored. Null: no secret yet (the column is added
empty; no team has one before this migration).

Revision ID: 0019_authorship_key
Revises: 0018_anonymous_systems
Create Date: 2026-12-02 16:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0019_authorship_key"
down_revision = "0018_anonymous_systems"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # In place, not a batch copy: on SQLite copying team would trip the foreign keys that
    # point at it, and a nullable column needs no copy.
    op.add_column("team", sa.Column("authorship_key", sqlmodel.sql.sqltypes.AutoString(length=64),
                                    nullable=True))


def downgrade() -> None:
    op.drop_column("team", "authorship_key")  # in place too (SQLite 3.35 and later)
