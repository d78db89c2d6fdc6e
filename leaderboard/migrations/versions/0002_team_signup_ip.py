"""team.signup_ip: the address a team was created from (admin flags clusters of teams)

Revision ID: 0002_team_signup_ip
Revises: 0001_initial
Create Date: 2026-11-22 03:40:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0002_team_signup_ip"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.add_column(sa.Column("signup_ip", sqlmodel.sql.sqltypes.AutoString(length=45),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("team") as batch:
        batch.drop_column("signup_ip")
