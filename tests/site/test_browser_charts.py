"""Every chart page of a generative and a ranking board (four scored systems, all of one day),
both with the paper's reported rows, in chromium at 1366 and 390 px:
no two labels of a chart overlap or touch, none leaves the svg, the svg stays inside its
card's border and the card ends at the plot. Screenshots in test-artifacts/check-*.png."""

from __future__ import annotations

from pprint import pformat
from typing import Any

import pytest
from sqlmodel import Session, select

from leaderboard.models import Board, Split
from leaderboard.scoring.reported import REPORTED_DIR, load_reported
from leaderboard.services.catalog.reported import add_rows
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.live_site import ARTIFACTS, live_site
from tests.site.test_browser_ranking_track import _prepare as prepare_ranking_board

WIDTHS = (1366, 390)
GAP = 2  # pixels that must separate two labels of a chart

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def _prepare(app, seeded) -> str:
    """The ranking board with its systems, and the paper's rows on both boards: its slug."""
    slug, _ids = prepare_ranking_board(app, seeded)
    with Session(app.extensions["db_engine"], expire_on_commit=False) as session:
        bench = session.get(Split, seeded.split_id)
        assert bench is not None
        for board in session.exec(select(Board).where(Board.split_id == bench.id)).all():
            name = f"swords-naacl2021-{board.track}.json"
            add_rows(session, board, load_reported(REPORTED_DIR / name), name)
            refresh_snapshot(session=session, board_id=board.id)  # type: ignore[arg-type]
        session.commit()
    return slug


@pytest.fixture(scope="module")
def site(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("charts"), prepare=_prepare,
                   SECRET_KEY="charts-secret") as live:
        yield live


def _pages(slug: str) -> dict[str, str]:
    board = f"leaderboard={slug}"
    return {"charts-generative": "/charts?view=lenient-a", "charts-strict": "/charts",
            "charts-ranking": f"/charts?{board}", "history-generative": "/history?view=lenient-a",
            "history-ranking": f"/history?{board}", "significance-generative": "/significance",
            "significance-ranking": f"/significance?{board}"}


#: Every text plotly draws (tick labels, axis titles, annotations, legend, text traces,
#: title) with its box, and the chart's and svg's boxes and the chart's borders.
MEASURE = r"""el => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const sel = ['g.xtick text', 'g.ytick text', '.g-xtitle text', '.g-ytitle text',
               '.annotation-text', '.legendtext', '.textpoint text', '.gtitle'].join(',');
  const texts = Array.from(el.querySelectorAll(sel))
    .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
    .map(t => Object.assign(box(t), {
      text: t.textContent.trim(),
      slanted: /rotate\((?!0[,)])/.test(t.getAttribute('transform') || '')}));
  const style = getComputedStyle(el);
  return {texts: texts, chart: box(el), svg: box(el.querySelector('.main-svg')),
          border: [parseFloat(style.borderLeftWidth), parseFloat(style.borderRightWidth),
                   parseFloat(style.borderTopWidth), parseFloat(style.borderBottomWidth)]};
}"""


def _overlaps(texts: list[dict[str, Any]], gap: float = GAP) -> list[tuple[str, str, float]]:
    """Pairs of labels closer than ``gap`` px both ways, with their vertical distance. Two
    slanted labels (rotated tick labels) are not compared: their upright boxes overlap
    though the text does not."""
    found = []
    for n, a in enumerate(texts):
        for b in texts[n + 1:]:
            if a["slanted"] and b["slanted"]:
                continue
            if (a["l"] < b["r"] + gap and b["l"] < a["r"] + gap
                    and a["t"] < b["b"] + gap and b["t"] < a["b"] + gap):
                found.append((a["text"], b["text"],
                              round(min(abs(a["b"] - b["t"]), abs(b["b"] - a["t"])), 1)))
    return found


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_labels_apart_inside_the_chart_and_the_card(site, width):
    """At 1366 px "Contextual ranker" sat on the F=80 label, and /history piled the names of
    the 13 reported rows on each other; each chart is measured for every defect at once."""
    context = site.browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    problems: dict[str, Any] = {}
    for name, path in _pages(site.extra).items():
        page.goto(site.url + path)
        expect(page.locator(".chart .main-svg").first).to_be_attached(timeout=15000)
        page.wait_for_timeout(400)
        for n, chart in enumerate(page.locator(".chart[data-figure]").all()):
            m = chart.evaluate(MEASURE)
            where = f"{name}#{n}"
            if pairs := _overlaps(m["texts"]):
                problems[f"{where} overlapping"] = pairs
            svg, c, (bl, br, _bt, bb) = m["svg"], m["chart"], m["border"]
            outside = [t["text"] for t in m["texts"]
                       if t["l"] < svg["l"] - 1 or t["r"] > svg["r"] + 1
                       or t["t"] < svg["t"] - 1 or t["b"] > svg["b"] + 1]
            if outside:
                problems[f"{where} cut"] = outside
            if (svg["l"] < c["l"] + bl - 0.5 or svg["r"] > c["r"] - br + 0.5
                    or svg["b"] > c["b"] - bb + 0.5):
                problems[f"{where} over the border"] = (svg, c)
            if c["b"] - bb - svg["b"] > 4:
                problems[f"{where} empty below"] = c["b"] - bb - svg["b"]
        page.screenshot(path=str(ARTIFACTS / f"check-{name}-{width}.png"), full_page=True)
    context.close()
    assert problems == {}, pformat(problems, width=100)
    assert errors == []
