"""Bytes prepared with a snapshot: what readers ask for most, written once by the ranker.

After a ranker commits a board's snapshot it renders, for each view's default query, the
ranking page's blocks (the HTML inside the site's layout) and the ranking API's answer, and
stores them here keyed by (snapshot, kind, variant). A web process then serves the API
bytes as they are and wraps the page blocks in its layout (header, CSRF, board bar): it never
parses the snapshot for them. Missing bytes (an older snapshot, another query, a prepare that
failed) mean the caller computes as before.

The variant names everything the bytes depend on besides the snapshot: the parsed query,
the links' context and a fingerprint of the code that renders them (:func:`code_print`),
so a web process of another release never serves markup it would not have made.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from importlib.metadata import version
from pathlib import Path

from sqlmodel import Session, col, delete, func, select

from leaderboard.config import PROJECT_ROOT
from leaderboard.models import LeaderboardSnapshot, PreparedPage

PAGE = "page"
API = "api"
#: A value a page derives from the snapshot, as JSON (a chart, a significance grid, a matrix,
#: the snapshot's small keys).
VALUE = "value"
#: A system page's chart, as JSON: made from the system's result alone, so it is kept for
#: the board, not per snapshot (:func:`store_charts`, stored under :data:`BOARD_LEVEL`).
SYSTEM = "system"
#: The snapshot id of rows kept across a board's snapshots (system charts).
BOARD_LEVEL = 0
#: A ranking export (CSV or JSON file) of a view's default query.
EXPORT = "export"
#: A marker (no bytes) committed with a snapshot whose ranker is about to prepare it and
#: removed once it has: meanwhile readers keep the board's previous snapshot, whose bytes are
#: there, instead of every web process parsing the new one for each page (hundreds of ms a
#: process at 1,000 systems, during which its other readers wait).
PENDING = "pending"
#: A snapshot still marked pending this long after it was written is shown anyway: its
#: ranker died while preparing it (then readers see it well within a minute of the crash),
#: or the board is so large that readers had better see it before its last bytes (a
#: prepare takes 3 s at 1,000 systems, 28-50 s at 10,000).
PENDING_SECONDS = 45.0

#: What the prepared bytes are made from: a change to any of them changes every variant.
_SOURCES = ("templates/public", "leaderboard/blueprints/public/render.py",
            "leaderboard/blueprints/public/prepared.py",
            "leaderboard/services/ranking/ranking_table.py",
            "leaderboard/services/ranking/metric_info.py",
            "leaderboard/services/ranking/charts.py", "leaderboard/services/ranking/pairwise.py",
            "leaderboard/services/ranking/exports.py", "leaderboard/services/ranking/systems.py",
            "leaderboard/services/ranking/set_apart.py", "leaderboard/scoring/significance.py",
            "leaderboard/services/ranking/table_source.py",
            "leaderboard/services/ranking/table_rows.py")
#: What a system page's chart is made from (and the plotly release, :func:`chart_key`): a
#: release that changes templates keeps the board's charts.
_CHART_SOURCES = ("leaderboard/services/ranking/charts.py",
                  "leaderboard/services/ranking/metric_info.py")
_prints: dict[tuple[str, ...], str] = {}


def code_print(sources: tuple[str, ...] = _SOURCES) -> str:
    """A digest of the templates and modules that render prepared bytes (once a process)."""
    if sources not in _prints:
        digest = hashlib.sha1(usedforsecurity=False)
        for name in sources:
            path = PROJECT_ROOT / name
            files = sorted(path.rglob("*")) if path.is_dir() else [path]
            for file in files:
                if file.is_file():
                    digest.update(str(Path(file).relative_to(PROJECT_ROOT)).encode())
                    digest.update(file.read_bytes())
        _prints[sources] = digest.hexdigest()[:16]
    return _prints[sources]


def chart_key(*parts: object) -> str:
    """The stored name of a system chart: its parts, the print of the chart code and the
    plotly release."""
    return json.dumps([code_print(_CHART_SOURCES), _plotly_release(), SYSTEM, *parts],
                      separators=(",", ":"), default=str)


@functools.cache
def _plotly_release() -> str:
    """Read once: each reading parses plotly's metadata file (1.4 ms, for every system of a
    board's prepare)."""
    return version("plotly")


def variant_key(*parts: object) -> str:
    """The stored name of a variant: its parts as compact JSON, with the code's print."""
    return json.dumps([code_print(), *parts], separators=(",", ":"), default=str)


def store(session: Session, board_id: int, snapshot_id: int,
          items: Mapping[tuple[str, str], bytes]) -> None:
    """Write ``items`` ((kind, variant) -> bytes) for the snapshot, replacing what it had,
    and drop the rows of the board's snapshots that are gone (the snapshot's
    :data:`PENDING` marker stays until :func:`clear_pending`). The caller commits."""
    session.exec(delete(PreparedPage).where(col(PreparedPage.snapshot_id) == snapshot_id,
                                            col(PreparedPage.kind) != PENDING))
    live = select(LeaderboardSnapshot.id).where(LeaderboardSnapshot.board_id == board_id)
    session.exec(delete(PreparedPage).where(col(PreparedPage.board_id) == board_id,
                                            col(PreparedPage.snapshot_id) != BOARD_LEVEL,
                                            col(PreparedPage.snapshot_id).not_in(live)))
    session.add_all(PreparedPage(board_id=board_id, snapshot_id=snapshot_id, kind=kind,
                                 variant=variant, body=body)
                    for (kind, variant), body in items.items())
    session.flush()


def add(session: Session, board_id: int, snapshot_id: int,
        items: Mapping[tuple[str, str], bytes]) -> None:
    """Write ``items`` for the snapshot beside what :func:`store` wrote for it (a second
    batch). The caller commits."""
    session.add_all(PreparedPage(board_id=board_id, snapshot_id=snapshot_id, kind=kind,
                                 variant=variant, body=body)
                    for (kind, variant), body in items.items())
    session.flush()


def mark_pending(session: Session, board_id: int, snapshot_id: int) -> None:
    """Mark a snapshot as being prepared (in the transaction that writes it)."""
    session.add(PreparedPage(board_id=board_id, snapshot_id=snapshot_id, kind=PENDING,
                             variant="", body=b""))


def clear_pending(session: Session, snapshot_id: int) -> None:
    """Readers may show the snapshot now (its bytes are written, or will not be). The caller
    commits."""
    session.exec(delete(PreparedPage).where(col(PreparedPage.snapshot_id) == snapshot_id,
                                            col(PreparedPage.kind) == PENDING))


def pending_among(session: Session, snapshot_ids: Iterable[int]) -> set[int]:
    """Which of these snapshots are still marked :data:`PENDING` (one indexed query)."""
    ids = list(snapshot_ids)
    if not ids:
        return set()
    return set(session.exec(select(PreparedPage.snapshot_id).where(
        col(PreparedPage.snapshot_id).in_(ids), PreparedPage.kind == PENDING,
        PreparedPage.variant == "")).all())


def unprepared_boards(session: Session) -> list[int]:
    """Boards whose newest snapshot has no bytes of this release (none at all: written by an
    import or a host command; or made by other code, before a deploy) and is not being
    prepared: their readers' web processes compute every page until a ranker refreshes
    them. Checked by the snapshot's small-keys value, which every prepare writes."""
    newest = select(LeaderboardSnapshot.board_id,
                    func.max(LeaderboardSnapshot.id)).group_by(LeaderboardSnapshot.board_id)
    latest = {int(snapshot): int(board) for board, snapshot in session.exec(newest).all()}
    if not latest:
        return []
    meta = variant_key(VALUE, "meta", [])
    prepared = set(session.exec(select(PreparedPage.snapshot_id).where(
        col(PreparedPage.snapshot_id).in_(sorted(latest)),
        col(PreparedPage.kind).in_([VALUE, PENDING]),
        col(PreparedPage.variant).in_([meta, ""]))).all())
    return sorted(board for snapshot, board in latest.items() if snapshot not in prepared)


def load(session: Session, snapshot_id: int, kind: str, variant: str) -> bytes | None:
    """The stored bytes, or None."""
    return session.exec(select(PreparedPage.body).where(
        PreparedPage.snapshot_id == snapshot_id, PreparedPage.kind == kind,
        PreparedPage.variant == variant)).first()


def load_many(session: Session, snapshot_id: int, kind: str,
              variants: Iterable[str]) -> dict[str, bytes]:
    """The stored bytes of each of ``variants`` there are (one query)."""
    wanted = sorted(set(variants))
    if not wanted:
        return {}
    return dict(session.exec(select(PreparedPage.variant, PreparedPage.body).where(
        PreparedPage.snapshot_id == snapshot_id, PreparedPage.kind == kind,
        col(PreparedPage.variant).in_(wanted))).all())


def stored_variants(session: Session, snapshot_id: int) -> Iterable[tuple[str, str]]:
    """(kind, variant) of every row of the snapshot (tests, diagnostics)."""
    return session.exec(select(PreparedPage.kind, PreparedPage.variant)
                        .where(PreparedPage.snapshot_id == snapshot_id)).all()


def chart_variants(session: Session, board_id: int) -> set[str]:
    """Variants of the system charts kept for the board."""
    return set(session.exec(select(PreparedPage.variant).where(
        PreparedPage.board_id == board_id, PreparedPage.snapshot_id == BOARD_LEVEL,
        PreparedPage.kind == SYSTEM)).all())


def store_charts(session: Session, board_id: int, listed: set[str],
                 new: Mapping[str, bytes]) -> None:
    """Keep the board's system charts of the variants ``listed`` (the systems a snapshot
    lists): add ``new`` (variant -> bytes), drop those no longer listed. The caller
    commits."""
    kept = chart_variants(session, board_id)
    gone = kept - listed
    if gone:
        session.exec(delete(PreparedPage).where(
            col(PreparedPage.board_id) == board_id,
            col(PreparedPage.snapshot_id) == BOARD_LEVEL, col(PreparedPage.kind) == SYSTEM,
            col(PreparedPage.variant).in_(sorted(gone))))
    session.add_all(PreparedPage(board_id=board_id, snapshot_id=BOARD_LEVEL, kind=SYSTEM,
                                 variant=variant, body=body)
                    for variant, body in new.items() if variant not in kept)
    session.flush()
