"""A board's cite block and a system's "Cite this result" in chromium at 1366 and 390 px, on
SWORDS, LS07, CoInCo and TSAR-2022 boards: each names its own benchmark beside the
leaderboard, fits the window, and its Copy button copies the entry. Screenshots go to
test-artifacts/ (looked at by eye)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.catalog.tsar import tsar_board
from tests.lexsub_files import write_coinco, write_semeval07
from tests.live_site import ARTIFACTS, assert_fits, live_site, publish_scored
from tests.scoring.tsar.files import SYSTEM, write_tsar

pytestmark = pytest.mark.browser

#: Board -> the BibTeX key its cite block leads with.
KEYS = {"swords": "lee-etal-2021-swords", "ls07": "mccarthy-navigli-2007-semeval",
        "coinco": "kremer-etal-2014-substitutes", "tsar": "saggion-etal-2022-findings"}


def _prepare(app, seeded, folder) -> dict:
    with app.app_context(), Session(app.extensions["db_engine"],
                                    expire_on_commit=False) as session:
        boards = {"ls07": lexsub_board(session, "semeval07", "trial", "generative",
                                       data_dir=folder),
                  "coinco": lexsub_board(session, "coinco", "test", "generative",
                                         data_dir=folder),
                  "tsar": tsar_board(session, "en-test", root=write_tsar(folder))}
        session.commit()
        ids = publish_scored(app, session, [
            (boards["ls07"], {"Best guesser": b"bright.a 1 :: smart\nside.n 3 :: part\n"}),
            (boards["tsar"], {"Simplifier": SYSTEM.encode()})], list(seeded.teams.values()))
        return {"slugs": {k: b.slug for k, b in boards.items()}, "ids": ids}


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    folder = write_coinco(write_semeval07(tmp_path_factory.mktemp("cite-files")))
    with live_site(chromium, tmp_path_factory.mktemp("cite"),
                   prepare=lambda app, seeded: _prepare(app, seeded, folder),
                   SECRET_KEY="cite-secret") as live:
        yield live


@pytest.mark.parametrize("width", (1366, 390))
def test_each_board_cites_its_own_benchmark_beside_the_leaderboard(site, width):
    context = site.browser.new_context(viewport={"width": width, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    slugs = {"swords": None, **site.extra["slugs"]}
    for board, slug in slugs.items():
        page.goto(site.url + ("/" if slug is None else f"/?leaderboard={slug}"))
        # the footer's "How to cite" leads to this board's block
        page.locator("#footer-cite").click()
        block = page.locator("section#cite")
        assert page.evaluate("location.hash") == "#cite"
        entries = block.locator("pre.bibtex").all_inner_texts()
        assert entries[0].startswith("@inproceedings{" + KEYS[board] + ",")
        assert entries[-1].startswith("@software{swords-leaderboard,")
        assert not any(KEYS["swords"] in e for e in entries) or board == "swords"
        block.scroll_into_view_if_needed()
        assert_fits(page)
        block.screenshot(path=str(ARTIFACTS / f"cite-{board}-{width}.png"))
    button = page.locator("section#cite button.copy").first
    button.click()
    assert page.evaluate("navigator.clipboard.readText()").startswith(
        "@inproceedings{" + KEYS["tsar"])
    page.goto(f"{site.url}/about#cite-semeval07")
    assert page.locator("#cite-semeval07").is_visible()
    assert_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"cite-about-{width}.png"))
    context.close()


@pytest.mark.parametrize("width", (1366, 390))
def test_a_system_page_gives_the_permalink_bibtex_and_model_index(site, width):
    context = site.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{site.url}/systems/{site.extra['ids']['Simplifier']}")
    block = page.locator("#cite-result")
    assert "@misc{result-" in block.locator("#result-bibtex").inner_text()
    assert "type: lexical-simplification" in block.locator("#model-index-yaml").inner_text()
    block.scroll_into_view_if_needed()
    assert_fits(page)
    block.screenshot(path=str(ARTIFACTS / f"cite-system-{width}.png"))
    page.locator("#permalink").click()
    assert page.locator("h1").inner_text().startswith("Simplifier on ")
    assert_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"cite-result-{width}.png"), full_page=True)
    context.close()
