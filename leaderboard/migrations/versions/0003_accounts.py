"""accounts: server-side login sessions, e-mail verification, finish notifications

Revision ID: 0003_accounts
Revises: 0002_team_signup_ip
Create Date: 2026-11-22 03:40:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0003_accounts"
down_revision = "0002_team_signup_ip"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "loginsession",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_loginsession_user_id"), ["user_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_loginsession_token_hash"), ["token_hash"],
                              unique=True)
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email_verified_at", sqlmodel.sql.sqltypes.UTCDateTime(),
                                      nullable=True))
        batch_op.add_column(sa.Column("notify_on_finish", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("notified_at", sqlmodel.sql.sqltypes.UTCDateTime(),
                                      nullable=True))
    # Accounts that exist already are trusted: they count as verified from now on.
    op.execute(sa.text('UPDATE "user" SET email_verified_at = CURRENT_TIMESTAMP'))
    # Submissions finished before notifications existed are never announced (a rescore).
    op.execute(sa.text("UPDATE submission SET notified_at = finished_at "
                       "WHERE finished_at IS NOT NULL"))


def downgrade() -> None:
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_column("notified_at")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_column("notify_on_finish")
        batch_op.drop_column("email_verified_at")
    with op.batch_alter_table("loginsession", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_loginsession_token_hash"))
        batch_op.drop_index(batch_op.f("ix_loginsession_user_id"))
    op.drop_table("loginsession")
