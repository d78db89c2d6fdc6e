"""Boards whose shown snapshot no ranker of this release prepared (written by an import, or
the last one before a deploy that changed the pages' code): a ranker asks for their refresh
when it starts, so their pages are served as bytes too, not computed by every web process."""

from __future__ import annotations

import time

from sqlmodel import col, select

from leaderboard.blueprints.public.prepare import prepare_board
from leaderboard.models import LeaderboardSnapshot, PreparedPage
from leaderboard.services.ranking import prepared_pages
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.pipeline.test_prepared_pages import _synthetic


def test_unprepared_boards_are_those_whose_newest_snapshot_has_no_bytes_of_this_code(
        app, session):
    board = _synthetic(session, 6, 3, 1)
    assert prepared_pages.unprepared_boards(session) == [board.id]
    prepare_board(app, board.id, board.snapshot_id)
    assert prepared_pages.unprepared_boards(session) == []
    # A newer snapshot being prepared: its ranker is on it.
    newer = refresh_snapshot(session=session, board_id=board.id)
    prepared_pages.mark_pending(session, board.id, newer.id)
    session.commit()
    assert prepared_pages.unprepared_boards(session) == []
    prepared_pages.clear_pending(session, newer.id)
    session.commit()
    assert prepared_pages.unprepared_boards(session) == [board.id]  # never prepared
    # Bytes of another release's code: as good as none.
    prepare_board(app, board.id, newer.id)
    assert prepared_pages.unprepared_boards(session) == []
    for row in session.exec(select(PreparedPage).where(
            PreparedPage.snapshot_id == newer.id)).all():
        row.variant = row.variant.replace(prepared_pages.code_print(), "0" * 16)
        session.add(row)
    session.commit()
    assert prepared_pages.unprepared_boards(session) == [board.id]


def test_a_starting_ranker_refreshes_and_prepares_unprepared_boards(app, client, session,
                                                                     start_worker):
    board = _synthetic(session, 6, 3, 2)
    start_worker("ranker")
    meta = prepared_pages.variant_key(prepared_pages.VALUE, "meta", [])
    deadline = time.monotonic() + 60
    while True:
        session.expire_all()
        newest = session.exec(select(LeaderboardSnapshot.id).where(
            LeaderboardSnapshot.board_id == board.id).order_by(
            col(LeaderboardSnapshot.id).desc())).first()
        if newest > board.snapshot_id and prepared_pages.load(
                session, newest, prepared_pages.VALUE, meta) is not None:
            break
        assert time.monotonic() < deadline, "the ranker did not prepare the board"
        time.sleep(0.3)
    assert prepared_pages.unprepared_boards(session) == []
    # and, readers shown it, the pages one click away
    deadline = time.monotonic() + 60
    while True:
        session.expire_all()
        pages = [v for k, v in prepared_pages.stored_variants(session, newest)
                 if k == prepared_pages.PAGE and '"NOUN"' in v]
        if pages:
            break
        assert time.monotonic() < deadline, "no page one click away was prepared"
        time.sleep(0.3)
    assert client.get("/?pos=NOUN").status_code == 200
