"""The table of benchmark splits is named for what a row is: split (was benchmark), and the
columns that point to it split_id (was benchmark_id)

Revision ID: 0015_split_table
Revises: 0014_submission_visibility_index
Create Date: 2026-12-02 02:40:00
"""

from alembic import op

revision = "0015_split_table"
down_revision = "0014_submission_visibility_index"
branch_labels = None
depends_on = None

#: Tables with a column pointing to the split table.
REFERRING = ("board", "submission", "referencesystem", "leaderboardsnapshot")


def _rename(old_table: str, new_table: str, old_column: str, new_column: str) -> None:
    # ALTER TABLE ... RENAME is the same statement on SQLite and PostgreSQL, and both carry
    # the foreign keys along; index names are made anew to match the models' naming.
    op.execute(f"ALTER TABLE {old_table} RENAME TO {new_table}")
    for table in REFERRING:
        op.drop_index(f"ix_{table}_{old_column}", table_name=table)
        op.execute(f"ALTER TABLE {table} RENAME COLUMN {old_column} TO {new_column}")
        op.create_index(f"ix_{table}_{new_column}", table, [new_column])


def upgrade() -> None:
    _rename("benchmark", "split", "benchmark_id", "split_id")


def downgrade() -> None:
    _rename("split", "benchmark", "split_id", "benchmark_id")
