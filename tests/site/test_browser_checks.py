"""Check file while a worker is slow: the page says so, then shows the report (its own module:
playwright's sync API cannot nest in another module's live site)."""

from __future__ import annotations

import json

import pytest

from tests.live_site import ARTIFACTS, live_site
from tests.site.test_browser_layout import _log_in

expect = pytest.importorskip("playwright.sync_api").expect


def test_a_slow_check_says_so_then_shows_the_report_without_a_reload(tmp_path_factory,
                                                                   tmp_path, chromium):
    """The request answers "checking" at once (CHECK_WAIT_SECONDS 0); the page asks again
    every 2 s and shows the report, the chosen file still chosen."""
    from tests.site.seed import demo_file

    with live_site(chromium, tmp_path_factory.mktemp("slow-check"), with_checks=True,
                   SECRET_KEY="slow-check", CHECK_WAIT_SECONDS=0) as site:
        page = site.browser.new_page(viewport={"width": 1366, "height": 900})
        _log_in(page, site.url, "north-lab@example.org")
        page.goto(site.url + "/account/submit")
        upload = tmp_path / "mine.json"
        upload.write_text(json.dumps(demo_file("demo_baseline")))
        page.set_input_files("input[type=file]", str(upload))
        # an upload from another tab after this form was loaded: the check's answer counts it
        expect(page.locator("section.quota")).to_contain_text("(0 of 5 used")
        other = site.browser.new_page()
        other.context.add_cookies(page.context.cookies())
        other.goto(site.url + "/account/submit")
        other.set_input_files("input[type=file]", str(upload))
        other.fill("input[name=name]", "from another tab")
        other.get_by_role("button", name="Submit for scoring").click()
        expect(other.locator("main")).to_contain_text("Uploaded")
        page.get_by_role("button", name="Check file (free)").click()
        expect(page.locator("#check-result")).to_contain_text("Checking your file")
        expect(page.locator("#check-result")).to_contain_text("the file is valid",
                                                               timeout=20_000)
        assert page.evaluate("document.querySelector('input[type=file]').files.length") == 1
        expect(page.locator("section.quota")).to_contain_text("(1 of 5 used")
        page.screenshot(path=str(ARTIFACTS / "submit-slow-check-1366.png"), full_page=True)
