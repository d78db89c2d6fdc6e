"""An anonymous entry in chromium at 1366 px and 390 px: the board and its system page as
the public sees them (no team, no links) and its team's own view of it (everything, and a
note of what the public sees). Screenshots in test-artifacts/anonymous-*.png."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from leaderboard.models import Submission, System, User
from leaderboard.services.intake.systems import edit_system
from tests.factories import DEFAULT_PASSWORD
from tests.live_site import ARTIFACTS, assert_fits, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _prepare(app, seeded) -> dict[str, str]:
    """North Lab's Contextual ranker made anonymous, with links and a description."""
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        sub = session.get(Submission, seeded.public["Contextual ranker"])
        system = session.get(System, sub.system_id)
        edit_system(session=session, system=system, user_id=None, via="api", fields={
            "paper_url": "https://arxiv.org/abs/2106.04102", "base_model": "bert-large",
            "code_url": "https://github.com/north-lab/ranker", "open_weights": True,
            "anonymous": True, "reveal_on": "2027-03-15"})
        member = session.exec(select(User.email).where(User.team_id == sub.team_id)).first()
        return {"slug": system.slug, "tag": system.anonymous_tag, "member": member}


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("anonymous"), prepare=_prepare,
                   SECRET_KEY="anonymous-secret") as live:
        yield live


def _fits(page, width: int, name: str) -> None:
    assert_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"anonymous-{name}-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", (1366, 390))
def test_the_public_sees_an_anonymous_row_and_page(live, width):
    context = live.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    name = f"Anonymous {live.extra['tag']}"
    page.goto(f"{live.url}/?entries=all")
    row = page.locator("tbody tr", has_text=name)
    expect(row).to_have_count(1)
    expect(row).not_to_contain_text("North Lab")
    expect(page.locator("body")).not_to_contain_text("Contextual ranker")
    _fits(page, width, "board")
    row.get_by_role("link", name=name).click()
    expect(page).to_have_url(f"{live.url}/systems/{live.extra['slug']}")
    expect(page.locator("h1")).to_have_text(name)
    # (its neighbours on the board are named: here, by chance, its own team's other system)
    expect(page.locator(".page-head")).not_to_contain_text("North Lab")
    expect(page.locator("main a[href*='/teams/']")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("arxiv.org")
    expect(page.locator("main")).to_contain_text("bert-large")
    _fits(page, width, "system")
    assert errors == []
    context.close()


@pytest.mark.parametrize("width", (1366, 390))
def test_the_team_sees_its_anonymous_system_whole(live, width):
    context = live.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{live.url}/account/login")
    page.fill("input[name=email]", live.extra["member"])
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.locator("form button[type=submit]").first.click()
    page.goto(f"{live.url}/systems/{live.extra['slug']}")
    expect(page.locator("h1")).to_have_text("Contextual ranker")
    expect(page.locator("#anonymous-notice")).to_contain_text(
        f"Anonymous {live.extra['tag']}")
    expect(page.locator("#anonymous-notice")).to_contain_text("until 2027-03-15")
    expect(page.locator("main")).to_contain_text("North Lab")
    expect(page.locator("main")).to_contain_text("arxiv.org")
    _fits(page, width, "own")
    context.close()
