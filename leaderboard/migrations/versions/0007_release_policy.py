"""board.release and submission.release_state/release_detail: the Ladder on test boards

Test boards of splits with hidden labels become ``ladder``; every other board
stays ``full``. Submissions scored before keep ``release_state`` empty, which counts as
released: their numbers were shown already.

Revision ID: 0007_release_policy
Revises: 0006_team_name_key
Create Date: 2026-11-24 23:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007_release_policy"
down_revision = "0006_team_name_key"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("board", sa.Column("release", sqlmodel.sql.sqltypes.AutoString(length=16),
                                     nullable=False, server_default="full"))
    op.add_column("submission", sa.Column(
        "release_state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False,
        server_default=""))
    op.add_column("submission", sa.Column("release_detail", sa.JSON(), nullable=True))
    op.execute("UPDATE board SET release = 'ladder' WHERE phase = 'test' AND benchmark_id IN "
               "(SELECT id FROM benchmark WHERE hidden)")


def downgrade() -> None:
    with op.batch_alter_table("submission") as batch:
        batch.drop_column("release_detail")
        batch.drop_column("release_state")
    with op.batch_alter_table("board") as batch:
        batch.drop_column("release")
