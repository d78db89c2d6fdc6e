"""The ranking track end to end over HTTP: token upload, real RQ job, ranking page and API.

Numbers worked out on the demo split (13 targets, 103 candidates, 10 labels each):
ordering every candidate by its gold score (positive labels over non-UNSURE labels) orders
it by votes too and no two substitutes merge into one lemma, so GAP, GAP ratio and P@1 are
exactly 100.00 with the interval [100, 100] (on v1.1 test the same file gets GAP 99.82:
merged lemmas carry 20 labels, so ordering by ratio is not quite ordering by votes).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlmodel import select

from leaderboard.infra.queue import get_redis
from leaderboard.models import ReferenceSystem
from leaderboard.scoring.swords.ranking_track import random_ranking_submission
from leaderboard.services.catalog.boards import create_board
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.demo import DEMO_SPLIT, demo_bytes
from tests.jobs import drain

SPLIT = json.loads(DEMO_SPLIT.read_bytes())
FIRST = next(iter(SPLIT["targets"]))  # 'quickly' (ADV): 8 candidates


def gold_scores() -> dict[str, list[list]]:
    """Every candidate of every target with its gold score, in split order."""
    out: dict[str, list[list]] = {}
    for sid, sub in SPLIT["substitutes"].items():
        labels = [x for x in SPLIT["substitute_labels"][sid] if x != "UNSURE"]
        score = sum(x in ("TRUE", "TRUE_IMPLICIT") for x in labels) / len(labels)
        out.setdefault(sub["target_id"], []).append([sub["substitute"], score])
    return out


def doc(substitutes: dict) -> bytes:
    return json.dumps({"substitutes_lemmatized": SPLIT["substitutes_lemmatized"],
                       "substitutes": substitutes}).encode()


@pytest.fixture
def ranking_board(session, benchmark, board):
    """The demo split's ranking board (the generative one stays the default)."""
    made = create_board(session, benchmark, track="ranking")
    session.commit()
    return made


def upload_and_work(app, client, token, raw: bytes, slug: str, name: str) -> dict:
    """POST through the token API, run the queue with a real RQ worker (the scoring job,
    then the ranking refresh it asks for), and return the submission's status document."""
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": name, "leaderboard": slug, "public": "true",
                                 "file": (io.BytesIO(raw), "ranking.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 202, response.get_json()
    assert response.get_json()["leaderboard"] == slug
    settings = app.config["LEADERBOARD"]
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    with app.app_context():
        conn = get_redis()
    drain(conn, settings)
    sid = response.get_json()["id"]
    return client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()


@ALL_DATABASES
def test_gold_ordered_ranking_file_gets_gap_100_and_the_board_shows_gap_not_f10(
        app, client, team_token, ranking_board):
    team, _user, token = team_token
    body = upload_and_work(app, client, token, doc(gold_scores()), ranking_board.slug, "oracle")
    assert body["status"] == "scored", body["errors"]
    assert body["track"] == "ranking"
    metrics, intervals = body["result"]["metrics"], body["result"]["intervals"]
    assert (metrics["gap"], metrics["gap_rat"], metrics["strict_c_p@1"]) == (100.0, 100.0, 100.0)
    assert intervals["gap"] == [100.0, 100.0]

    api = client.get(f"/api/v1/leaderboards/{ranking_board.slug}/ranking")
    assert api.status_code == 200
    ranking = api.get_json()
    assert (ranking["track"], ranking["view"], ranking["headline"]) == ("ranking", "ranking",
                                                                        "gap")
    assert ranking["metrics"] == ["gap", "gap_rat", "strict_c_p@1"]
    [row] = ranking["rows"]
    assert (row["system"], row["rank"], row["headline"]) == ("oracle", 1, 100.0)
    assert list(row["metrics"]) == ["gap", "gap_rat", "strict_c_p@1"]
    assert row["metrics"]["gap"]["interval"] == [100.0, 100.0]
    # Per POS works as on the generative track: 'quickly' and two more are ADV.
    adv = client.get(f"/api/v1/leaderboards/{ranking_board.slug}/ranking?pos=ADV").get_json()
    assert adv["pos"] == "ADV" and adv["rows"][0]["metrics"]["gap"]["value"] == 100.0
    # The F^10 views belong to the generative track: 400 here, and the reverse there.
    wrong = client.get(f"/api/v1/leaderboards/{ranking_board.slug}/ranking?view=strict-a")
    assert wrong.status_code == 400
    assert "generative track" in wrong.get_json()["error"]["message"]
    assert client.get("/api/v1/leaderboard?view=ranking").status_code == 400

    page = client.get(f"/?leaderboard={ranking_board.slug}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'data-key="gap"' in html and 'data-key="gap_rat"' in html
    assert 'data-key="strict_c_p@1"' in html
    assert "_f@10" not in html and "F<sup>10</sup> strict" not in html
    assert ">oracle</a>" in html
    csv = client.get(f"/leaderboard.csv?leaderboard={ranking_board.slug}").get_data(as_text=True)
    header = csv.splitlines()[0].split(",")
    assert "gap" in header and not any("f@10" in c for c in header)
    charts = client.get(f"/charts?leaderboard={ranking_board.slug}").get_data(as_text=True)
    assert "precision-recall chart is drawn only on generative leaderboards" in charts
    assert client.get(f"/charts?leaderboard={ranking_board.slug}&view=strict-a"
                      ).status_code == 400
    for path in ("/matrix", "/significance", "/history"):
        assert client.get(f"{path}?leaderboard={ranking_board.slug}").status_code == 200, path
    sig = client.get(f"/api/v1/significance?leaderboard={ranking_board.slug}").get_json()
    assert sig["metric"] == "gap" and [s["system"] for s in sig["systems"]] == ["oracle"]
    team_page = client.get(f"/teams/{team.id}").get_data(as_text=True)
    # The ranking board's own table and columns: GAP under a GAP header.
    table = team_page.split(f'<a href="/?leaderboard={ranking_board.slug}">')[1]
    table = table.split("</table>")[0]
    assert re.findall(r'<th scope="col" class="num" title="([^"]+)">', table) == [
        "gap", "gap_rat", "strict_c_p@1"]
    assert '<td class="num" data-key="gap"><span class="v">100.0</span>' in table


@ALL_DATABASES
def test_a_missing_candidate_makes_the_file_invalid_naming_target_and_candidate(
        app, client, team_token, ranking_board):
    _team, _user, token = team_token
    subs = gold_scores()
    dropped, _score = subs[FIRST].pop()  # 'briskly'
    body = upload_and_work(app, client, token, doc(subs), ranking_board.slug, "short")
    assert body["status"] == "invalid" and body["result"] is None
    [error] = body["errors"]
    assert error["code"] == "missing_candidates"
    assert error["message"] == f"{FIRST}: no score for 1 of 8 candidates: 'briskly'"
    assert dropped == "briskly"


@ALL_DATABASES
def test_a_non_candidate_makes_the_file_invalid_naming_it(app, client, team_token,
                                                          ranking_board):
    _team, _user, token = team_token
    subs = gold_scores()
    subs[FIRST].append(["speedily", 0.9])
    body = upload_and_work(app, client, token, doc(subs), ranking_board.slug, "extra")
    assert body["status"] == "invalid"
    [error] = body["errors"]
    assert error["code"] == "unknown_candidates"
    assert error["message"] == f"{FIRST}: not candidates of this target (1): 'speedily'"
    # The same file is a fine generative submission: the check is the ranking track's only.
    generative = upload_and_work(app, client, token, doc(subs), "swords-demo-v1-test-generative",
                                 "extra, generative")
    assert generative["status"] == "scored" and generative["track"] == "generative"


def test_the_generative_board_keeps_its_views(app, client, team_token, board):
    _team, _user, token = team_token
    body = upload_and_work(app, client, token, demo_bytes(), board.slug, "strong")
    assert body["status"] == "scored"
    ranking = client.get("/api/v1/leaderboard").get_json()
    assert (ranking["track"], ranking["view"], ranking["headline"]) == ("generative",
                                                                        "strict-a",
                                                                        "strict_a_f@10")
    assert ranking["metrics"] == ["strict_a_f@10", "strict_a_p@10", "strict_a_r@10",
                                  "strict_c_p@1", "gap"]


def hand_gap(ranked: list[float]) -> float:
    """GAP of one target (Thater et al. 2010) from the gold weights in system order:
    sum of the running means at relevant ranks, over the same for the ideal order."""
    def numerator(weights: list[float]) -> float:
        total, cumulative = 0.0, 0.0
        for i, x in enumerate(weights, 1):
            cumulative += x
            total += cumulative / i if x > 0 else 0.0
        return total
    return numerator(ranked) / numerator(sorted(ranked, reverse=True))


def test_hand_gap_of_the_random_file_on_the_demo_split():
    """The Random row's expected numbers, worked out without the scorer."""
    weights: dict[str, dict[str, tuple[int, float]]] = {}
    for sid, sub in SPLIT["substitutes"].items():
        labels = [x for x in SPLIT["substitute_labels"][sid] if x != "UNSURE"]
        votes = sum(x in ("TRUE", "TRUE_IMPLICIT") for x in labels)
        weights.setdefault(sub["target_id"], {})[sub["substitute"]] = (votes, votes / len(labels))
    random_doc = random_ranking_submission(SPLIT, seed=0)["substitutes"]
    for column, expected in ((0, 69.13), (1, 70.74)):  # GAP (votes), GAP ratio (scores)
        per_target = [hand_gap([weights[t][c][column]
                                for c, _ in sorted(items, key=lambda x: -x[1])])
                      for t, items in random_doc.items()]
        assert round(100 * sum(per_target) / len(per_target), 2) == expected


@ALL_DATABASES
def test_board_create_makes_the_seeded_random_row_once(app, runner, client, session, benchmark,
                                                      board):
    args = ["board", "create", "--benchmark", "swords-demo", "--version", "1", "--split",
            "test", "--track", "ranking"]
    for _ in range(2):  # the second run finds the board and the row: nothing new
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output
        assert result.output.splitlines() == [
            "swords-demo-v1-test-ranking: swords-demo 1 test · ranking",
            "  reference Random: GAP 69.13, GAP ratio 70.74"]
    session.expire_all()
    [row] = session.exec(select(ReferenceSystem)).all()
    assert (row.name, row.kind, row.track, row.split_id) == ("Random", "random", "ranking",
                                                                 benchmark.id)
    assert row.intervals["gap"][0] < 69.13 < row.intervals["gap"][1]
    assert set(row.by_pos) == {"NOUN", "VERB", "ADJ", "ADV"}

    def random_row(slug: str) -> dict | None:
        refs = client.get(f"/api/v1/leaderboards/{slug}/ranking").get_json()["references"]
        return next((r for r in refs if r["row_type"] == "random"), None)

    shown = random_row("swords-demo-v1-test-ranking")
    assert shown["name"] == "Random" and shown["metrics"]["gap"]["value"] == 69.13
    assert shown["metrics"]["gap_rat"]["value"] == 70.74
    assert random_row(board.slug) is None  # a ranking-track row only

    # A rescore re-scores it from its stored file, to the same numbers, still ranking-only.
    result = runner.invoke(args=["rescore", "--all", "--force"])
    assert result.exit_code == 0, result.output
    assert "1 reference row(s) re-scored" in result.output
    session.expire_all()
    [again] = session.exec(select(ReferenceSystem)).all()
    assert (again.id, again.track, round(again.metrics["gap"], 2)) == (row.id, "ranking", 69.13)
