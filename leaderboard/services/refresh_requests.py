"""How the catalog asks for a board's ranking snapshot without knowing how rankings are made.

The catalog (a new board) only calls :func:`ask`; what answers is set by the app
(:func:`set_requester`, with :func:`leaderboard.services.ranking.snapshot_reader.
refresh_or_request`: queued for a ranker inside a web request, computed on the spot by a
host command, where a new board has no systems and its first snapshot costs nothing). Without
a requester nothing happens, and the board's first read asks for it.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import Session

Requester = Callable[[Session, int], object]
_requester: Requester | None = None


def set_requester(requester: Requester | None) -> None:
    """Who answers :func:`ask` in this process."""
    global _requester
    _requester = requester


def ask(session: Session, board_id: int) -> None:
    """Ask for the board's snapshot to be (re)computed from what ``session`` holds."""
    if _requester is not None:
        _requester(session, board_id)
