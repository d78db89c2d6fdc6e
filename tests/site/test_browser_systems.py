"""A system's page in chromium at 1366 px and 390 px: its results on two boards and the
history of its metadata fit the width (wide tables scroll in their own box). Screenshots in
test-artifacts/system-*.png."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from leaderboard.models import Submission, System, Team
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.intake.systems import edit_system
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.live_site import ARTIFACTS, live_site
from tests.site.seed import _store, demo_file, demo_split

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _prepare(app, seeded) -> str:
    """Contextual ranker on a second (dev) board too, with edited metadata; its slug."""
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        dev = import_benchmark(session=session, raw=json.dumps(demo_split()).encode(),
                               name="swords-demo", version="1", split="dev", hidden=False,
                               bootstrap=200)
        team = session.get(Team, seeded.teams["North Lab"])
        row = _store(session, dev, team, "Contextual ranker", demo_file("demo_strong"))
        _store(session, dev, session.get(Team, seeded.teams["East Lab"]),
               "Frequency baseline", demo_file("demo_weak"))
        session.commit()
        refresh_snapshot(session=session, board_id=row.board_id)
        session.commit()
        system = session.exec(select(System).where(System.id == session.get(
            Submission, row.id).system_id)).one()
        edit_system(session=session, system=system, user_id=None, via="api", fields={
            "paper_url": "https://arxiv.org/abs/2106.04102/" + "a" * 80,
            "base_model": "bert-large-uncased", "parameter_count": 340000000,
            "external_llm_api": False, "extra_resources": "WordNet, CoInCo",
            "open_weights": True})
        return system.slug


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("systems"), prepare=_prepare,
                   SECRET_KEY="systems-secret") as live:
        yield live


@pytest.mark.parametrize("width", (1366, 390))
def test_system_page_fits_the_width(live, width):
    context = live.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live.url}/systems/{live.extra}")
    expect(page.locator("#results-caption ~ tbody tr")).to_have_count(2)
    expect(page.locator("#history-caption ~ tbody tr")).to_have_count(6)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(ARTIFACTS / f"system-{width}.png"), full_page=True)
    assert errors == []
    context.close()
