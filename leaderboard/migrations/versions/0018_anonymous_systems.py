"""system.anonymous, anonymous_tag, reveal_on: anonymous systems for double-blind review

A system marked anonymous is shown on every public surface as "Anonymous <tag>" until it is
revealed, by hand or on ``reveal_on``. Existing systems are named (``anonymous`` false, no
tag yet: one is drawn when a system is first made anonymous).

Revision ID: 0018_anonymous_systems
Revises: 0017_result_public_id
Create Date: 2026-12-02 16:00:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0018_anonymous_systems"
down_revision = "0017_result_public_id"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (not a batch copy): SQLite would drop and rebuild ``system``, which
    # ``submission`` references.
    op.add_column("system", sa.Column("anonymous", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    op.add_column("system", sa.Column("anonymous_tag", sqlmodel.sql.sqltypes.AutoString(length=8),
                                      nullable=False, server_default=""))
    op.add_column("system", sa.Column("reveal_on", sa.DateTime(), nullable=True))
    # every public read asks which systems are anonymous now: one index range, not a scan
    op.create_index("ix_system_anonymous", "system", ["anonymous"])


def downgrade() -> None:
    op.drop_index("ix_system_anonymous", table_name="system")
    for column in ("reveal_on", "anonymous_tag", "anonymous"):
        op.drop_column("system", column)
