"""In chromium at 1366 px and 390 px: a reported row's long name stays in its
own cell on an LS07 ranking board, its label on /history stays inside the plot, and the
submit form's header follows the leaderboard chosen in its select (submit.js). Screenshots
in test-artifacts/minor-*.png."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session

from leaderboard.models import Team
from leaderboard.scoring.reported import parse_reported
from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.catalog.reported import add_rows
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import DEFAULT_PASSWORD, make_team
from tests.lexsub_files import write_semeval07
from tests.live_site import ARTIFACTS, live_site

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

LONG_NAME = "Wada et al. (DeBERTa-V3, decontextualised embeddings, reranked)"
RANKED = (b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.5\tvivid 0.1\tshining 0.1\n"
          b"RANKED\tbright.a 2\tvivid 1\tshining 0.2\tsmart 0\tclever 0\n"
          b"RANKED\tside.n 3\tpart 0.9\tedge 0.1\tat hand 0\tnear-by 0\n")
REPORTED = {"format": 1, "title": "A paper", "citation": "Ann Author and Bo Author. 2022. A "
            "paper.", "url": "https://example.org/paper",
            "benchmark": {"name": "semeval07", "version": "1", "split": "trial"},
            "rows": [{"name": LONG_NAME, "track": "ranking", "source": "its Table 2",
                      "metrics": {"gap": 95.5}}]}


def _prepare(app, seeded, folder) -> dict:
    settings, engine = app.config["LEADERBOARD"], app.extensions["db_engine"]
    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        boards = {track: lexsub_board(session, "semeval07", "trial", track, data_dir=folder)
                  for track in ("ranking", "generative")}
        add_rows(session, boards["ranking"], parse_reported(json.dumps(REPORTED)), "paper")
        session.commit()
        team = session.get(Team, next(iter(seeded.teams.values())))
        accepted = create_submission(session=session, team=team, board=boards["ranking"],
                                     raw=RANKED, system_name="Context ranker",
                                     settings=settings, is_public=True)
        session.commit()
        assert score_submission_now(engine_or_session=engine,
                                    submission_id=accepted.submission.id,
                                    settings=settings) == "scored"
        for board in boards.values():
            refresh_snapshot(session=session, board_id=board.id)
        make_team(session, name="Browser Lab", email="lab@example.org")
        session.commit()
        return {track: board.slug for track, board in boards.items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    folder = write_semeval07(tmp_path_factory.mktemp("ls07-minor"))
    with live_site(chromium, tmp_path_factory.mktemp("minor"), SECRET_KEY="minor-secret",
                   prepare=lambda app, seeded: _prepare(app, seeded, folder)) as live:
        yield live


def _right(box: dict) -> float:
    return box["x"] + box["width"]


@pytest.mark.parametrize("width", (1366, 390))
def test_a_reported_rows_long_name_stays_in_its_cell_and_inside_the_history_plot(site, width):
    page = site.browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{site.url}/?leaderboard={site.extra['ranking']}")
    row = page.locator("tr.ref-reported", has_text=LONG_NAME)
    expect(row).to_be_visible()  # 95.5 beats the ranked system: shown among the systems
    name = row.locator("th.col-system > span").first.bounding_box()
    gap = row.locator('td[data-key="gap"]').bounding_box()
    assert name is not None and gap is not None
    assert _right(name) <= gap["x"] + 0.5, (name, gap)
    row.screenshot(path=str(ARTIFACTS / f"minor-reported-row-{width}.png"))

    page.goto(f"{site.url}/history?leaderboard={site.extra['ranking']}")
    expect(page.locator("#history-chart g.annotation").first).to_be_attached(timeout=15000)
    labels = [a for a in page.locator("#history-chart g.annotation").all()
              if "(reported, not re-scored)" in (a.text_content() or "")]
    assert len(labels) == 1
    # The name cut to the plot's width, its note kept; the whole text on hover.
    assert labels[0].text_content().startswith("Wada et al. (DeBERTa-V3,")
    box = labels[0].bounding_box()
    title = page.locator("#history-chart .g-ytitle").bounding_box()
    assert box is not None and title is not None
    # Inside the window and clear of the y-axis title (it was cut at the left and over it).
    assert box["x"] >= _right(title) and _right(box) <= width, (box, title)
    page.locator("#history-chart").screenshot(path=str(ARTIFACTS / f"minor-history-{width}.png"))
    page.context.close()


@pytest.mark.parametrize("width", (1366, 390))
def test_the_submit_header_follows_the_chosen_leaderboard(site, width):
    page = site.browser.new_context(viewport={"width": width, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site.url}/account/login")
    page.fill("input[name=email]", "lab@example.org")
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.click("main form button[type=submit]")
    page.goto(f"{site.url}/account/submit?leaderboard={site.extra['ranking']}")
    shown = page.locator("#board-about .board-about:visible")
    expect(shown).to_have_count(1)
    expect(shown).to_contain_text("Scored on SemEval-2007 (LS07) trial, 4 instances")
    expect(shown).to_contain_text("RANKED lines as lst_gap.py reads them")
    page.screenshot(path=str(ARTIFACTS / f"minor-submit-ranking-{width}.png"), full_page=True)

    page.select_option("#leaderboard", site.extra["generative"])
    expect(shown).to_have_count(1)
    expect(shown).to_have_attribute("data-board", site.extra["generative"])
    expect(shown).to_contain_text("score.pl's .best and .oot lines")
    page.select_option("#leaderboard", "swords-demo-v1-test-generative")
    expect(shown).to_contain_text("targets")
    expect(shown).to_contain_text(".json or .json.gz")
    expect(shown.locator(".inputs-note a")).to_have_attribute(
        "href", "/benchmarks/swords-demo/1/test/inputs.json.gz")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.context.close()
    assert errors == []
