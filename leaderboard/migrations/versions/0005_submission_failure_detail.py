"""submission.failure_detail: our exception text of a failed attempt, for the hosts only
(failure_reason, which teams see, is a stable message without it)

Revision ID: 0005_submission_failure_detail
Revises: 0004_boards
Create Date: 2026-11-24 18:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0005_submission_failure_detail"
down_revision = "0004_boards"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("failure_detail",
                                   sqlmodel.sql.sqltypes.AutoString(length=2000),
                                   nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("failure_detail")
