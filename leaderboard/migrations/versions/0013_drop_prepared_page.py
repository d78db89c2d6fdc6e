"""drop preparedpage: rankers no longer prepare page bytes; web processes render from the
snapshot and keep what they render in memory

Revision ID: 0013_drop_prepared_page
Revises: 0012_prepared_page
Create Date: 2026-12-02 01:20:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0013_drop_prepared_page"
down_revision = "0012_prepared_page"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_preparedpage_snapshot_id", table_name="preparedpage")
    op.drop_index("ix_preparedpage_board_id", table_name="preparedpage")
    op.drop_table("preparedpage")


def downgrade() -> None:
    op.create_table(
        "preparedpage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("board_id", sa.Integer(), nullable=False),
        sa.Column("snapshot_id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("variant", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("snapshot_id", "kind", "variant"),
    )
    op.create_index("ix_preparedpage_board_id", "preparedpage", ["board_id"])
    op.create_index("ix_preparedpage_snapshot_id", "preparedpage", ["snapshot_id"])
