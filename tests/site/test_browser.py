"""The public site in a real browser: Playwright driving Debian's headless chromium against a
real server on a loopback port, on a database holding real scored demo submissions.

Screenshots of the ranking and a system page go to ``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.live_site import ARTIFACTS, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("browser"),
                   SECRET_KEY="browser-test-secret") as live:
        yield live


@pytest.fixture
def page(live):
    context = live.browser.new_context(viewport={"width": 1280, "height": 900},
                                       accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


def _column(page, index: int) -> list[float]:
    cells = page.locator(f"#systems tr td:nth-child({index})")
    return [float(v) for v in cells.evaluate_all("els => els.map(e => e.dataset.value)")]


def _header_index(page, key: str) -> int:
    """1-based column of a sortable header in the body rows (data-col: the grouped view has
    two header rows, so header positions differ from body columns)."""
    col = page.locator(f'#ranking thead th[data-key="{key}"]').get_attribute("data-col")
    return int(col) + 1


def test_ranking_sorts_by_clicked_metric(live, page):
    base = live.url
    page.goto(base + "/?entries=all")
    expect(page.locator("#ranking")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "ranking.png"), full_page=True)
    headline = _column(page, _header_index(page, "strict_a_f@10"))
    assert headline == sorted(headline, reverse=True)

    gap_header = page.locator('#ranking thead th[data-key="gap"]')
    gap_header.locator("a").click()
    expect(gap_header).to_have_attribute("aria-sort", "descending")
    gaps = _column(page, _header_index(page, "gap"))
    assert gaps == sorted(gaps, reverse=True) and len(gaps) == 5
    assert "sort=gap" in page.url
    gap_header.locator("a").click()
    expect(gap_header).to_have_attribute("aria-sort", "ascending")
    assert _column(page, _header_index(page, "gap")) == sorted(gaps)
    # the caption follows the click-sort, and tie marks of the old order are hidden
    expect(page.locator("#sort-caption")).to_have_text("sorted by GAP (ascending)")
    assert page.locator("#systems .tie:visible").count() == 0


def test_pos_and_view_switch(live, page):
    base = live.url
    page.goto(base + "/")
    page.get_by_role("navigation", name="Part of speech").get_by_role("link", name="VERB").click()
    expect(page.locator("#ranking caption")).to_contain_text("VERB targets only")
    assert "pos=VERB" in page.url
    page.get_by_role("navigation", name="View").get_by_role("link", name="All metrics").click()
    expect(page.locator('#ranking thead th[data-key="oot_p"]')).to_have_count(1)
    expect(page.locator("#ranking caption")).to_contain_text("VERB targets only")
    page.get_by_role("link", name="Lenient · conceivable").click()
    expect(page.locator('#ranking thead th[data-key="lenient_c_f@10"]')).to_have_attribute(
        "aria-sort", "descending")
    expect(page.locator("tbody.references tr.ref-human")).to_have_count(1)


def test_system_page_chart_renders(live, page):
    base, seeded = live.url, live.seeded
    page.goto(base + "/?entries=all")
    page.locator("#systems").get_by_role("link", name="Contextual ranker").click()
    expect(page.locator("h1")).to_contain_text("Contextual ranker")
    expect(page.locator("#pos-chart .main-svg").first).to_be_attached(timeout=15000)
    page.screenshot(path=str(ARTIFACTS / "system.png"), full_page=True)
    page.select_option("#compare-select", str(seeded.public["Thesaurus baseline"]))
    page.get_by_role("button", name="Compare").click()
    expect(page.locator("h1")).to_contain_text("Contextual ranker vs Thesaurus baseline")
    expect(page.locator("#h2h-summary")).to_contain_text("significantly")


def test_csv_download(live, page):
    base = live.url
    page.goto(base + "/?view=lenient-a&entries=all")
    with page.expect_download() as info:
        page.locator(".downloads").get_by_role("link", name="CSV").click()
    download = info.value
    assert download.suggested_filename == "swords-demo-v1-test-generative-lenient-a-all.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text())))
    systems = [r for r in rows if r["row_type"] == "system"]
    assert len(systems) == 5
    assert {r["system"] for r in rows if r["row_type"] != "system"} == {
        "Humans", "CoInCo", "Thesaurus"}
    values = [float(r["lenient_a_f@10"]) for r in systems]
    assert values == sorted(values, reverse=True)
    assert float(systems[0]["lenient_a_f@10 lo"]) <= values[0] <= float(
        systems[0]["lenient_a_f@10 hi"])
