"""A long system name without a space (a model id) in chromium at 390 px: wrapped inside its
cell on every page that lists it, never drawn over the scores beside it. Screenshots in
test-artifacts/long-name-*.png (looked at by eye)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard.models import Submission
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.live_site import ARTIFACTS, live_site

pytestmark = pytest.mark.browser
LONG = "ParaLS_large_BERT_wwm_whole_word_masking_finetuned_on_CoInCo_and_thesaurus_v2"

#: Each cell naming a system whose content is wider than its box (it overflows), or which
#: takes more than half the window (the scores beside it pushed out of view).
_OVERFLOWING = """name => [...document.querySelectorAll('th, td')]
    .filter(e => e.textContent.includes(name)
                 && (e.scrollWidth > e.clientWidth + 1 || e.clientWidth > innerWidth / 2))
    .map(e => e.tagName + ' ' + e.scrollWidth + '>' + e.clientWidth)"""


def _rename(app, seeded) -> dict:
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        sid = seeded.public["Contextual ranker"]
        row = session.get(Submission, sid)
        row.system_name = LONG
        session.add(row)
        session.commit()
        refresh_snapshot(session=session, board_id=row.board_id)
        session.commit()
        return {"id": sid, "team": row.team_id, "other": seeded.public["Ranker top-3"]}


def test_a_long_system_name_wraps_in_its_column_at_390_px(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("long-names"), prepare=_rename,
                   SECRET_KEY="long-names") as site:
        sid, team, other = site.extra["id"], site.extra["team"], site.extra["other"]
        page = site.browser.new_page(viewport={"width": 390, "height": 900})
        found = {}
        for name, path in {"ranking": "/?entries=all", "matrix": "/matrix",
                           "team": f"/teams/{team}", "significance": "/significance",
                           "compare": f"/compare?a={sid}&b={other}"}.items():
            page.goto(site.url + path)
            assert page.get_by_text(LONG).count(), path
            found[path] = page.evaluate(_OVERFLOWING, LONG)
            page.screenshot(path=str(ARTIFACTS / f"long-name-{name}-390.png"), full_page=True)
        assert found == {path: [] for path in found}
