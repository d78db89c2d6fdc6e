"""The dev-phase diagnostics table in chromium at 1366 px and 390 px: the page body never
scrolls sideways (the wide table scrolls in its own box), the header and POS links sort and
filter without JavaScript, screenshots in test-artifacts/ (looked at by eye).

Uses the hand-worked split of tests/dev_split.py, and the real v1.1 dev split when it is in
../shared (a realistic table: 370 targets, long substitute lists)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlmodel import Session

from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.intake.submissions import create_submission
from tests.dev_split import TID, dev_split_bytes, dev_submission_bytes
from tests.factories import DEFAULT_PASSWORD, make_team
from tests.live_site import ARTIFACTS, assert_fits, live_site

REAL_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "swords" / \
    "swords-v1.1_dev.json.gz"
WIDTHS = (1366, 390)
ORDER = {v: k for k, v in TID.items()}

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _real_dev_submission(raw_split: bytes) -> bytes:
    """Per target, its candidates in a seeded random order (the first 12) and two words that
    are no candidate: a plausible generative file with hits, misses and noise."""
    import gzip

    from leaderboard.scoring.swords.ranking_track import random_ranking_submission

    split = json.loads(gzip.decompress(raw_split))
    ranked = random_ranking_submission(split, seed=1)["substitutes"]
    subs = {tid: sorted(pairs, key=lambda p: -p[1])[:12] + [["thingamajig", -1],
                                                           ["whatchamacallit", -2]]
            for tid, pairs in ranked.items()}
    return json.dumps({"substitutes_lemmatized": False, "substitutes": subs}).encode()


def _scored(app, session, team, name: str, split_raw: bytes, sub_raw: bytes,
            split: str) -> int:
    bench = import_benchmark(session=session, raw=split_raw, name=name, version="1.1",
                             split=split, hidden=False, bootstrap=0)
    board = import_board(session, bench)
    accepted = create_submission(session=session, team=team, board=board, raw=sub_raw,
                                 system_name=f"{name} system", settings=app.config["LEADERBOARD"])
    sid = accepted.submission.id
    status = score_submission_now(engine_or_session=app.extensions["db_engine"],
                                  submission_id=sid, settings=app.config["LEADERBOARD"])
    assert status == "scored"
    return sid


def _prepare(app, _seeded) -> dict[str, int]:
    """A dev team's scored dev submissions (the tiny split, and the real one if present)."""
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        team, _user = make_team(session, "Dev Lab", email="dev@example.org")
        ids = {"tiny": _scored(app, session, team, "tiny", dev_split_bytes(),
                               dev_submission_bytes(), "dev")}
        if REAL_DEV.is_file():
            raw = REAL_DEV.read_bytes()
            ids["real"] = _scored(app, session, team, "swords", raw, _real_dev_submission(raw),
                                  "dev")
    return ids


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("diag"), prepare=_prepare, with_checks=True,
                   SECRET_KEY="diag-secret") as live:
        yield live


def _logged_in(browser, base: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/account/login")
    page.fill("input[name=email]", "dev@example.org")
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.click("main form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Team Dev Lab")
    return context, page


def _rows(page) -> list[str]:
    return [ORDER[t] for t in page.locator("tr[data-target]").evaluate_all(
        "rows => rows.map(r => r.dataset.target)")]


def _arrived(page, query: str) -> None:
    expect(page).to_have_url(re.compile(re.escape(query)))
    page.wait_for_load_state()



@pytest.mark.parametrize("width", WIDTHS)
def test_diagnostics_table_sorts_filters_and_fits(live, width):
    browser, base, ids = live.browser, live.url, live.extra
    ARTIFACTS.mkdir(exist_ok=True)
    context, page = _logged_in(browser, base, width)
    page.goto(f"{base}/account/submissions/{ids['tiny']}")
    expect(page.locator("#targets h2")).to_have_text("Per-target diagnostics")
    assert _rows(page) == ["big", "car", "summit"]  # worst first by F^10
    assert_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"diagnostics-tiny-{width}.png"), full_page=True)

    page.click("#targets thead a.sort:has-text('GAP ratio')")
    _arrived(page, "sort=gap_rat&dir=asc")
    assert _rows(page) == ["big", "summit", "car"]
    expect(page.locator("#targets th[aria-sort=ascending]")).to_contain_text("GAP ratio")
    page.click("#targets thead a.sort:has-text('GAP ratio')")  # again: best first
    _arrived(page, "sort=gap_rat&dir=desc")
    assert _rows(page) == ["car", "summit", "big"]
    page.click("#targets nav.segmented a:text-is('NOUN')")
    _arrived(page, "pos=NOUN")
    assert _rows(page) == ["car", "summit"]
    expect(page.locator("[data-diagnostics-count]")).to_contain_text("NOUN only: 2 of 2")
    assert_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"diagnostics-tiny-sorted-{width}.png"),
                    full_page=True)
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_real_dev_diagnostics_page_fits_the_window(live, width):
    browser, base, ids = live.browser, live.url, live.extra
    if "real" not in ids:
        pytest.skip(f"{REAL_DEV} not found")
    context, page = _logged_in(browser, base, width)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{base}/account/submissions/{ids['real']}?sort=gap")
    expect(page.locator("tr[data-target]")).to_have_count(50)
    expect(page.locator("[data-diagnostics-count]")).to_contain_text("50 of 370 targets")
    assert_fits(page)
    box = page.locator("#targets .table-scroll")
    inner, outer = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    if width == 390:
        # Cards: nothing to scroll sideways, and a target's top 10 sits under its word.
        assert inner <= outer, (inner, outer)
        word, top10 = (page.locator("#targets tbody tr").first.locator(sel).bounding_box()
                       for sel in ("th[scope=row]", "td.top10"))
        assert top10["y"] > word["y"] and top10["x"] + top10["width"] <= 390, (word, top10)
        expect(page.locator("#targets thead a.sort")).to_have_count(3)  # still sortable
    page.evaluate("document.querySelector('#targets').scrollIntoView()")
    page.screenshot(path=str(ARTIFACTS / f"diagnostics-real-{width}.png"))
    page.click("#targets a:text-is('show all')")
    expect(page.locator("tr[data-target]")).to_have_count(370)
    assert_fits(page)
    assert errors == []
    context.close()
