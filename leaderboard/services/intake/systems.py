"""A team's systems: chosen or made at upload, their metadata edited with a history. One
rule for the form, the token API and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from leaderboard.models import Submission, System, SystemEdit, utcnow
from leaderboard.services.intake.errors import SubmissionError
from leaderboard.services.ranking.anonymity import due_reveals, new_tag, public_name
from leaderboard.services.text_fields import TextRefused, check_text, valid_url

#: Editable text fields: (label, longest, multi-line).
TEXTS = {"description": ("description", 5000, True), "paper_url": ("paper URL", 500, False),
         "code_url": ("code URL", 500, False), "base_model": ("base model", 200, False),
         "extra_resources": ("extra resources", 1000, True)}
FLAGS = {"external_llm_api": "external LLM API used", "open_weights": "open weights"}
#: Every editable field, in the order forms and pages show them.
FIELDS = (*TEXTS, "parameter_count", *FLAGS)
FIELD_LABELS = {**{k: v[0] for k, v in TEXTS.items()}, "parameter_count": "parameter count",
                **FLAGS}
#: Double-blind review: whether the public sees the system as "Anonymous <tag>", and the
#: day it is named by itself (empty: by hand). Kept in the history like the metadata.
ANONYMITY = ("anonymous", "reveal_on")
#: What an edit (form, upload, API, CLI) may set.
EDITABLE = (*FIELDS, *ANONYMITY)
FIELD_LABELS.update(anonymous="anonymous", reveal_on="reveal date")
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _flag(key: str, value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("", "unknown"):
        return None
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise SubmissionError(400, "bad_field", f"{FLAGS[key]} must be true, false or empty")


def _anonymous(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = "" if value is None else str(value).strip().lower()
    if text in _TRUE | _FALSE | {""}:
        return text in _TRUE
    raise SubmissionError(400, "bad_field", "anonymous must be true or false")


def _day(value: Any) -> datetime | None:
    """A reveal date (YYYY-MM-DD, UTC; empty: none): the name appears from its start."""
    text = "" if value is None else str(value).strip()
    if not text:
        return None
    try:
        return (datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC) if len(text) == 10
                else _bad_day())
    except ValueError:
        return _bad_day()


def _bad_day() -> datetime:
    raise SubmissionError(400, "bad_field", "reveal_on must be a date, YYYY-MM-DD")


def _count(value: Any) -> int | None:
    text = "" if value is None else str(value).strip().replace(",", "").replace("_", "")
    if text == "":
        return None
    if isinstance(value, bool) or not text.isdigit() or len(text) > 15:
        raise SubmissionError(400, "bad_field",
                              "parameter count must be a whole number (7000000000 for 7B)")
    return int(text)


def _text(key: str, value: Any) -> str:
    label, longest, multiline = TEXTS[key]
    text = "" if value is None else str(value).strip()
    try:
        check_text(label, text, multiline=multiline)
    except TextRefused as exc:
        raise SubmissionError(400, "bad_characters", exc.message) from exc
    if len(text) > longest:
        raise SubmissionError(400, "field_too_long",
                              f"the {label} is longer than {longest} characters")
    if key.endswith("_url") and text and not valid_url(text):
        raise SubmissionError(400, "bad_url", f"the {label} must be an http:// or https:// "
                              "address with a host and no spaces, e.g. https://arxiv.org/abs/1")
    return text


def parse_changes(fields: dict[str, Any]) -> dict[str, Any]:
    """The metadata ``fields`` (form or JSON values) checked and typed; unknown keys are
    refused so a misspelt field is not silently dropped. Raises :class:`SubmissionError`."""
    unknown = sorted(set(fields) - set(EDITABLE))
    if unknown:
        raise SubmissionError(400, "unknown_field", f"no such field: {', '.join(unknown)}; "
                              f"editable: {', '.join(EDITABLE)}")
    return {key: (_text(key, value) if key in TEXTS else _flag(key, value) if key in FLAGS
                  else _anonymous(value) if key == "anonymous"
                  else _day(value) if key == "reveal_on" else _count(value))
            for key, value in fields.items()}


def system_for(session: Session, team_id: int, name: str) -> System:
    """The team's system called ``name``, made when new (the caller holds the team's lock
    and commits)."""
    system = session.exec(select(System).where(System.team_id == team_id,
                                               System.name == name)).first()
    if system is None:
        system = System(team_id=team_id, name=name)
        session.add(system)
        session.flush()
    return system


def team_systems(session: Session, team_id: int | None) -> list[System]:
    """The team's systems by name (the upload form offers them)."""
    return list(session.exec(select(System).where(System.team_id == team_id)
                             .order_by(col(System.name))).all())


def _shown(value: Any) -> str:
    if isinstance(value, datetime):
        return value.date().isoformat()
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def apply_changes(session: Session, system: System, changes: dict[str, Any], *,
                  user_id: int | None, via: str) -> list[str]:
    """Set ``changes`` (from :func:`parse_changes`) and keep one :class:`SystemEdit` per
    field whose value changed; the names of those fields. The caller commits."""
    changes = dict(changes)
    if not changes.get("anonymous", system.anonymous):
        changes["reveal_on"] = None  # a named system has no reveal date
    if changes.get("anonymous") and not system.anonymous_tag:
        system.anonymous_tag = new_tag()
    changed = []
    for key in (k for k in EDITABLE if k in changes):  # one order, whatever the client's
        old, value = getattr(system, key), changes[key]
        if old == value:
            continue
        session.add(SystemEdit(system_id=system.id, user_id=user_id, via=via, field=key,
                               old=_shown(old), new=_shown(value), created_at=utcnow()))
        setattr(system, key, value)
        changed.append(key)
    session.add(system)
    return changed


def team_system(session: Session, team_id: int, slug: str) -> System:
    """The team's own system by its public id; the same 404 for another team's as for none,
    so a token cannot probe which ids exist."""
    system = session.exec(select(System).where(System.slug == slug)).first()
    if system is None or system.team_id != team_id:
        raise SubmissionError(404, "not_found", f"no system {slug}")
    return system


def edit_system(*, session: Session, system: System, fields: dict[str, Any],
                user_id: int | None, via: str,
                request_refresh: Callable[[dict[int, list[int]]], object] | None = None
                ) -> list[str]:
    """Check and store an edit, commit, then ask for the rankings that show the system's
    links to be recomputed (``request_refresh({board: [ids]})``). The changed fields."""
    changed = apply_changes(session, system, parse_changes(fields), user_id=user_id, via=via)
    session.commit()
    if changed and request_refresh is not None:
        request_refresh(boards_of(session, system.id))
    return changed


def boards_of(session: Session, system_id: int) -> dict[int, list[int]]:
    """Board id -> the system's submission ids on it."""
    out: dict[int, list[int]] = {}
    for board_id, sub_id in session.exec(select(Submission.board_id, Submission.id)
                                         .where(Submission.system_id == system_id)).all():
        out.setdefault(int(board_id), []).append(int(sub_id))
    return out


def system_json(system: System) -> dict[str, Any]:
    """A system as its team's API gives it: its public id, name, every metadata field, and
    whether (and as what, until when) the public sees it anonymous."""
    return {"id": system.slug, "name": system.name,
            **{key: getattr(system, key) for key in FIELDS},
            "anonymous": system.anonymous,
            "public_name": public_name(system.anonymous_tag) if system.anonymous else system.name,
            "reveal_on": system.reveal_on.date().isoformat() if system.reveal_on else None}


def reveal_due(*, session: Session, now: datetime | None = None,
               request_refresh: Callable[[dict[int, list[int]]], object] | None = None
               ) -> list[str]:
    """Name every anonymous system whose reveal date has come (kept in its history as an
    edit through ``reveal``), commit, and ask for its boards to be recomputed; their slugs."""
    revealed = []
    for system in due_reveals(session, now):
        apply_changes(session, system, {"anonymous": False}, user_id=None, via="reveal")
        revealed.append(system)
    session.commit()
    for system in revealed:
        if request_refresh is not None:
            request_refresh(boards_of(session, system.id))  # type: ignore[arg-type]
    return [s.slug for s in revealed]
