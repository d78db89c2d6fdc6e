"""One figure, one text, on every surface: a value whose two decimals a binary ``%.2f`` and
score.pl disagree on prints as score.pl prints it on the submission API, the ranking page
and API, the exports, the system and team pages; a file that repeats answers is set apart
(with its figure without the repeats) only where the repeats change a printed figure, and
compare gives no verdict on a metric they inflate.

The split is tests/lexsub_files.GOLD; PAIR and REPEATS are worked out by hand in
tests/pipeline/test_lexsub_boards.py and test_lexsub_duplicates.py. REPEATS without its
repeats: smart 3/5, vivid 2/3, edge 2/3, at hand 2/3 = 2.6 over 4 items: oot R 65.00.
"""

from __future__ import annotations

import csv
import io

from sqlmodel import delete, select

from leaderboard.models import LeaderboardSnapshot, Result
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.pipeline.test_lexsub_boards import PAIR, ls07_boards  # noqa: F401
from tests.pipeline.test_lexsub_duplicates import REPEATS
from tests.pipeline.test_ranking_track import upload_and_work

#: 48.955017 prints 48.96 (score.pl: int(4895.5017 + .5) / 100); 47.125 is exact in binary,
#: which "%.2f" prints 47.12 (half to even), score.pl 47.13
VALUE, LOW, HIGH = 48.955017, 47.125, 50.785


def test_one_value_prints_the_same_on_every_surface(app, client, session, team_token,
                                                    ls07_boards):  # noqa: F811
    team, _user, token = team_token
    _, board = ls07_boards
    sid = upload_and_work(app, client, token, PAIR, board.slug, "honest")["id"]
    result = session.exec(select(Result).where(Result.submission_id == sid)).one()
    result.metrics = {**result.metrics, "best_r": VALUE, "coverage_f@3": VALUE}
    result.intervals = {**result.intervals, "best_r": [LOW, HIGH]}
    session.add(result)
    # rebuilt from the results: an incremental refresh reuses a result's numbers as known
    session.exec(delete(LeaderboardSnapshot).where(LeaderboardSnapshot.board_id == board.id))
    session.commit()
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    auth = {"Authorization": f"Bearer {token}"}
    own = client.get(f"/api/v1/submissions/{sid}", headers=auth).get_json()["result"]
    assert (own["metrics"]["best_r"], own["intervals"]["best_r"]) == (48.96, [47.13, 50.79])
    assert own["metrics"]["coverage_f@3"] == 48.96
    api = client.get(f"/api/v1/leaderboard?leaderboard={board.slug}&view=all").get_json()
    cell = api["rows"][0]["metrics"]["best_r"]
    assert (cell["value"], cell["interval"]) == (48.96, [47.13, 50.79])
    assert api["rows"][0]["metrics"]["coverage_f@3"]["value"] == 48.96
    page = client.get(f"/?leaderboard={board.slug}&view=all").get_data(as_text=True)
    assert 'title="95% interval 47.13 to 50.79">48.96</span>' in page
    rows = list(csv.DictReader(io.StringIO(client.get(
        f"/leaderboard.csv?leaderboard={board.slug}&view=all").get_data(as_text=True))))
    assert (rows[0]["best_r"], rows[0]["best_r lo"], rows[0]["best_r hi"],
            rows[0]["coverage_f@3"]) == ("48.96", "47.13", "50.79", "48.96")
    exported = client.get(f"/leaderboard.json?leaderboard={board.slug}&view=all").get_json()
    assert (exported[0]["best_r"], exported[0]["best_r lo"]) == (48.96, 47.13)
    system = client.get(f"/systems/{sid}").get_data(as_text=True)
    assert '<div class="big">48.96</div>' in system and "47.13–50.79" in system
    team_page = client.get(f"/teams/{team.id}").get_data(as_text=True)
    assert '<span class="v">48.96</span><span class="ci">47.13–50.79</span>' in team_page
    for text in (page, system, team_page, str(rows)):
        assert "48.95" not in text and "47.12" not in text


def test_repeats_set_apart_where_they_change_a_figure_with_both_figures(
        app, client, team_token, ls07_boards):  # noqa: F811
    team, _user, token = team_token
    _, board = ls07_boards
    honest = upload_and_work(app, client, token, PAIR, board.slug, "honest")
    # a repeat that changes no figure: "non military" is score.pl's "nonmilitary", no gold
    harmless = PAIR.replace(b"side.n 3 ::: edge;part", b"side.n 3 ::: edge;part;non military;"
                            b"nonmilitary")
    once = upload_and_work(app, client, token, harmless, board.slug, "one repeat")
    assert once["result"]["counts"]["items_with_duplicates"] == 1
    assert once["result"]["counts"]["without_repeats"] == {}
    repeater = upload_and_work(app, client, token, REPEATS, board.slug, "repeater")
    assert repeater["result"]["metrics"]["oot_r"] == 145.0
    assert repeater["result"]["counts"]["without_repeats"] == {"oot_p": 65.0, "oot_r": 65.0}

    oot = {r["system"]: r for r in client.get(
        f"/api/v1/leaderboard?leaderboard={board.slug}&view=oot&entries=all").get_json()["rows"]}
    assert (oot["honest"]["rank"], oot["one repeat"]["rank"]) == (1, 1)
    assert oot["one repeat"]["flags"] == [] and not oot["one repeat"]["set_apart"]
    assert oot["repeater"]["rank"] is None
    assert "(without the repeats: 65.00)" in oot["repeater"]["set_apart"]

    system = client.get(f"/systems/{repeater['id']}").get_data(as_text=True)
    assert ('<div class="big">145.00<abbr class="flag" title="repeats answers on 4 items; '
            'score.pl counts each repeat, so its oot is not ranked (without the repeats: '
            '65.00)">repeats</abbr></div>') in system
    assert 'class="flag"' not in client.get(f"/systems/{once['id']}").get_data(as_text=True)
    team_page = client.get(f"/teams/{team.id}").get_data(as_text=True)
    assert team_page.count('<abbr class="flag"') == 1       # the repeater's oot R only

    compared = client.get(f"/api/v1/compare?a={honest['id']}&b={repeater['id']}").get_json()
    assert "without the repeats: 65.00" in compared["metrics"]["oot_r"]["caveat"]
    assert compared["metrics"]["best_r"]["caveat"] == ""
    assert compared["summary"]["caveated"] == 2         # oot P and R: no winner counted
    page = client.get(f"/compare?a={honest['id']}&b={repeater['id']}").get_data(as_text=True)
    oot_row = page[page.index("oot R"):]
    assert "no verdict: B repeats answers on 4 items" in oot_row.split("</tr>", 1)[0]
