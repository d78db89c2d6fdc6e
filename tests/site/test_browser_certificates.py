"""Certificates in chromium at 1366 and 390 px: a team makes its authorship secret on its
account page, downloads a result's certificate from the permalink page, and the /verify page
says it is valid and the team's, and refuses it once changed. Screenshots go to
test-artifacts/ and /tmp (looked at by eye)."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, col, select

from leaderboard.models import Result
from tests.factories import DEFAULT_PASSWORD
from tests.live_site import ARTIFACTS, assert_fits, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

#: width -> (team, its member's e-mail, one of its systems)
CASES = {1366: ("North Lab", "north-lab@example.org", "Contextual ranker"),
         390: ("South Lab", "south-lab@example.org", "Thesaurus baseline")}


def _public_ids(app, seeded) -> dict[str, str]:
    with Session(app.extensions["db_engine"]) as session:
        return {name: session.exec(select(Result.public_id).where(
            Result.submission_id == sid, col(Result.is_current).is_(True))).one()
            for name, sid in seeded.public.items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("certificates"), prepare=_public_ids,
                   SECRET_KEY="certificates-secret") as live:
        yield live


def _shot(page, name: str, width: int, full_page: bool = True) -> None:
    page.screenshot(path=str(ARTIFACTS / f"certificate-{name}-{width}.png"),
                    full_page=full_page)


@pytest.mark.parametrize("width", sorted(CASES))
def test_secret_certificate_and_verdict_in_the_browser(site, width, tmp_path):
    team, email, system = CASES[width]
    page = site.browser.new_context(viewport={"width": width, "height": 900},
                                    accept_downloads=True).new_page()
    page.goto(f"{site.url}/account/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.click("main form button[type=submit]")
    expect(page.locator("h1")).to_have_text(f"Team {team}")
    expect(page.locator("#authorship-state")).to_contain_text("no secret yet")
    page.locator("#authorship").scroll_into_view_if_needed()
    assert_fits(page)
    _shot(page, "account", width)
    page.click("text=Create an authorship secret")
    secret = page.locator("#new-secret").input_value()
    assert len(secret) >= 40
    team_id = page.locator("#new-secret-hint strong").inner_text()
    assert_fits(page)
    _shot(page, "secret", width)

    public_id = site.extra[system]
    page.goto(f"{site.url}/results/{public_id}")
    with page.expect_download() as download:
        page.click("#certificate a[download]")
    assert download.value.suggested_filename == f"result-{public_id}-certificate.json"
    path = tmp_path / "cert.json"
    download.value.save_as(path)
    certificate = json.loads(path.read_text())
    assert team not in path.read_text() and system not in path.read_text()
    page.locator("#certificate").scroll_into_view_if_needed()
    assert_fits(page)
    _shot(page, "result", width, full_page=False)  # the link, not the whole record

    page.goto(f"{site.url}/verify")
    page.set_input_files("#file", str(path))
    page.fill("#team_id", team_id)
    page.fill("#secret", secret)
    page.click("form.verify-form button[type=submit]")
    expect(page.locator("#verdict-h")).to_have_text("Valid")
    expect(page.locator("#verdict-authorship")).to_be_visible()
    assert_fits(page)
    _shot(page, "valid", width)

    changed = {**certificate, "scored_at": "2020-01-01T00:00:00+00:00"}
    page.fill("#certificate", json.dumps(changed, indent=2))
    page.click("form.verify-form button[type=submit]")
    expect(page.locator("#verdict-h")).to_have_text("Refused")
    expect(page.locator("#verdict-reason")).to_contain_text("The signature does not match")
    assert_fits(page)
    _shot(page, "refused", width)
