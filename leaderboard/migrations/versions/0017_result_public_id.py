"""result.public_id: the random id of a result's permalink, /results/<public_id>

Every existing result gets its own random id (64 bits, hex, as
``leaderboard.models.new_public_id`` makes them; copied here: a migration must not change
when the application does). A sequential id would tell, from a URL, which results were
scored one after the other, and so link entries to their teams.

Revision ID: 0017_result_public_id
Revises: 0016_systems
Create Date: 2026-12-02 07:00:00
"""

import secrets

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0017_result_public_id"
down_revision = "0016_systems"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("result", sa.Column("public_id", sqlmodel.sql.sqltypes.AutoString(length=32),
                                      nullable=False, server_default=""))
    bind = op.get_bind()
    for (result_id,) in bind.execute(sa.text("SELECT id FROM result ORDER BY id")).all():
        bind.execute(sa.text("UPDATE result SET public_id = :public_id WHERE id = :id"),
                     {"public_id": secrets.token_hex(8), "id": result_id})
    op.create_index("ix_result_public_id", "result", ["public_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_result_public_id", table_name="result")
    with op.batch_alter_table("result") as batch:
        batch.drop_column("public_id")
