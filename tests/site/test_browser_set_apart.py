"""Files that repeat answers in chromium at 1366 px and 390 px: their own
group below the ranked rows on the oot and GAP views, ranked (flagged) on best; the charts,
history, matrix and significance pages fit and log no error. Screenshots in
test-artifacts/ (looked at by eye)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard.services.catalog.lexsub import lexsub_board
from tests.lexsub_files import write_semeval07
from tests.live_site import live_site, publish_scored, walk_pages
from tests.pipeline.test_lexsub_duplicates import PAIR, RANKED, RANKED_REPEATS, REPEATS

pytestmark = pytest.mark.browser
FILES = {"generative": {"Honest guesser": PAIR, "Mode repeater": REPEATS},
         "ranking": {"Honest ranker": RANKED, "Candidate repeater": RANKED_REPEATS}}


def _prepare(app, seeded, folder) -> dict:
    with app.app_context(), Session(app.extensions["db_engine"],
                                    expire_on_commit=False) as session:
        boards = {track: lexsub_board(session, "semeval07", "trial", track, data_dir=folder)
                  for track in FILES}
        session.commit()
        ids = publish_scored(app, session, [(boards[t], files) for t, files in FILES.items()],
                             list(seeded.teams.values()))
        return {"slugs": {k: b.slug for k, b in boards.items()}, "ids": ids}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    folder = write_semeval07(tmp_path_factory.mktemp("ls07-repeats"))
    with live_site(chromium, tmp_path_factory.mktemp("set-apart"),
                   prepare=lambda app, seeded: _prepare(app, seeded, folder),
                   SECRET_KEY="set-apart-secret") as live:
        yield live


@pytest.mark.parametrize("width", (1366, 390))
def test_set_apart_pages_fit_without_console_errors(site, width):
    gen, gap = (f"leaderboard={site.extra['slugs'][k]}" for k in ("generative", "ranking"))
    walk_pages(site.browser, site.url, {
        "apart-oot": f"/?{gen}&view=oot", "apart-best": f"/?{gen}",
        "apart-gap": f"/?{gap}", "apart-oot-charts": f"/charts?{gen}&view=oot",
        "apart-oot-history": f"/history?{gen}&view=oot",
        "apart-oot-matrix": f"/matrix?{gen}&metric=oot_r",
        "apart-oot-significance": f"/significance?{gen}&metric=oot_r"}, width)


def test_the_repeaters_are_in_their_own_group_below_on_oot_and_gap_only(site):
    context = site.browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    slugs = site.extra["slugs"]
    for query, ranked, apart in (
            (f"leaderboard={slugs['generative']}&view=oot", "Honest guesser", "Mode repeater"),
            (f"leaderboard={slugs['ranking']}", "Honest ranker", "Candidate repeater")):
        page.goto(f"{site.url}/?{query}")
        assert page.locator("#systems th.col-system a").all_inner_texts() == [ranked]
        group = page.locator("#set-apart")
        assert group.locator("th.col-system a").all_inner_texts() == [apart]
        assert "set apart" in group.locator("tr.group").inner_text().lower()
        assert "repeat" in group.locator(".apart-why").inner_text()
        assert group.locator("td.col-rank").inner_text().strip() == "–"
    page.goto(f"{site.url}/?leaderboard={slugs['generative']}")      # best: ranked, flagged
    assert page.locator("#systems th.col-system a").all_inner_texts() == [
        "Honest guesser", "Mode repeater"]
    assert page.locator("#set-apart").count() == 0
    assert page.locator("#systems abbr.flag").count() == 1
    context.close()
