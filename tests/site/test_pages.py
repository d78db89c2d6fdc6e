"""Public pages: status codes, sorting, views, POS, references, visibility, bad input."""

from __future__ import annotations

import re
from html import unescape

import pytest

from leaderboard.services.intake.submissions import track_metrics
from tests.factories import login

HEADLINE_VALUES = re.compile(r'data-key="strict_a_f@10"')


def _system_order(html: str) -> list[str]:
    body = html.split('<tbody id="systems">')[1]
    return re.findall(r'<th scope="row" class="col-system sticky2" data-value="([^"]+)"', body)


def test_ranking_default_is_strict_f10_descending(site):
    client, _ = site
    html = client.get("/").get_data(as_text=True)
    assert 'data-key="strict_a_f@10" data-type="num" aria-sort="descending"' in html
    # one row per team by default: each team's best on strict F^10
    assert _system_order(html) == ["Ranker top-3", "Thesaurus baseline", "Frequency baseline"]
    every = client.get("/?entries=all").get_data(as_text=True)
    assert _system_order(every)[:3] == ["Ranker top-3", "Contextual ranker",
                                        "Thesaurus baseline"]
    # never ranked: reference rows sit in their own tbody, above the systems
    refs = html.split('<tbody class="references">')[1].split("</tbody>")[0]
    assert "Humans" in refs and "CoInCo" in refs and "Thesaurus" in refs
    assert "Secret system" not in html and "Hidden system" not in html
    assert "89-target subset" in html and "lenient" in html


def test_ranking_sort_query_string(site):
    client, _ = site
    html = client.get("/?sort=gap&dir=desc&entries=all").get_data(as_text=True)
    assert 'data-key="gap" data-type="num" aria-sort="descending"' in html
    assert _system_order(html)[0] == "Contextual ranker"
    asc = _system_order(client.get("/?sort=system&dir=asc").get_data(as_text=True))
    assert asc == sorted(asc, key=str.casefold)
    by_rank = _system_order(client.get("/?sort=rank&dir=desc").get_data(as_text=True))
    assert by_rank[-1] == "Ranker top-3"


def test_rank_interval_conservative_rank_and_tie_marks(site):
    client, _ = site
    html = client.get("/?entries=all").get_data(as_text=True)
    body = html.split('<tbody id="systems">')[1]
    first, second = body.split("<tr")[1:3]
    assert "<strong>1</strong>" in first and "1–2" in first
    # Contextual ranker is statistically tied with Ranker top-3 on strict F^10 (p >= 0.05)
    assert 'class="tied"' in second and "≈" in second
    # only the sorted column carries tie marks: sorted by GAP, the headline cells have none
    by_gap = client.get("/?entries=all&sort=gap").get_data(as_text=True)
    rows = by_gap.split('<tbody id="systems">')[1].split("<tr")[1:]
    assert all('class="tied"' not in r for r in rows)


@pytest.mark.parametrize("view,key", [("strict-c", "strict_c_f@10"),
                                      ("lenient-a", "lenient_a_f@10"),
                                      ("lenient-c", "lenient_c_f@10"), ("all", "oot_mode_r")])
def test_views(site, view, key):
    client, _ = site
    response = client.get(f"/?view={view}")
    assert response.status_code == 200
    assert f'data-key="{key}"' in response.get_data(as_text=True)


def test_percent_of_humans_where_defined(site):
    client, _ = site
    lenient = client.get("/?view=lenient-a").get_data(as_text=True)
    assert "% Humans" in lenient and re.search(r'<td class="num pct">\d+%</td>', lenient)
    # the seeded Humans rows provide lenient keys only: no strict comparison is defined
    assert "% Humans</abbr></th>" not in client.get("/").get_data(as_text=True)


def test_pos_view_uses_pos_scores(site):
    client, _ = site
    html = client.get("/?pos=NOUN").get_data(as_text=True)
    assert "NOUN targets only" in html
    assert 'aria-current="true">NOUN</a>' in html


@pytest.mark.parametrize("query,message", [
    ("view=bogus", "unknown view &#39;bogus&#39;; use one of strict-a, strict-c, lenient-a, "
                   "lenient-c, all"),
    ("pos=PRON", "unknown pos &#39;PRON&#39;; use ALL, NOUN, VERB, ADJ, ADV"),
    ("sort=oot_p", "cannot sort by &#39;oot_p&#39; in view &#39;strict-a&#39;"),
    ("dir=up", "dir must be asc or desc, not &#39;up&#39;"),
])
def test_bad_query_is_400(site, query, message):
    client, _ = site
    for path in ("/", "/leaderboard.csv", "/leaderboard.json"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 400
        # the page escapes the message; an export answers it as plain text
        assert (message if path == "/" else unescape(message)) in \
            response.get_data(as_text=True)
        assert response.mimetype == ("text/html" if path == "/" else "text/plain")


def test_matrix(site):
    client, _ = site
    html = client.get("/matrix?metric=gap").get_data(as_text=True)
    assert "Contextual ranker" in html and "ADV" in html and "Humans" in html
    response = client.get("/matrix?metric=nope")
    assert response.status_code == 400
    assert "unknown metric &#39;nope&#39;" in response.get_data(as_text=True)


def test_charts_page_embeds_figures_and_local_plotly(site):
    client, _ = site
    html = client.get("/charts?view=lenient-a").get_data(as_text=True)
    assert 'type="application/json" id="figure-1"' in html
    assert "/static/vendor/plotly.min.js?v=" in html and "cdn" not in html.lower()
    assert client.get("/charts?view=all").status_code == 400


def test_plotly_js_served_with_long_cache(site):
    client, _ = site
    response = client.get("/static/vendor/plotly.min.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert "max-age=31536000" in response.headers["Cache-Control"]
    assert b"plotly" in response.data[:2000].lower()
    again = client.get("/static/vendor/plotly.min.js",
                       headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304
    # what browsers get: gzipped, under half the size
    import gzip

    zipped = client.get("/static/vendor/plotly.min.js", headers={"Accept-Encoding":
                                                                 "gzip, deflate, br"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert "max-age=31536000" in zipped.headers["Cache-Control"]
    assert gzip.decompress(zipped.data) == response.data
    assert len(zipped.data) < len(response.data) / 2
    assert zipped.headers["ETag"] != response.headers["ETag"]


def test_system_page(site):
    client, seeded = site
    sid = seeded.public["Contextual ranker"]
    html = client.get(f"/systems/{sid}").get_data(as_text=True)
    assert "Contextual ranker" in html and "SHA-256" in html and "Scorer version" in html
    assert 'id="pos-figure"' in html and "95%" in html
    other = seeded.public["Thesaurus baseline"]
    moved = client.get(f"/systems/{sid}?compare={other}")
    assert moved.status_code == 302
    assert moved.headers["Location"].endswith(f"/compare?a={sid}&b={other}")
    compared = client.get(moved.headers["Location"]).get_data(as_text=True)
    assert "Summary" in compared and "P(A beats B)" in compared and "verdict-yes" in compared
    # "p < 0.001" or "p = 0.012" in the sentence, never "p = < 0.001"
    headline = compared.split("On the headline")[1].split("</p>")[0]
    assert re.search(r"\), p (&lt;|=) 0\.\d{3}: <strong>", headline), headline
    assert "p = &lt;" not in compared


def test_a_swords_system_lists_no_tsar_metric(site):
    """Every result carries every family's metrics (TSAR-2022's at 0 on SWORDS): the system
    page's table and the owner's JSON show a board's own only."""
    client, seeded = site
    html = client.get(f"/systems/{seeded.public['Contextual ranker']}").get_data(as_text=True)
    table = html.split('id="metrics"')[1].split("</table>")[0]
    assert "best1" in table and "F<sup>10</sup>" in table
    for label in ("ACC@1", "MAP@3", "Potential@10", "ACC@2@Top1"):
        assert label not in table
    values = {"strict_a_f@10": 50.0, "best1": 12.5, "acc@1": 0.0, "map@3": 0.0}
    assert track_metrics("generative", values) == {"strict_a_f@10": 50.0, "best1": 12.5}
    assert track_metrics("tsar-generative", values) == {"acc@1": 0.0, "map@3": 0.0}


def test_system_page_bad_compare(site):
    client, seeded = site
    sid = seeded.public["Contextual ranker"]
    response = client.get(f"/systems/{sid}?compare=abc")
    assert response.status_code == 400
    assert "compare must be a system id" in response.get_data(as_text=True)
    response = client.get(f"/compare?a={sid}&b={seeded.private_id}")
    assert response.status_code == 404


def test_private_and_hidden_systems_are_404_for_the_public(site):
    client, seeded = site
    for sid in (seeded.private_id, seeded.hidden_id, 99999):
        response = client.get(f"/systems/{sid}")
        assert response.status_code == 404
        assert "No such system, or it is not public." in response.get_data(as_text=True)
    assert "Secret system" not in client.get(f"/teams/{seeded.teams['East Lab']}").get_data(
        as_text=True)


def test_private_system_visible_to_its_team_only(site_app):
    seeded = site_app.config["SEEDED"]
    own = site_app.test_client()
    login(own, "east-lab@example.org")
    response = own.get(f"/systems/{seeded.private_id}")
    assert response.status_code == 200 and "Secret system" in response.get_data(as_text=True)
    assert "Secret system" in own.get(f"/teams/{seeded.teams['East Lab']}").get_data(
        as_text=True)
    other = site_app.test_client()
    login(other, "north-lab@example.org")
    assert other.get(f"/systems/{seeded.private_id}").status_code == 404


def test_team_page(site):
    client, seeded = site
    html = client.get(f"/teams/{seeded.teams['North Lab']}").get_data(as_text=True)
    assert "Contextual ranker" in html and "Ranker top-3" in html
    # One table per leaderboard, headed by the board's name, with display labels rather than
    # raw "F^10 strict".
    assert re.search(r'<h2 id="team-board-\d+"><a href="/\?leaderboard=[^"]+">swords-demo', html)
    heads = re.findall(r'<th scope="col" class="num" title="([^"]+)">(.*?)</th>', html)
    assert heads[:2] == [("strict_a_f@10", "F<sup>10</sup> strict"),
                         ("strict_c_f@10", "F<sub>c</sub><sup>10</sup> strict")]
    assert "F^10 strict" not in html
    response = client.get("/teams/9999")
    assert response.status_code == 404 and "No such team." in response.get_data(as_text=True)


def test_team_page_shows_each_systems_numbers_from_its_current_result(site_app):
    """Each system's row: its current result's F^10 and F_c^10 strict, with their intervals,
    printed with one decimal (the team page reads only those two columns of the result)."""
    from sqlmodel import Session, select

    from leaderboard.models import Result, Submission

    seeded = site_app.config["SEEDED"]
    html = site_app.test_client().get(f"/teams/{seeded.teams['North Lab']}").get_data(
        as_text=True)
    with Session(site_app.extensions["db_engine"]) as session:
        rows = session.exec(select(Submission, Result)
                            .join(Result, Result.submission_id == Submission.id)
                            .where(Submission.team_id == seeded.teams["North Lab"],
                                   Result.is_current == True)).all()  # noqa: E712
    assert len(rows) >= 2
    for sub, result in rows:
        if not (sub.is_public and not sub.hidden):
            continue
        row = html[html.index(f'>{sub.system_name}</a></th>'):]
        row = row[:row.index("</tr>")]
        for key in ("strict_a_f@10", "strict_c_f@10"):
            low, high = result.intervals[key]
            assert (f'<td class="num" data-key="{key}"><span class="v">'
                    f'{result.metrics[key]:.1f}</span><span class="ci">{low:.1f}–{high:.1f}'
                    '</span></td>') in row


def test_about_page(site):
    client, _ = site
    html = client.get("/about").get_data(as_text=True)
    for text in ("F<sup>10</sup>", "GAP", "quota", "How to submit", "@inproceedings",
                 "Lee, Mina and Donahue, Chris", "2021.naacl-main.345", "Scorer versions",
                 "<strong>1.1.0</strong>", "63.58 → 63.57"):
        assert text in html
    # Tracks and phases, with the quotas of each phase from the settings.
    assert "<strong>Ranking track</strong> (the paper&#39;s Table 6)" in html or \
        "<strong>Ranking track</strong> (the paper's Table 6)" in html
    assert "On a dev-phase leaderboard: 50 a day and 2000 in total." in html
    assert "<code>leaderboard=SLUG</code>" in html


def test_empty_site_before_any_benchmark(client):
    html = client.get("/").get_data(as_text=True)
    assert "No benchmark has been imported yet." in html
    response = client.get("/leaderboard.csv")
    assert response.status_code == 404
    assert "No benchmark has been imported yet." in response.get_data(as_text=True)


def test_plotly_css_served_because_csp_blocks_injected_styles(site):
    client, seeded = site
    response = client.get("/static/vendor/plotly.css")
    assert response.status_code == 200 and response.mimetype == "text/css"
    css = response.get_data(as_text=True)
    assert ".js-plotly-plot .plotly .main-svg{position:absolute;" in css
    html = client.get(f"/systems/{seeded.public['Contextual ranker']}").get_data(as_text=True)
    assert "/static/vendor/plotly.css?v=" in html
    assert '<meta id="plotly.js-style-global" class="no-inline-styles">' in html


def test_jabbari_view_on_a_swords_generative_board(site):
    client, _ = site
    html = client.get("/?view=jabbari").get_data(as_text=True)
    assert 'data-key="coverage_f" data-type="num" aria-sort="descending"' in html
    assert 'data-key="best1"' in html and "Jabbari et al. 2010" in html
    api = client.get("/api/v1/leaderboard?view=jabbari").get_json()
    assert api["headline"] == "coverage_f"
    values = [r["metrics"]["coverage_f"]["value"] for r in api["rows"]]
    assert values and all(0 < v <= 100 for v in values)
    assert values == sorted(values, reverse=True)


def test_two_private_files_of_one_team_are_not_compared_on_a_hidden_board(site_app):
    """A paired test between two of one's own unpublished files reads hidden labels back:
    refused with its reason."""
    seeded = site_app.config["SEEDED"]
    own = site_app.test_client()
    login(own, "east-lab@example.org")
    # the API compares public systems only (404 for a private id); the page shows the team's
    # own private ones to the team
    page = own.get(f"/compare?a={seeded.private_id}&b={seeded.hidden_id}")
    assert "two private submissions of one team" in page.get_data(as_text=True)
    # a private file against a public one is compared as before
    public = seeded.public["Contextual ranker"]
    page = own.get(f"/compare?a={seeded.private_id}&b={public}").get_data(as_text=True)
    assert "two private submissions" not in page and "Secret system" in page


def test_charts_and_exports_carry_two_decimals(site):
    """No chart or export carries finer scores than the tables print."""
    import json
    import re

    client, seeded = site

    def floats(value):
        if isinstance(value, float):
            yield value
        elif isinstance(value, list):
            for v in value:
                yield from floats(v)
        elif isinstance(value, dict):
            for v in value.values():
                yield from floats(v)

    seen = []
    for path in ("/charts", "/history", "/significance",
                 f"/systems/{seeded.public['Contextual ranker']}"):
        html = client.get(path).get_data(as_text=True)
        for text in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', html,
                               re.S):
            figure = json.loads(text)
            figure.get("layout", {}).pop("template", None)   # plotly's theme, not ours
            seen += list(floats(figure))
    assert seen and all(round(v, 2) == v for v in seen), [v for v in seen if round(v, 2) != v]
    rows = json.loads(client.get("/leaderboard.json?entries=all").get_data(as_text=True))
    for row in rows:
        for key, value in row.items():
            if isinstance(value, float) and not key.endswith("tie_p"):
                assert round(value, 2) == value, (key, value)


def test_date_sort_uses_the_time_not_only_the_day():
    """Two submissions of one day: 'date' sorts them by their time."""
    from leaderboard.services.ranking.ranking_table import _sort_rows

    # the better score came first in the day: a sort by day alone keeps it first
    rows = [{"id": 1, "date": "2026-11-24", "submitted_at": "2026-11-24T09:00:00",
             "headline": 60.0, "rank": 2, "system": "morning", "team": "T", "cells": []},
            {"id": 2, "date": "2026-11-24", "submitted_at": "2026-11-24T17:30:00",
             "headline": 50.0, "rank": 3, "system": "evening", "team": "T", "cells": []},
            {"id": 3, "date": "2026-11-23", "submitted_at": "2026-11-23T23:59:00",
             "headline": 70.0, "rank": 1, "system": "yesterday", "team": "T", "cells": []}]
    _sort_rows(rows, "date", "desc")
    assert [r["system"] for r in rows] == ["evening", "morning", "yesterday"]
    _sort_rows(rows, "date", "asc")
    assert [r["system"] for r in rows] == ["yesterday", "morning", "evening"]


def test_matrix_heads_give_each_pos_its_number_of_targets(site):
    """Each POS column's head says how many targets it averages over."""
    import re
    from collections import Counter

    from tests.site.seed import demo_split

    client, _ = site
    html = client.get("/matrix").get_data(as_text=True)
    heads = dict(re.findall(r'<th scope="col" class="num">(\w+)<br><span class="muted" '
                            r'title="targets in this column">([\d,]+) targets</span>', html))
    expected = Counter(t["pos"] for t in demo_split()["targets"].values())
    assert heads == {"All": str(sum(expected.values())),
                     **{pos: str(n) for pos, n in expected.items()}}


def test_system_count_is_the_boards_not_the_rows_shown(site):
    """The lede counts the board's public systems, and says how many of
    them a filter matches."""
    client, seeded = site
    n = len(seeded.public)
    count = re.compile(r'<span id="system-count">([^<]*)</span>')
    all_entries = count.search(client.get("/?entries=all").get_data(as_text=True)).group(1)
    assert all_entries == f"{n} public systems"
    nothing = count.search(client.get("/?entries=all&q=zzz").get_data(as_text=True)).group(1)
    assert nothing == f"{n} public systems, 0 matching “zzz”"
    # Best per team shows fewer rows (the caption says so); the count is still the board's.
    best = count.search(client.get("/").get_data(as_text=True)).group(1)
    assert best == f"{n} public systems"


def test_api_ranking_pages_and_says_how_many_rows(site):
    """``page``/``per_page``, and the total the pages come from."""
    client, seeded = site
    n = len(seeded.public)
    whole = client.get("/api/v1/leaderboard?entries=all").get_json()
    assert (whole["total_rows"], whole["page"], whole["per_page"], whole["pages"]) == (
        n, 1, 100, 1)
    names = [r["system"] for r in whole["rows"]]
    second = client.get("/api/v1/leaderboard?entries=all&per_page=2&page=2").get_json()
    assert [r["system"] for r in second["rows"]] == names[2:4]
    assert (second["total_rows"], second["pages"]) == (n, -(-n // 2))
    past = client.get(f"/api/v1/leaderboard?entries=all&per_page=2&page={n}").get_json()
    assert past["rows"] == [] and past["total_rows"] == n
    for bad in ("page=0", "per_page=0", "per_page=1001", "page=x"):
        response = client.get(f"/api/v1/leaderboard?{bad}")
        assert response.status_code == 400, bad
        assert response.get_json()["error"]["code"] == "bad_query"
