"""The board bar in chromium at 1366 px and 390 px, with two leaderboards (the demo generative
one and a ranking one): the home page lists both, a click shows the other's ranking with its
name in the bar, every board page names the board, and reported rows fold open. Screenshots
in test-artifacts/boards-*.png."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard.models import Split
from leaderboard.scoring.reported import REPORTED_DIR, load_reported
from leaderboard.services.catalog.boards import create_board, import_board
from leaderboard.services.catalog.reported import add_rows
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.live_site import ARTIFACTS, live_site

RANKING_SLUG = "swords-demo-v1-test-ranking"
BOARD_PAGES = {"ranking": "/", "matrix": "/matrix", "charts": "/charts?view=lenient-a",
               "compare": "/compare", "significance": "/significance",
               "history": "/history?view=lenient-a"}

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _prepare(app, seeded) -> None:
    """A ranking board beside the demo's generative one, both with the paper's rows."""
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        bench = session.get(Split, seeded.split_id)
        ranking = create_board(session, bench, track="ranking")
        refresh_snapshot(session=session, board_id=ranking.id)  # type: ignore[arg-type]
        generative = import_board(session, bench)
        for board, name in ((generative, "swords-naacl2021-generative.json"),
                            (ranking, "swords-naacl2021-ranking.json")):
            add_rows(session, board, load_reported(REPORTED_DIR / name), name)
            refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("boards"), prepare=_prepare,
                   SECRET_KEY="boards-secret") as live:
        yield live


@pytest.mark.parametrize("width", (1366, 390))
def test_board_list_switches_and_every_board_page_names_its_board(live, width):
    site = live.url
    context = live.browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site + "/")
    chips = page.locator(".board-chips a")
    expect(chips).to_have_count(2)
    assert [c.strip() for c in page.locator(".board-chips .chip-title").all_inner_texts()] == [
        "test · generative", "test · ranking"]
    expect(page.locator("#board-shown")).to_contain_text("generative track")
    # The home page counts each board's public submissions (5, of 3 teams; none yet on the
    # ranking board).
    assert [m.strip() for m in page.locator(".board-chips .chip-meta").all_inner_texts()] == [
        "test phase · labels hidden · 5 submissions · default",
        "test phase · labels hidden · 0 submissions"]
    expect(page.locator('.board-chips a[aria-current="true"]')).to_have_attribute(
        "data-slug", "swords-demo-v1-test-generative")
    # With ranked systems the reported rows are folded under their group row.
    reported = page.locator("tr.ref-reported")
    expect(reported).to_have_count(13)
    expect(reported.first).to_be_hidden()
    expect(page.locator("#systems tr").first).to_contain_text("Ranker top-3")
    page.screenshot(path=str(ARTIFACTS / f"boards-home-{width}.png"), full_page=True)
    page.locator("label[for=show-reported]").click()
    bert_k = reported.filter(has=page.get_by_text("BERT-K", exact=True))
    expect(bert_k.locator('td[data-key="strict_a_f@10"]')).to_have_text("15.7")
    page.screenshot(path=str(ARTIFACTS / f"boards-home-reported-{width}.png"), full_page=True)
    page.locator("tbody.reported").screenshot(
        path=str(ARTIFACTS / f"boards-reported-rows-{width}.png"))
    page.locator("label[for=show-reported]").click()
    expect(reported.first).to_be_hidden()
    # The list is one compact bar: at most 90 px at 1366, 125 px (one scrollable row of
    # chips) at 390, so the default ranking still comes first.
    bar = page.locator(".board-bar").bounding_box()
    assert bar is not None and bar["height"] <= (90 if width > 640 else 125), bar
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    page.locator(f'.board-chips a[data-slug="{RANKING_SLUG}"]').click()
    page.wait_for_load_state()
    assert page.url == f"{site}/?leaderboard={RANKING_SLUG}"
    expect(page.locator("#board-shown")).to_have_attribute("data-slug", RANKING_SLUG)
    expect(page.locator("#board-shown")).to_contain_text("ranking track")
    # No system yet on this board: the reported rows are shown unfolded, unranked.
    reported = page.locator("tr.ref-reported")
    expect(reported).to_have_count(7)
    expect(reported.first).to_be_visible()
    glove = page.locator("tr.ref-reported", has_text="GloVe")
    expect(glove.locator('td[data-key="gap"]')).to_have_text("49.7")
    expect(glove.locator("td.col-rank")).to_have_text("–")
    expect(glove).to_contain_text("reported, not re-scored")
    expect(glove).to_contain_text("swords v1.0 test")
    expect(glove.locator("a", has_text="Lee et al. 2021")).to_have_attribute(
        "href", "https://arxiv.org/abs/2106.04102")
    page.screenshot(path=str(ARTIFACTS / f"boards-ranking-track-{width}.png"), full_page=True)

    too_wide = {}
    for name, path in BOARD_PAGES.items():
        path = path.replace("?view=lenient-a", "")  # a ranking board has the GAP view only
        sep = "&" if "?" in path else "?"
        response = page.goto(f"{site}{path}{sep}leaderboard={RANKING_SLUG}")
        assert response is not None and response.status == 200, path
        expect(page.locator("#board-shown")).to_have_attribute("data-slug", RANKING_SLUG)
        expect(page.locator("#board-shown .board-name")).to_have_text("swords-demo v1 test")
        expect(page.locator("#board-shown")).to_contain_text("ranking track")
        chip = page.locator('.board-chips a[aria-current="true"]')
        expect(chip).to_have_attribute("data-slug", RANKING_SLUG)
        box = chip.bounding_box()  # in view, also where the chips scroll sideways
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if widths[0] > widths[1]:
            too_wide[path] = widths
        page.screenshot(path=str(ARTIFACTS / f"boards-{name}-{width}.png"))
        # Its chip for the default board leads to the same page of that board.
        href = page.locator(".board-chips a").first.get_attribute("href")
        assert href == path.split("?")[0], (path, href)
    context.close()
    assert too_wide == {}
    assert errors == []
