"""result_resamples and ranking_state: what an incremental ranking refresh keeps

Each result's headline values on the shared resamples (per POS), written when it is scored
(older results get theirs at the next full refresh), and per snapshot the state of its rank
intervals and conservative ranks. An index answers "the board's latest snapshot"
without reading the snapshot's row.

Revision ID: 0008_ranking_state
Revises: 0007_release_policy
Create Date: 2026-11-25 02:30:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008_ranking_state"
down_revision = "0007_release_policy"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resultresamples",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("pos", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("keys", sqlmodel.sql.sqltypes.AutoString(length=1000), nullable=False),
        sa.Column("values", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["result_id"], ["result.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("result_id", "pos"),
    )
    with op.batch_alter_table("resultresamples") as batch:
        batch.create_index(batch.f("ix_resultresamples_result_id"), ["result_id"], unique=False)
    op.create_table(
        "rankingstate",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("snapshot_id", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["snapshot_id"], ["leaderboardsnapshot.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rankingstate") as batch:
        batch.create_index(batch.f("ix_rankingstate_snapshot_id"), ["snapshot_id"], unique=True)


    with op.batch_alter_table("leaderboardsnapshot") as batch:
        batch.create_index("ix_leaderboardsnapshot_board_latest",
                           ["board_id", "id", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("leaderboardsnapshot") as batch:
        batch.drop_index("ix_leaderboardsnapshot_board_latest")
    op.drop_table("rankingstate")
    op.drop_table("resultresamples")
