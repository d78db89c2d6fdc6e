"""The account page in a real browser: the e-mail confirmation notice, the notification
opt-in and 'Log out everywhere', at 1366 px and 390 px (screenshots in test-artifacts/)."""

from __future__ import annotations

import pytest

from tests.factories import DEFAULT_PASSWORD
from tests.live_site import ARTIFACTS, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


@pytest.mark.parametrize("width", [1366, 390])
def test_account_page_confirms_opts_in_and_logs_out_everywhere(tmp_path, width, chromium):
    with live_site(chromium, tmp_path, SECRET_KEY="account-browser") as live:
        url, browser = live.url, live.browser
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        other = browser.new_context().new_page()
        page.goto(f"{url}/account/signup")
        page.fill("input[name=team_name]", "Browser Lab")
        page.fill("input[name=email]", "browser@example.org")
        page.fill("input[name=password]", DEFAULT_PASSWORD)
        page.fill("input[name=confirm]", DEFAULT_PASSWORD)
        page.click("form button[type=submit] >> nth=-1")
        expect(page.locator("h1")).to_have_text("Check your e-mail")
        page.click("main a[href='/account/login']")
        page.fill("input[name=email]", "browser@example.org")
        page.fill("input[name=password]", DEFAULT_PASSWORD)
        page.click("main form button[type=submit]")
        expect(page.locator("h1")).to_have_text("Team Browser Lab")
        expect(page.locator("#verify-heading")).to_have_text("Confirm your e-mail address")
        page.screenshot(path=str(ARTIFACTS / f"account-unverified-{width}.png"), full_page=True)

        page.check("input[name=notify_on_finish]")
        page.click("text=Save")
        expect(page.locator(".flash-success")).to_contain_text("You will get an e-mail")
        expect(page.locator("input[name=notify_on_finish]")).to_be_checked()

        other.goto(f"{url}/account/login")
        other.fill("input[name=email]", "browser@example.org")
        other.fill("input[name=password]", DEFAULT_PASSWORD)
        other.click("main form button[type=submit]")
        expect(other.locator("h1")).to_have_text("Team Browser Lab")

        page.click("text=Log out everywhere")
        expect(page.locator(".flash-info")).to_contain_text("logged out everywhere "
                                                            "(2 sessions ended)")
        other.goto(f"{url}/account/")
        assert "/account/login" in other.url
        page.screenshot(path=str(ARTIFACTS / f"account-logged-out-{width}.png"), full_page=True)
