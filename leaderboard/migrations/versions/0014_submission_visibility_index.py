"""submission: an index that answers which of a board's systems are not public

Revision ID: 0014_submission_visibility_index
Revises: 0013_drop_prepared_page
Create Date: 2026-12-02 01:55:00
"""

from alembic import op

revision = "0014_submission_visibility_index"
down_revision = "0013_drop_prepared_page"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_submission_board_visibility", "submission",
                    ["board_id", "id", "team_id", "status", "is_public", "hidden",
                     "release_state"])


def downgrade() -> None:
    op.drop_index("ix_submission_board_visibility", table_name="submission")
