"""A board of 230 systems in chromium at 1366 px and 390 px: the all-entries ranking comes
100 rows a page with a pager under it, the pager walks the pages, and on a paged table the
header links and the filter go to the server (the instant client-side sort and filter would
only see the page). Screenshots in test-artifacts/pages-*.png."""

from __future__ import annotations

import numpy as np
import pytest
from sqlmodel import Session

from leaderboard.demo.synthetic import SLUG, add_systems, synthetic_board
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.live_site import ARTIFACTS, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _prepare(app, seeded) -> None:
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        board = synthetic_board(session, n_targets=40, is_default=False)
        add_systems(session, board, n_systems=230, n_teams=23, rng=np.random.default_rng(5),
                    n_targets=40, bootstrap=50, team_name="Lab {:02d}",
                    system_name="Model {:03d}")
        refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("pages"), prepare=_prepare,
                   SECRET_KEY="pages-secret") as live:
        yield live


def _open(live, width: int):
    """A browser context at ``width`` px, its page, and the page's script errors."""
    context = live.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


@pytest.mark.parametrize("width", (1366, 390))
def test_pages_of_a_large_board(live, width):
    context, page, errors = _open(live, width)
    page.goto(f"{live.url}/?leaderboard={SLUG}&entries=all")
    rows = page.locator("#systems tr")
    expect(rows).to_have_count(100)
    pager = page.locator("#pager")
    expect(pager).to_contain_text("Rows 1–100 of 230 · page 1 of 3")
    pager.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"pages-ranking-{width}.png"), full_page=False)
    pager.get_by_role("link", name="Next →").click()
    expect(page.locator("#pager")).to_contain_text("Rows 101–200 of 230 · page 2 of 3")
    assert "page=2" in page.url
    # A header link sorts the whole board on the server, from page 1.
    page.locator("#ranking thead a.sort", has_text="System").click()
    expect(page.locator("#pager")).to_contain_text("page 1 of 3")
    assert "sort=system" in page.url and "page=" not in page.url
    expect(rows.first.locator("th")).to_contain_text("Model 000")
    # The filter form goes to the server too: every match on the board, not on the page.
    page.fill("#filter-q", "Lab 05")
    page.locator("form.filter button").click()
    expect(rows).to_have_count(10)
    expect(page.locator("#pager")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / f"pages-filtered-{width}.png"), full_page=False)
    assert errors == []
    context.close()


@pytest.mark.parametrize("width", (1366, 390))
def test_significance_window_from_a_system_page(live, width):
    """From a system ranked mid-board, its page's link opens the 30 systems around it."""
    context, page, errors = _open(live, width)
    page.goto(f"{live.url}/?leaderboard={SLUG}&entries=all&page=2")
    chosen = page.locator("#systems tr").nth(20).locator("th a")
    name = chosen.inner_text()
    chosen.click()
    page.get_by_role("link", name="Significance against its neighbours").click()
    expect(page.locator(".lede")).to_contain_text("of 230, around")
    table = page.locator("table").last
    expect(table.locator("tbody tr")).to_have_count(30)
    expect(table.locator("tr.chosen th")).to_have_text(name)
    rank = table.locator("tr.chosen td.num").first.inner_text()
    assert int(rank) > 100  # page 2 of the ranking, and the chart labels say so
    assert f"{rank}. {name}" in page.locator("#sig-figure").text_content()
    expect(page.locator("#sig-chart .main-svg").first).to_be_visible()  # the heatmap drew
    page.screenshot(path=str(ARTIFACTS / f"pages-window-{width}.png"), full_page=False)
    assert errors == []
    context.close()
