"""Every public page in chromium at 1366 px and 390 px: never wider than the window, no
console errors, a screenshot in test-artifacts/ (looked at by eye); and the ranking's
interactive parts: instant filter, grouped headers, phone column order, account pages'
copy button and the free file check that keeps the chosen file."""

from __future__ import annotations

import pytest

from tests.live_site import ARTIFACTS, live_site, walk_pages

WIDTHS = (1366, 390)

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("layout"), with_checks=True,
                   SECRET_KEY="layout-secret") as live:
        yield live


def _pages(seeded) -> dict[str, str]:
    a, b = seeded.public["Ranker top-3"], seeded.public["Contextual ranker"]
    return {
        "ranking": "/", "ranking-all-metrics": "/?view=all&entries=all",
        "ranking-all-entries": "/?entries=all", "ranking-filtered": "/?q=lab",
        "matrix": "/matrix", "charts": "/charts?view=lenient-a", "compare": f"/compare?a={a}&b={b}",
        "compare-empty": "/compare", "significance": "/significance",
        "history": "/history?view=lenient-a", "system": f"/systems/{a}",
        "team": f"/teams/{seeded.teams['North Lab']}", "about": "/about",
        "api-docs": "/api/v1/docs", "login": "/account/login", "signup": "/account/signup",
    }


@pytest.mark.parametrize("width", WIDTHS)
def test_public_pages_fit_the_window_without_console_errors(live, width):
    walk_pages(live.browser, live.url, _pages(live.seeded), width)


def test_phone_shows_rank_system_and_headline_first(live):
    base = live.url
    context = live.browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.goto(base + "/")
    keys = page.locator("#ranking thead th").evaluate_all(
        "els => els.slice(0, 3).map(e => e.dataset.key)")
    assert keys == ["rank", "system", "strict_a_f@10"]
    box = page.locator('#ranking thead th[data-key="strict_a_f@10"]').bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    context.close()


def test_phone_first_screen_shows_the_first_ranked_score(live):
    """390×844: switchers are one sideways-scrolled row each and the downloads follow the
    table, so the first ranked row's headline score is on the first screen."""
    context = live.browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live.url + "/")
    cell = page.locator("#systems tr").first.locator("td.headline")
    box = cell.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, box
    for nav in ("View", "Part of speech"):
        links = page.get_by_role("navigation", name=nav).get_by_role("link")
        tops = {round(b["y"]) for b in links.evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().toJSON())")}
        assert len(tops) == 1, (nav, tops)
    table = page.locator("#ranking").bounding_box()
    assert page.locator(".downloads").bounding_box()["y"] > table["y"] + table["height"]
    page.screenshot(path=str(ARTIFACTS / "ranking-first-screen-390.png"))
    # A choice at the far end of a row is scrolled into view.
    page.goto(live.url + "/?view=all")
    current = page.get_by_role("navigation", name="View").locator("[aria-current]")
    right = current.evaluate("e => e.getBoundingClientRect().right")
    assert right <= 390
    context.close()


def test_grouped_headers_and_instant_filter(live):
    base = live.url
    context = live.browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.goto(base + "/?view=all&entries=all")
    groups = page.locator("#ranking thead th.group-head").all_inner_texts()
    assert [g.strip().lower() for g in groups] == ["strict", "lenient", "other metrics"]
    page.fill("#filter-q", "thesaurus")
    expect(page.locator("#systems tr:visible")).to_have_count(2)
    assert "q=thesaurus" in page.url
    page.fill("#filter-q", "")
    expect(page.locator("#systems tr:visible")).to_have_count(5)
    context.close()


def _log_in(page, base: str, email: str) -> None:
    from tests.factories import DEFAULT_PASSWORD

    page.goto(base + "/account/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.locator("form.account-form button[type=submit]").click()
    page.wait_for_load_state()


def test_check_file_keeps_the_chosen_file_and_token_copy_works(live, tmp_path):
    from tests.site.seed import demo_file

    base = live.url
    context = live.browser.new_context(viewport={"width": 390, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _log_in(page, base, "north-lab@example.org")
    page.goto(base + "/account/submit")
    assert page.locator("a[href*='/inputs.json.gz']").count() == 1
    upload = tmp_path / "mine.json"
    import json

    upload.write_text(json.dumps(demo_file("demo_baseline")))
    page.set_input_files("input[type=file]", str(upload))
    page.get_by_role("button", name="Check file (free)").click()
    expect(page.locator("#check-result")).to_contain_text("the file is valid")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    files = page.evaluate("document.querySelector('input[type=file]').files.length")
    assert files == 1
    page.screenshot(path=str(ARTIFACTS / "submit-checked-390.png"), full_page=True)

    page.goto(base + "/account/tokens")
    page.fill("input[name=name]", "ci")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_be_visible()
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copy-status")).to_have_text("Copied.")
    token = page.input_value("#new-token")
    assert page.evaluate("navigator.clipboard.readText()") == token
    page.screenshot(path=str(ARTIFACTS / "token-created-390.png"), full_page=True)
    context.close()
    assert errors == []


ROWS_JS = """els => els.map(e => ({
    over: e.scrollWidth > e.clientWidth + 1, left: e.hasAttribute('data-more-left'),
    right: e.hasAttribute('data-more-right'),
    mask: getComputedStyle(e).maskImage || getComputedStyle(e).webkitMaskImage || 'none'}))"""


@pytest.mark.parametrize("width", WIDTHS)
def test_rows_that_scroll_sideways_show_which_way_there_is_more(live, width):
    """At 390 px a row of switchers or board chips that does not fit ("Strict · conce")
    says it scrolls. A row with more to its right fades on that side;
    scrolled to its end, the fade moves to the left; a row that fits has none."""
    context = live.browser.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    page.goto(live.url + "/")
    rows = page.locator(".board-shown, .board-chips, .controls .segmented ul")
    before = rows.evaluate_all(ROWS_JS)
    assert before, "no sideways rows on the ranking page"
    for row in before:
        assert row["right"] == row["over"], row
        assert (row["mask"] != "none") == row["over"], row
    if width == 390:
        assert any(row["over"] for row in before)
        page.screenshot(path=str(ARTIFACTS / "scroll-cue-390.png"))
        rows.evaluate_all("els => els.forEach(e => { e.scrollLeft = e.scrollWidth; })")
        page.wait_for_timeout(100)
        for row in rows.evaluate_all(ROWS_JS):
            if row["over"]:
                assert row["left"] and not row["right"], row
        page.screenshot(path=str(ARTIFACTS / "scroll-cue-390-end.png"))
    else:
        assert not any(row["over"] for row in before)
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_charts_fit_their_boxes_with_whole_names_and_apart_labels(live, width):
    """At 390 px the dot plot shows whole names (not "Ranker top-3 (North L…"), leaves no
    empty band under it, and the iso-F labels stay apart."""
    context = live.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(live.url + "/charts?view=lenient-a")
    page.locator(".chart .main-svg").first.wait_for()
    page.wait_for_timeout(300)
    for box in page.locator(".chart[data-figure]").all():
        card = box.bounding_box()
        svg = box.locator(".main-svg").first.bounding_box()
        assert card["height"] - svg["height"] < 12, (card, svg)
    dots = page.locator(".chart[data-figure]").nth(1)
    ticks = dots.locator(".yaxislayer-above .ytick text").all()
    labels = [t.text_content() for t in ticks]
    assert labels and not [x for x in labels if "…" in x], labels
    boxes = [t.bounding_box() for t in ticks]
    card = dots.bounding_box()
    for a, b in zip(boxes, boxes[1:], strict=False):
        assert a["y"] + a["height"] <= b["y"] + 0.5, (a, b)  # one row's name above the next
    assert all(b["x"] >= card["x"] for b in boxes)
    iso = page.locator(".chart[data-figure]").first.locator(".annotation-text").all_text_contents()
    shown = [t for t in iso if t.startswith("F=")]
    assert len(shown) == (8 if width == 1366 else 3), shown
    page.screenshot(path=str(ARTIFACTS / f"charts-fit-{width}.png"), full_page=True)
    context.close()

