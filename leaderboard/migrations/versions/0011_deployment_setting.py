"""deploymentsetting: facts every machine of a deployment checks itself against

One row per fact, for now ``secret_key_fingerprint`` (an HMAC-SHA256 of a fixed string under
``LEADERBOARD_SECRET_KEY``, never the key), written by the first ``leaderboard db upgrade`` or
``leaderboard deploy check`` and compared by every later check.

Revision ID: 0011_deployment_setting
Revises: 0010_team_name_skeleton
Create Date: 2026-11-26 18:40:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011_deployment_setting"
down_revision = "0010_team_name_skeleton"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "deploymentsetting",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("value", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("deploymentsetting")
