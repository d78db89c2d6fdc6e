"""user.mailbox: the mailbox an address delivers to, one account per mailbox

``me+1@x.org`` and ``me+2@x.org`` are one mailbox; the key folds a
``+tag``, case, a domain's trailing dot and Unicode form, and dots at Gmail
(``leaderboard.mailboxes.mailbox_key``, copied here: a migration must not change when the
application does). The index is not unique: accounts made before the rule may share a
mailbox. They keep working, are logged here as a warning so the hosts can tell, and share
one first result on each Ladder board.

Revision ID: 0009_user_mailbox
Revises: 0008_ranking_state
Create Date: 2026-11-26 10:00:00
"""

import logging
import unicodedata
from collections import defaultdict

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0009_user_mailbox"
down_revision = "0008_ranking_state"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")
DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def _domain_key(domain: str) -> str:
    domain = unicodedata.normalize("NFKC", domain).lower().rstrip(".")
    if domain.isascii():
        return domain
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def mailbox_key(address: str) -> str:
    """``leaderboard.mailboxes.mailbox_key`` as of this revision."""
    address = address.strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local:
        return address
    domain = _domain_key(domain)
    local = local.split("+", 1)[0] or local
    domain = DOTLESS_DOMAINS.get(domain, domain)
    if domain == "gmail.com":
        local = local.replace(".", "") or local
    return f"{local}@{domain}"


def fill_mailboxes(bind) -> dict[str, list[str]]:
    """Give every user its mailbox; returns the mailboxes that several accounts share."""
    accounts = defaultdict(list)
    for user_id, email in bind.execute(sa.text('SELECT id, email FROM "user" ORDER BY id')):
        key = mailbox_key(email)
        accounts[key].append(email)
        bind.execute(sa.text('UPDATE "user" SET mailbox = :key WHERE id = :id'),
                     {"key": key, "id": user_id})
    return {key: emails for key, emails in accounts.items() if len(emails) > 1}


def upgrade() -> None:
    op.add_column("user", sa.Column("mailbox", sqlmodel.sql.sqltypes.AutoString(length=320),
                                    nullable=False, server_default=""))
    for key, emails in fill_mailboxes(op.get_bind()).items():
        log.warning("accounts %s share the mailbox %s: they keep working, but a new account "
                    "on it is refused and the Ladder gives them one first result per board",
                    ", ".join(emails), key)
    op.create_index("ix_user_mailbox", "user", ["mailbox"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_user_mailbox", table_name="user")
    with op.batch_alter_table("user") as batch:
        batch.drop_column("mailbox")
