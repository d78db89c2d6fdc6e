"""The board bar on both databases: the home page counts each board's public submissions with
the same rule as the ranking (public, not hidden, scored, team enabled)."""

from __future__ import annotations

import re

from leaderboard.models import Split
from leaderboard.services.catalog.boards import create_board
from leaderboard.services.ranking.snapshots import public_counts, refresh_snapshot
from tests.backends import ALL_DATABASES


@ALL_DATABASES
def test_home_page_counts_public_submissions_per_board(seeded, session, client):
    ranking = create_board(session, session.get(Split, seeded.split_id),
                           track="ranking")
    refresh_snapshot(session=session, board_id=ranking.id)
    session.commit()
    # Seven stored: five public, one private, one hidden.
    assert public_counts(session) == {seeded.board_id: 5}
    html = client.get("/").get_data(as_text=True)
    metas = re.findall(r'<span class="chip-meta">([^<]*)</span>', html)
    assert metas == ["test phase · labels hidden · 5 submissions · default",
                     "test phase · labels hidden · 0 submissions"]
    page = client.get(f"/history?leaderboard={ranking.slug}").get_data(as_text=True)
    assert f'id="board-shown" data-slug="{ranking.slug}"' in page
    assert "submissions ·" not in page  # counted on the ranking page only
