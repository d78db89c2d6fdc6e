"""Files that repeat answers, end to end: scored faithfully by a real
worker, flagged in the ranking API and set apart, unranked, on the views whose metric the
repeats inflate (oot on a generative board, GAP on a ranking board), in their own group on
the page, the matrix, the charts, the history, the significance page and the exports.

The split is tests/lexsub_files.GOLD. Numbers worked out by hand:

* HONEST (the .best + .oot pair of test_lexsub_boards): best R 52.50, oot R 50.00.
* REPEATS: one .best line (clever, 2/5: best R 10.00); .oot lines repeating a gold answer on
  every item: smart 3 x 3/5, vivid 2 x 2/3, edge 2 x 2/3, at hand 2 x 2/3 = 5.8 over 4
  items: oot R 145.00, 4 items with duplicates.
* RANKED_REPEATS: bright.a 1 smart, smart, clever: (3/1 + 6/2 + 8/3) / (3/1 + 5/2); the other
  instances as RANKED of test_lexsub_boards (1 and 2.5/3.5; side.n 4 skipped).
"""

from __future__ import annotations

import csv
import io

import pytest

from tests.backends import ALL_DATABASES
from tests.pipeline.test_lexsub_boards import GAP, PAIR, RANKED, ls07_boards  # noqa: F401
from tests.pipeline.test_ranking_track import upload_and_work

REPEATS = (b"bright.a 1 :: clever\n"
           b"bright.a 1 ::: smart;smart;smart\nbright.a 2 ::: vivid;vivid\n"
           b"side.n 3 ::: edge;edge\nside.n 4 ::: at hand;at hand\n")
RANKED_REPEATS = RANKED.replace(b"bright.a 1\tclever 0.9\tsmart 0.5",
                                b"bright.a 1\tsmart 0.9\tsmart 0.8\tclever 0.5")
GAP_REPEATS = 100 * ((3 + 3 + 8 / 3) / 5.5 + 1 + 2.5 / 3.5) / 3
WHY_OOT = "repeats answers on 4 items; score.pl counts each repeat"


def _rows(client, slug: str, view: str) -> dict[str, dict]:
    api = client.get(f"/api/v1/leaderboards/{slug}/ranking?view={view}&entries=all")
    assert api.status_code == 200, api.get_data(as_text=True)
    return {r["system"]: r for r in api.get_json()["rows"]}


@ALL_DATABASES
def test_a_generative_file_repeating_answers_is_flagged_and_unranked_on_oot(
        app, client, team_token, ls07_boards) -> None:  # noqa: F811
    _team, _user, token = team_token
    _, generative = ls07_boards
    upload_and_work(app, client, token, PAIR, generative.slug, "honest")
    body = upload_and_work(app, client, token, REPEATS, generative.slug, "repeater")
    assert body["status"] == "scored", body["errors"]
    assert body["result"]["metrics"]["oot_r"] == pytest.approx(145.0)
    assert body["result"]["counts"]["items_with_duplicates"] == 4
    assert [w for w in body["warnings"] if w.startswith("4 items repeat an answer")]

    oot = _rows(client, generative.slug, "oot")
    assert list(oot) == ["honest", "repeater"]          # own group, below, despite 145 > 50
    assert (oot["honest"]["rank"], oot["honest"]["flags"]) == (1, [])
    apart = oot["repeater"]
    assert apart["rank"] is None and apart["rank_lo"] is None
    assert apart["flags"] == ["duplicate_answers"] and apart["items_with_duplicates"] == 4
    assert apart["headline"] == pytest.approx(145.0) and WHY_OOT in apart["set_apart"]
    default_api = client.get(f"/api/v1/leaderboard?leaderboard={generative.slug}&view=oot"
                             "&entries=all").get_json()
    assert [(r["system"], r["rank"], r["flags"], r["items_with_duplicates"])
            for r in default_api["rows"]] == [("honest", 1, [], 0),
                                              ("repeater", None, ["duplicate_answers"], 4)]
    best = _rows(client, generative.slug, "best")         # best is not inflated: ranked
    assert (best["honest"]["rank"], best["repeater"]["rank"]) == (1, 2)
    assert best["repeater"]["flags"] == ["duplicate_answers"]
    assert not best["repeater"]["set_apart"]

    html = client.get(f"/?leaderboard={generative.slug}&view=oot&entries=all").get_data(
        as_text=True)
    systems, apart_group = html.split('id="systems"', 1)[1].split('id="set-apart"', 1)
    assert ">honest</a>" in systems and ">repeater</a>" not in systems
    assert ">repeater</a>" in apart_group and WHY_OOT in apart_group
    assert "Set apart · not ranked" in apart_group
    exported = list(csv.DictReader(io.StringIO(client.get(
        f"/leaderboard.csv?leaderboard={generative.slug}&view=oot&entries=all")
        .get_data(as_text=True))))
    assert [(r["system"], r["rank"], r["flags"]) for r in exported if r["row_type"] == "system"
            ] == [("honest", "1", ""), ("repeater", "", "duplicate_answers")]
    assert WHY_OOT in exported[1]["set_apart"]
    history = client.get(f"/history?leaderboard={generative.slug}&view=oot").get_data(
        as_text=True)
    assert "Set apart: repeats answers (never the best)" in history
    significance = client.get(f"/significance?leaderboard={generative.slug}&metric=oot_r")
    assert WHY_OOT in significance.get_data(as_text=True)


@ALL_DATABASES
def test_a_ranked_file_giving_a_candidate_twice_is_flagged_and_has_no_gap_rank(
        app, client, team_token, ls07_boards) -> None:  # noqa: F811
    _team, _user, token = team_token
    ranking, _ = ls07_boards
    honest = upload_and_work(app, client, token, RANKED, ranking.slug, "honest")
    body = upload_and_work(app, client, token, RANKED_REPEATS, ranking.slug, "repeater")
    assert body["status"] == "scored", body["errors"]
    assert body["result"]["metrics"]["gap"] == pytest.approx(round(GAP_REPEATS, 2), abs=0.01)
    rows = _rows(client, ranking.slug, "gap")
    assert list(rows) == ["honest", "repeater"]
    assert rows["honest"]["rank"] == 1
    assert rows["honest"]["headline"] == pytest.approx(round(GAP, 2), abs=0.01)
    apart = rows["repeater"]
    assert (apart["rank"], apart["flags"], apart["items_with_duplicates"]) == (
        None, ["duplicate_answers"], 1)
    assert apart["headline"] > rows["honest"]["headline"]
    assert "lst_gap.py credits each repeat" in apart["set_apart"]
    page = client.get(f"/systems/{body['id']}").get_data(as_text=True)
    assert 'id="set-apart-note"' in page and "around=" not in page   # no neighbours link
    assert "ranks a candidate twice on 1 instances" in page
    assert "around=" in client.get(f"/systems/{honest['id']}").get_data(as_text=True)


@ALL_DATABASES
def test_the_dry_run_warns_duplicate_answers_with_the_count(
        app, client, team_token, ls07_boards, checks_worker) -> None:  # noqa: F811
    _team, _user, token = team_token
    ranking, generative = ls07_boards
    for raw, slug, count in ((REPEATS, generative.slug, 4), (RANKED_REPEATS, ranking.slug, 1),
                             (PAIR, generative.slug, 0)):
        report = client.post("/api/v1/validate", headers={"Authorization": f"Bearer {token}"},
                             data={"leaderboard": slug, "file": (io.BytesIO(raw), "run.txt")},
                             content_type="multipart/form-data").get_json()
        assert report["ok"] is True
        assert report["counts"]["items_with_duplicates"] == count
        codes = [w["code"] for w in report["warnings"]]
        assert codes.count("duplicate_answers") == (1 if count else 0)
