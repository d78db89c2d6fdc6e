"""team.name_skeleton: no two teams whose names look alike, enforced by the database

The skeleton is the Unicode TR39 skeleton of the name's NFKC form, case-folded and skeleton
again, blanks collapsed (``leaderboard.services.access.team_names.name_skeleton``; copied here,
as a migration must not change when the application does; the confusable pairs come from the
pinned ``confusable_homoglyphs``). Existing teams with look-alike names ("Team 1", "Team l")
were possible before: the oldest keeps its name, each later one is renamed ``<name> (2)``,
``<name> (3)``... as 0006 did for case variants, and every rename is logged as a warning so
the hosts can tell the teams.

Revision ID: 0010_team_name_skeleton
Revises: 0009_user_mailbox
Create Date: 2026-11-26 18:00:00
"""

import logging
import unicodedata

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0010_team_name_skeleton"
down_revision = "0009_user_mailbox"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")
NAME_MAX = 80


def _prototypes() -> dict[str, str]:
    from confusable_homoglyphs.confusables import confusables_data

    pairs = {key.replace("\u200e", ""): [entry["c"].replace("\u200e", "") for entry in value]
             for key, value in confusables_data.items()}
    prototypes = {}
    for char, others in pairs.items():
        if len(char) == 1 and len(others) == 1:
            other, back = others[0], pairs.get(others[0], [])
            if len(other) > 1 or len(back) > 1:
                prototypes[char] = other
            elif back == [char]:
                prototypes[char] = min(char, other)
    for char, target in prototypes.items():
        for _ in range(4):
            mapped = "".join(prototypes.get(c, c) for c in target)
            if mapped == target:
                break
            target = mapped
        prototypes[char] = target
    return prototypes


def _skeleton(text: str, prototypes: dict[str, str]) -> str:
    text = unicodedata.normalize("NFD", text)
    for _ in range(3):
        mapped = unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))
        if mapped == text:
            break
        text = mapped
    return text


def name_skeleton(name: str, prototypes: dict[str, str]) -> str:
    """The name's skeleton key (see the module docstring)."""
    first = _skeleton(unicodedata.normalize("NFKC", name), prototypes)
    return " ".join(_skeleton(first.casefold(), prototypes).split())


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def rename_look_alikes(bind) -> list[tuple[int, str, str]]:
    """Give every team a skeleton, renaming the later of two look-alikes; returns renames."""
    prototypes = _prototypes()
    teams = bind.execute(sa.text("SELECT id, name FROM team ORDER BY id")).all()
    taken_keys = {_key(name) for _id, name in teams}
    taken = {name_skeleton(name, prototypes) for _id, name in teams}
    seen: set[str] = set()
    renamed = []
    for team_id, name in teams:
        skeleton, new_name = name_skeleton(name, prototypes), name
        if skeleton in seen:
            n = 2
            while True:
                suffix = f" ({n})"
                new_name = name[:NAME_MAX - len(suffix)].rstrip() + suffix
                skeleton = name_skeleton(new_name, prototypes)
                if skeleton not in taken | seen and _key(new_name) not in taken_keys:
                    break
                n += 1
            taken_keys.add(_key(new_name))
            renamed.append((team_id, name, new_name))
        seen.add(skeleton)
        taken.add(skeleton)
        bind.execute(sa.text("UPDATE team SET name = :name, name_key = :key, "
                             "name_skeleton = :skeleton WHERE id = :id"),
                     {"name": new_name, "key": _key(new_name), "skeleton": skeleton,
                      "id": team_id})
    return renamed


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        # In place, as 0006 (a batch copy of team would trip the foreign keys pointing at it).
        op.execute("ALTER TABLE team ADD COLUMN name_skeleton VARCHAR(255)")
    else:
        op.add_column("team", sa.Column("name_skeleton",
                                        sqlmodel.sql.sqltypes.AutoString(length=255),
                                        nullable=True))
    for team_id, old, new in rename_look_alikes(bind):
        log.warning("team %s renamed from %r to %r: another team's name looks the same, and "
                    "team names may no longer look alike", team_id, old, new)
    if bind.dialect.name != "sqlite":
        op.alter_column("team", "name_skeleton", nullable=False)
    op.create_index("ix_team_name_skeleton", "team", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_team_name_skeleton", table_name="team")
    with op.batch_alter_table("team") as batch:
        batch.drop_column("name_skeleton")
