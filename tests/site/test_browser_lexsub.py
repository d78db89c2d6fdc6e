"""LS07-format boards in chromium at 1366 px and 390 px: the GAP board and the best/oot
board with their reference rows, views, charts and system pages; never wider than the window,
no console errors, screenshots in test-artifacts/ (looked at by eye)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard.services.catalog.lexsub import lexsub_board
from tests.lexsub_files import write_coinco, write_semeval07
from tests.live_site import live_site, publish_scored, walk_pages

WIDTHS = (1366, 390)
pytestmark = pytest.mark.browser

RANKED = {
    "Context ranker": (b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.5\tvivid 0.1\tshining 0.1\n"
                       b"RANKED\tbright.a 2\tvivid 1\tshining 0.2\tsmart 0\tclever 0\n"
                       b"RANKED\tside.n 3\tpart 0.9\tedge 0.1\tat hand 0\tnear-by 0\n"
                       b"RANKED\tside.n 4\tedge 1\tpart 1\tat hand 1\tnear-by 1\n"),
    "Backwards ranker": (b"RANKED\tbright.a 1\tsmart 0.1\tclever 0.5\tvivid 0.9\n"
                         b"RANKED\tbright.a 2\tvivid 0\tshining 0.2\tsmart 1\n"
                         b"RANKED\tside.n 3\tpart 0.9\tedge 0.1\n"),
}
PAIRS = {
    "Best guesser": (b"bright.a 1 :: smart\nbright.a 2 :: vivid;shining\nside.n 3 :: part\n"
                     b"side.n 4 :: at hand\nbright.a 1 ::: smart;clever\n"
                     b"side.n 3 ::: edge;part\n"),
    "Wide guesser": (b"bright.a 1 :: clever;brainy\nbright.a 2 :: bright\n"
                     b"bright.a 1 ::: clever;brainy;smart;vivid\nbright.a 2 ::: vivid;dull\n"
                     b"side.n 3 ::: edge\nside.n 4 ::: close\n"),
}


COINCO = {
    "CoInCo guesser": (b"e commerce.J 101 :: online\nbank.N 102 :: shore\nrun.V 103 :: sprint\n"
                       b"e commerce.J 101 ::: online;electronic\nbank.N 102 ::: edge;shore\n"),
    "CoInCo ranker": (b"RANKED\te commerce.J 101\tdigital 0.9\tonline 0.5\n"
                      b"RANKED\tbank.N 102\tshore 0.9\tlender 0.1\n"),
}


def _prepare(app, seeded, folder) -> dict:
    with app.app_context(), Session(app.extensions["db_engine"],
                                    expire_on_commit=False) as session:
        boards = {"ranking": lexsub_board(session, "semeval07", "trial", "ranking",
                                          data_dir=folder),
                  "generative": lexsub_board(session, "semeval07", "trial", "generative",
                                             data_dir=folder),
                  "coinco": lexsub_board(session, "coinco", "test", "generative",
                                         data_dir=folder)}
        session.commit()
        guessers = {k: v for k, v in COINCO.items() if "guesser" in k}
        ids = publish_scored(app, session, [(boards["ranking"], RANKED),
                                            (boards["generative"], PAIRS),
                                            (boards["coinco"], guessers)],
                             list(seeded.teams.values()))
        return {"slugs": {k: b.slug for k, b in boards.items()}, "ids": ids}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    folder = write_coinco(write_semeval07(tmp_path_factory.mktemp("ls07-files")))
    with live_site(chromium, tmp_path_factory.mktemp("lexsub"),
                   prepare=lambda app, seeded: _prepare(app, seeded, folder),
                   SECRET_KEY="lexsub-secret") as live:
        yield live


def _pages(extra: dict) -> dict[str, str]:
    gap, gen, coinco = (f"leaderboard={extra['slugs'][k]}"
                        for k in ("ranking", "generative", "coinco"))
    ids = extra["ids"]
    return {"ls07-gap": f"/?{gap}", "ls07-gap-charts": f"/charts?{gap}",
            "ls07-gap-matrix": f"/matrix?{gap}", "ls07-best-matrix": f"/matrix?{gen}",
            "ls07-best": f"/?{gen}", "ls07-oot": f"/?{gen}&view=oot",
            "ls07-jabbari": f"/?{gen}&view=jabbari", "ls07-all": f"/?{gen}&view=all",
            "ls07-best-charts": f"/charts?{gen}", "ls07-significance": f"/significance?{gen}",
            "ls07-system": f"/systems/{ids['Best guesser']}",
            "ls07-compare": f"/compare?{gen}&a={ids['Best guesser']}&b={ids['Wide guesser']}",
            "coinco-best": f"/?{coinco}", "coinco-jabbari": f"/?{coinco}&view=jabbari",
            "coinco-system": f"/systems/{ids['CoInCo guesser']}"}


@pytest.mark.parametrize("width", WIDTHS)
def test_ls07_pages_fit_without_console_errors(site, width):
    walk_pages(site.browser, site.url, _pages(site.extra), width)


def test_ls07_boards_rank_on_their_protocols(site):
    base, extra = site.url, site.extra
    context = site.browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/?leaderboard={extra['slugs']['ranking']}")
    assert page.locator("#ranking th.headline").inner_text().startswith("GAP")
    assert page.locator("#systems th.col-system a").all_inner_texts() == [
        "Context ranker", "Backwards ranker"]
    assert "SemEval-2007 (LS07) trial" in page.locator("#board-shown").inner_text()
    refs = page.locator("tbody.references th.col-system").all_inner_texts()
    assert any(r.startswith("Random") for r in refs)
    assert "lst_gap.py" in page.locator("#lexsub-protocol").inner_text()
    page.goto(f"{base}/?leaderboard={extra['slugs']['generative']}")
    assert page.locator("#ranking th.headline").inner_text().startswith("best")
    assert page.locator("#systems th.col-system a").all_inner_texts()[0] == "Best guesser"
    refs = page.locator("tbody.references th.col-system").all_inner_texts()
    assert any("upper bound" in r for r in refs)
    page.goto(f"{base}/?leaderboard={extra['slugs']['coinco']}&view=jabbari")
    assert "CoInCo test" in page.locator("#board-shown").inner_text()
    assert page.locator("#ranking th.headline").inner_text().startswith("coverage F")
    row = page.locator("#systems tr", has_text="CoInCo guesser")
    # coverage on the .oot lines: e commerce 5 of 5 (F 1), bank 3 of 5 with no wrong answer
    # (P 1, R 0.6, F 0.75), run and quickly none: F 43.75, R 40.0; best1 1, 1, 1, 0: 75.0
    text = row.inner_text()
    # Two decimals on LS07/CoInCo boards, as papers cite them.
    assert "43.75" in text and "40.00" in text and "75.00" in text
    context.close()


def test_a_long_reference_name_keeps_its_badge_off_the_team_cell_at_390(site):
    """At 390 px the matrix's "Gold upper bound ORACLE" ran over its Team cell: its badge now
    goes under the name, inside its own cell, as on the ranking."""
    context = site.browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    for path in (f"/matrix?leaderboard={site.extra['slugs']['generative']}",
                 f"/?leaderboard={site.extra['slugs']['generative']}"):
        page.goto(f"{site.url}{path}")
        row = page.locator("tr.ref", has_text="upper bound").first
        name, badge = row.locator("th.col-system"), row.locator(".badge-oracle")
        after = row.locator("th.col-system + td")
        name_box, badge_box, next_box = (x.bounding_box() for x in (name, badge, after))
        assert badge_box["x"] + badge_box["width"] <= name_box["x"] + name_box["width"] + 0.5
        assert badge_box["x"] + badge_box["width"] <= next_box["x"] + 0.5, path
    context.close()
