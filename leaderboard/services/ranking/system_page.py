"""A system's page: its result on every board it has a public one on, read from each
board's snapshot (rank with its interval, headline with its interval, the verdict against
its neighbours), its metadata and the history of its edits."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import Result, Submission, System, SystemEdit, Team
from leaderboard.scoring.significance import format_p, significant
from leaderboard.services.catalog.boards import board_title, list_boards
from leaderboard.services.ranking.anonymity import hidden_from, public_name
from leaderboard.services.ranking.metric_info import LABELS
from leaderboard.services.ranking.snapshot_reader import ranking_rows
from leaderboard.services.ranking.systems import can_view, publicly_visible


def _verdict(p: float | None, other: dict[str, Any] | None) -> dict[str, Any] | None:
    """The headline test against one neighbour: its name, p and whether it is significant."""
    if other is None or p is None:
        return None
    return {"system": other["system"], "team": other["team"], "id": other["id"],
            "p": format_p(p), "significant": significant(p)}


def board_results(session: Session, board_id: int, ids: set[int]) -> list[dict[str, Any]]:
    """The rows of ``ids`` on the board's ranking of every entry (not only each team's best:
    a team's older system keeps its rank), as the snapshot has them; ids it does not list
    yet (or no longer) are left out."""
    table = ranking_rows(session=session, board_id=board_id, entries="all")
    ranked = table.ranked_rows
    out = []
    for row in table.rows:
        if row["id"] not in ids:
            continue
        cell = next(c for c in row["cells"] if c["key"] == table.view.headline)
        place = next((i for i, r in enumerate(ranked) if r["id"] == row["id"]), None)
        above = ranked[place - 1] if place else None
        below = ranked[place + 1] if place is not None and place + 1 < len(ranked) else None
        out.append({
            "id": row["id"], "rank": row["rank"], "rank_lo": row["rank_lo"],
            "rank_hi": row["rank_hi"], "of": len(ranked), "set_apart": row["set_apart"],
            "metric": LABELS.get(table.view.headline, table.view.headline),
            "value": cell["shown"], "interval": cell["shown_interval"],
            "above": _verdict(row["rank_p"], above),
            "below": _verdict(below["rank_p"] if below else None, below)})
    return out


def _record_ids(session: Session, submission_ids: set[int]) -> dict[int, str]:
    """Each submission's current result's permalink id."""
    if not submission_ids:
        return {}
    return dict(session.exec(select(Result.submission_id, Result.public_id).where(
        col(Result.submission_id).in_(submission_ids), col(Result.is_current).is_(True))).all())


def system_page(*, session: Session, slug: str, viewer: Any) -> dict[str, Any] | None:
    """What a system's page shows, or None (404) when there is no such system or the viewer
    may see none of its uploads (its name is not public before a result of it is)."""
    system = session.exec(select(System).where(System.slug == slug)).first()
    if system is None:
        return None
    team = session.get(Team, system.team_id)
    uploads = session.exec(select(Submission).where(Submission.system_id == system.id)
                           .order_by(col(Submission.created_at))).all()
    own = bool(getattr(viewer, "is_authenticated", False)
               and (getattr(viewer, "is_admin", False) or viewer.team_id == system.team_id))
    seen = [s for s in uploads if can_view(s, viewer, team)]
    if not seen and not own:
        return None
    shown: dict[int, set[int]] = {}
    for sub in uploads:
        if publicly_visible(sub, team):
            shown.setdefault(sub.board_id, set()).add(sub.id)  # type: ignore[arg-type]
    boards = [{"board": board, "title": board_title(board, split),
               "results": board_results(session, board.id, shown[board.id])}  # type: ignore
              for board, split in list_boards(session) if board.id in shown]
    records = _record_ids(session, {i for ids in shown.values() for i in ids})
    for board in boards:
        for row in board["results"]:
            row["public_id"] = records.get(row["id"])
    edits = list(session.exec(select(SystemEdit).where(SystemEdit.system_id == system.id)
                              .order_by(col(SystemEdit.id))).all())
    public = [s.created_at for s in uploads if publicly_visible(s, team)]
    named = [e.created_at for e in edits if e.field == "anonymous" and e.new == "false"]
    masked = hidden_from(system, viewer)
    return {"system": system, "team": None if masked else team, "own": own,
            "uploads": seen, "boards": [b for b in boards if b["results"]],
            # While anonymous the public sees no edit: old values name the authors.
            "history": [] if masked else edits,
            "anonymous": system.anonymous_tag if system.anonymous else None,
            "masked": masked, "name": public_name(system.anonymous_tag) if masked else system.name,
            "public_since": min(public) if public else None,
            "named_since": None if system.anonymous else (max(named) if named else None)}


#: What a masked system's metadata withholds (free text and links name the authors).
_WITHHELD_FIELDS = ("description", "paper_url", "code_url")


def system_page_json(page: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """:func:`system_page` as the public API gives it, with the metadata ``fields``: the same
    facts as the page, masked alike (no team, links, description, history or integer id of
    an anonymous system)."""
    system, masked = page["system"], page["masked"]
    team = page["team"]

    def result(board: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
        return {"leaderboard": board["board"].slug, "title": board["title"],
                **{k: row[k] for k in ("rank", "rank_lo", "rank_hi", "of", "metric", "value",
                                       "interval", "set_apart")},
                "result": row.get("public_id"),
                **{side: None if row[side] is None else {
                    "system": row[side]["system"], "p": row[side]["p"],
                    "significant": row[side]["significant"],
                    **({} if masked else {"team": row[side]["team"]})}
                   for side in ("above", "below")}}

    def day(value: Any) -> str | None:
        return value.date().isoformat() if value is not None else None

    return {
        "id": system.slug, "name": page["name"], "anonymous": bool(masked),
        "team": None if team is None else {"id": team.id, "name": team.name},
        "metadata": {k: getattr(system, k) for k in fields
                     if not (masked and k in _WITHHELD_FIELDS)},
        "results": [result(b, r) for b in page["boards"] for r in b["results"]],
        "public_since": day(page["public_since"]), "named_since": day(page["named_since"]),
        "history": [{"field": e.field, "old": e.old, "new": e.new, "via": e.via,
                     "at": e.created_at.isoformat()} for e in page["history"]]}
