"""Reported rows on a board: numbers a publication printed, stored as checked by
:mod:`leaderboard.scoring.reported`, shown pinned with their citation and never re-scored.

Rows are grouped by ``origin`` (the file's name): adding a file to a board again replaces that
file's rows there, so correcting a number is an edit and a second ``add``. The caller refreshes
the board's snapshot (``snapshots.refresh_snapshot``), as for reference rows: the catalog does
not import the ranking package, which imports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sqlmodel import Session, col, select

from leaderboard.models import Board, ReportedRow, Split
from leaderboard.scoring import reported as parsing
from leaderboard.services.catalog.benchmarks import base_split

#: Column widths of :class:`~leaderboard.models.ReportedRow`, checked before anything is stored.
_LIMITS = {"name": 200, "citation": 500, "url": 500, "source": 200, "note": 1000,
           "benchmark_name": 80, "benchmark_version": 40, "benchmark_split": 80}
_MAX_ORIGIN = 300


class ReportedError(parsing.ReportedInvalid):
    """Rows that cannot go on this board; ``problems`` lists every reason."""


@dataclass(frozen=True)
class Added:
    """What one file put on one board."""

    board: Board
    origin: str
    names: list[str]
    replaced: int


def check_rows(board: Board, rows: list[parsing.ReportedRow], origin: str) -> list[str]:
    """Every reason ``rows`` cannot be stored on ``board`` (empty when they can)."""
    problems = []
    if not origin.strip() or len(origin) > _MAX_ORIGIN:
        problems.append(f"origin must be 1 to {_MAX_ORIGIN} characters")
    for row in rows:
        if row.track != board.track:
            problems.append(f"{row.name!r} is a {row.track}-track row; leaderboard "
                            f"{board.slug!r} is on the {board.track} track")
        for key, limit in _LIMITS.items():
            value = getattr(row, key)
            if len(value) > limit:
                problems.append(f"{row.name[:60]!r}: {key} has {len(value)} characters; the "
                                f"limit is {limit}")
    return problems


def add_rows(session: Session, board: Board, rows: list[parsing.ReportedRow],
             origin: str) -> Added:
    """Put ``rows`` on ``board`` in place of the rows ``origin`` put there before; raises
    :class:`ReportedError` (nothing stored) when a row does not fit. Flushes; the caller
    refreshes the board's snapshot and commits."""
    problems = check_rows(board, rows, origin)
    if problems:
        raise ReportedError(origin, problems)
    replaced = remove_origin(session, board, origin)
    for row in rows:
        session.add(ReportedRow(
            board_id=board.id, name=row.name, metrics=dict(row.metrics), citation=row.citation,
            url=row.url, source=row.source, origin=origin, benchmark_name=row.benchmark_name,
            benchmark_version=row.benchmark_version, benchmark_split=row.benchmark_split,
            note=row.note))
    session.flush()
    return Added(board, origin, [r.name for r in rows], replaced)


def add_file(session: Session, board: Board, path: str | Path) -> Added:
    """Check the file at ``path`` (:class:`~leaderboard.scoring.reported.ReportedInvalid`
    lists its problems) and add its rows to ``board`` under the file's name."""
    path = Path(path)
    return add_rows(session, board, parsing.load_reported(path), path.name)


def remove_origin(session: Session, board: Board, origin: str) -> int:
    """Delete the rows ``origin`` put on ``board``; returns how many. Flushes."""
    found = session.exec(select(ReportedRow).where(ReportedRow.board_id == board.id,
                                                   ReportedRow.origin == origin)).all()
    if found:
        for row in found:
            session.delete(row)
        # Before any insert: the new rows may carry the same (board, origin, name).
        session.flush()
    return len(found)


def list_rows(session: Session, board: Board | None = None) -> list[tuple[ReportedRow, Board]]:
    """Every reported row (of one board), by board and then in the order added."""
    query = (select(ReportedRow, Board).join(Board, col(Board.id) == col(ReportedRow.board_id))
             .order_by(col(Board.id), col(ReportedRow.id)))
    if board is not None:
        query = query.where(ReportedRow.board_id == board.id)
    return [(r, b) for r, b in session.exec(query).all()]


def matching_boards(session: Session, row: parsing.ReportedRow) -> list[Board]:
    """Boards whose benchmark name and split, and track, are the row's (any version: the
    publication's version is shown with the row)."""
    found = session.exec(
        select(Board).join(Split, col(Split.id) == col(Board.split_id))
        .where(Split.name == row.benchmark_name,
               Split.split == base_split(row.benchmark_split), Board.track == row.track)
        .order_by(col(Board.id))).all()
    return list(found)


def add_shipped(session: Session) -> list[Added]:
    """Add every shipped file's rows to each board they match (:func:`matching_boards`),
    replacing what that file put there before. Flushes; the caller refreshes and commits."""
    added = []
    for path in parsing.shipped_files():
        rows = parsing.load_reported(path)
        per_board: dict[int, tuple[Board, list[parsing.ReportedRow]]] = {}
        for row in rows:
            for board in matching_boards(session, row):
                per_board.setdefault(board.id, (board, []))[1].append(row)  # type: ignore[index]
        for board, board_rows in per_board.values():
            added.append(add_rows(session, board, board_rows, path.name))
    return added


def short_citation(citation: str) -> str:
    """``Lee et al. 2021`` from ``Mina Lee, Chris Donahue, ... 2021. Title...``; the whole
    text when it does not start with an author list."""
    authors = citation.split(". ")[0]
    year = re.search(r"\b(?:19|20)\d\d\b", citation)
    first = re.split(r",| and ", authors)[0].split()
    if not first or year is None or len(authors) == len(citation):
        return citation
    several = "," in authors or " and " in authors
    return f"{first[-1]}{' et al.' if several else ''} {year.group(0)}"
