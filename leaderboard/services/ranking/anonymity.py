"""Anonymous systems, for double-blind review: the one place that decides what the public
sees of a system its team marked anonymous.

While ``System.anonymous`` is set, every public surface names the system
``Anonymous <tag>`` and withholds what would name its authors: the team (name and id), the
free-text description, the paper and code links, and its integer submission ids (a sequence
links entries to teams: public pages name it by its system slug and result ids only). Its
numbers, intervals, ranks and significance stay, and so do the facts readers filter by (base
model, parameters, open weights, external LLM API, extra resources). Its team and the hosts
see everything.

The ranker writes anonymous rows into snapshots already masked (:func:`masked_entry`), and
the read path masks the systems anonymous in the database now (:func:`masked_data` with
:func:`anonymous_now`), so marking a system anonymous takes effect at the next request.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import SLUG_ALPHABET, System, utcnow

#: What an anonymous row shows in the team column (no team is named).
ANONYMOUS_TEAM = "anonymous"
#: Snapshot fields of a row that name its authors, and what they read while anonymous.
WITHHELD: dict[str, Any] = {"team": ANONYMOUS_TEAM, "team_id": None, "description": "",
                            "paper_url": "", "code_url": ""}


def new_tag() -> str:
    """A short random tag ("7f3k"): 20 bits, enough to tell a board's anonymous entries
    apart, and drawn, never derived from an id or a name."""
    return "".join(secrets.choice(SLUG_ALPHABET) for _ in range(4))


def public_name(tag: str) -> str:
    """The name an anonymous system goes by on every public surface."""
    return f"Anonymous {tag}"


def is_own(viewer: Any, team_id: int | None) -> bool:
    """Whether ``viewer`` sees a system of ``team_id`` whole: a member of the team, or a
    host."""
    if viewer is None or not getattr(viewer, "is_authenticated", False):
        return False
    return bool(getattr(viewer, "is_admin", False)) or viewer.team_id == team_id


def hidden_from(system: System | None, viewer: Any) -> bool:
    """Whether ``viewer`` must see ``system`` masked (anonymous, and not theirs)."""
    return bool(system is not None and system.anonymous
                and not is_own(viewer, system.team_id))


def masked_entry(entry: dict[str, Any], tag: str) -> dict[str, Any]:
    """A snapshot row (or any row of the same fields) as the public sees an anonymous
    system: renamed, without what names its team, its submission date to the day. A new
    dict; ``entry`` is left as it was."""
    out = {**entry, **{k: v for k, v in WITHHELD.items() if k in entry}}
    out["system"] = public_name(tag)
    out["anonymous"] = tag
    if isinstance(out.get("date"), str):
        out["date"] = out["date"][:10]
    return out


def team_key(entry: dict[str, Any]) -> Any:
    """Who a row counts as for "best per team": an anonymous row is a team of its own, so a
    team's named systems keep their place whatever its anonymous one scores."""
    if entry.get("anonymous"):
        return ("anonymous", entry.get("system_slug"))
    return entry["team_id"]


def anonymous_now(session: Session) -> dict[str, str]:
    """Slug -> tag of every system anonymous now (few: one index scan)."""
    rows = session.exec(select(System.slug, System.anonymous_tag)
                        .where(col(System.anonymous).is_(True))).all()
    return {str(slug): str(tag) for slug, tag in rows}


def masked_data(data: dict[str, Any], tags: dict[str, str]) -> dict[str, Any]:
    """A snapshot's data with the rows of ``tags``' systems masked (a new dict when any is;
    ``data`` is shared and never changed)."""
    systems = data.get("systems") or []
    if not any(s.get("system_slug") in tags and not s.get("anonymous") for s in systems):
        return data
    return {**data, "systems": [
        masked_entry(s, tags[s["system_slug"]])
        if s.get("system_slug") in tags and not s.get("anonymous") else s for s in systems]}


def public_ids(data: dict[str, Any]) -> frozenset[int]:
    """Submission ids of a snapshot's anonymous rows: public routes taking an integer
    submission id answer 404 for them, as for an unknown id."""
    return frozenset(int(s["id"]) for s in data.get("systems", []) if s.get("anonymous"))


def set_anonymous(system: System, anonymous: bool, reveal_on: datetime | None) -> None:
    """Mark ``system`` anonymous (drawing its tag the first time) or named."""
    if anonymous and not system.anonymous_tag:
        system.anonymous_tag = new_tag()
    system.anonymous = anonymous
    system.reveal_on = reveal_on if anonymous else None


def due_reveals(session: Session, now: datetime | None = None) -> list[System]:
    """Anonymous systems whose reveal date has come, locked until the caller commits (on
    PostgreSQL; rows another ranker is revealing are skipped, so each reveal is kept once)."""
    now = now or utcnow()
    return list(session.exec(select(System).where(
        col(System.anonymous).is_(True), col(System.reveal_on).is_not(None),
        col(System.reveal_on) <= now).with_for_update(skip_locked=True)).all())


def shown_id(entry: dict[str, Any]) -> int | None:
    """A row's submission id as public answers give it: none for an anonymous row."""
    return None if entry.get("anonymous") else entry.get("id")


def page_path(entry: dict[str, Any]) -> str:
    """The tail of a row's public page under ``/systems/``: its upload's page by submission
    id, or, for an anonymous row, its system's page by slug (no integer id on any public
    page)."""
    return str(entry["system_slug"]) if entry.get("anonymous") else str(entry["id"])
