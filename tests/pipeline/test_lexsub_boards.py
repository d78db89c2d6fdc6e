"""LS07-format boards end to end over HTTP: the field's files uploaded through the token API
and the web form, scored by a real RQ worker, shown on the ranking page and the API.

The split is tests/lexsub_files.GOLD (4 instances). Numbers worked out by hand:

* ranking, RANKED file below: bright.a 1 clever(2) smart(3) -> (2/1 + 5/2) / (3/1 + 5/2)
  = 4.5/5.5; bright.a 2 vivid then shining -> 1; side.n 3 part(1) edge(2) -> (1/1 + 3/2) /
  (2/1 + 3/2) = 2.5/3.5; side.n 4 holds only a multiword and a hyphenated answer: skipped.
  GAP = 100 * (4.5/5.5 + 1 + 2.5/3.5) / 3 = 84.42.
* generative, .best + .oot pair below: best credits 3/5, (2+1)/3/2, 1/3, 2/3 -> P = R =
  52.50; best mode hits smart, vivid, at hand of 4 modes -> 75.00; oot lines on 2 items,
  each taking all the credit -> P 100.00, R 50.00, mode P 100.00, mode R 50.00.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import subprocess

import pytest
from sqlmodel import select

from leaderboard.models import ReportedRow
from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.catalog.reported import add_shipped
from leaderboard.services.ranking.snapshots import refresh_snapshot
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.factories import login, make_team
from tests.lexsub_files import write_coinco, write_semeval07
from tests.pipeline.test_ranking_track import upload_and_work
from tests.pipeline.test_web import form_data
from tests.scoring.conftest import shared_dir

RANKED = (b"RANKED\tbright.a 1\tclever 0.9\tsmart 0.5\tvivid 0.1\tshining 0.1\n"
          b"RANKED\tbright.a 2\tvivid 1\tshining 0.2\tsmart 0\tclever 0\n"
          b"RANKED\tside.n 3\tpart 0.9\tedge 0.1\tat hand 0\tnear-by 0\n"
          b"RANKED\tside.n 4\tedge 1\tpart 1\tat hand 1\tnear-by 1\n")
PAIR = (b"bright.a 1 :: smart\nbright.a 2 :: vivid;shining\nside.n 3 :: part\n"
        b"side.n 4 :: at hand\n"
        b"bright.a 1 ::: smart;clever\nside.n 3 ::: edge;part\n")
GAP = 100 * (4.5 / 5.5 + 1 + 2.5 / 3.5) / 3


@pytest.fixture
def ls07_boards(session, tmp_path):
    """(ranking board, generative board) of a tiny LS07-format 'trial' split."""
    folder = write_semeval07(tmp_path)
    boards = (lexsub_board(session, "semeval07", "trial", "ranking", data_dir=folder),
              lexsub_board(session, "semeval07", "trial", "generative", data_dir=folder))
    session.commit()
    return boards


@ALL_DATABASES
def test_ranked_file_gets_its_gap_on_the_board_api_and_page(app, client, team_token,
                                                           ls07_boards):
    _team, _user, token = team_token
    ranking, _ = ls07_boards
    assert ranking.slug == "semeval07-trial-ranking"
    body = upload_and_work(app, client, token, RANKED, ranking.slug, "ranker")
    assert body["status"] == "scored", body["errors"]
    metrics = body["result"]["metrics"]
    assert metrics["gap"] == round(GAP, 2) == 84.42
    assert body["result"]["counts"]["targets_scored"] == 3
    api = client.get(f"/api/v1/leaderboards/{ranking.slug}/ranking").get_json()
    assert api["headline"] == "gap"
    row = next(r for r in api["rows"] if r["system"] == "ranker")
    assert row["headline"] == pytest.approx(round(GAP, 2), abs=0.01)
    html = client.get(f"/?leaderboard={ranking.slug}").get_data(as_text=True)
    assert ">ranker</a>" in html and "84.4" in html and 'data-key="gap"' in html
    assert "SemEval-2007" in html and 'id="lexsub-protocol"' in html
    assert "Random" in html          # the seeded random reference row
    assert "SemEval-2007 Task 10 data: McCarthy" in html and "SWORDS data" not in html
    csv = client.get(f"/leaderboard.csv?leaderboard={ranking.slug}")
    assert csv.headers["Content-Disposition"] == (
        'attachment; filename="semeval07-trial-ranking-gap-all.csv"')
    assert "ranker" in csv.get_data(as_text=True)


@ALL_DATABASES
def test_best_and_oot_pair_gets_score_pl_numbers(app, client, team_token, ls07_boards,
                                                 tmp_path):
    _team, _user, token = team_token
    _, generative = ls07_boards
    body = upload_and_work(app, client, token, PAIR, generative.slug, "generator")
    assert body["status"] == "scored", body["errors"]
    m = body["result"]["metrics"]
    got = {k: round(m[k], 2) for k in ("best_p", "best_r", "best_mode_p", "best_mode_r",
                                        "oot_p", "oot_r", "oot_mode_p", "oot_mode_r")}
    assert got == {"best_p": 52.5, "best_r": 52.5, "best_mode_p": 75.0, "best_mode_r": 75.0,
                   "oot_p": 100.0, "oot_r": 50.0, "oot_mode_p": 100.0, "oot_mode_r": 50.0}
    score_pl = shared_dir() / "data" / "lexsub" / "score.pl"
    if score_pl.is_file() and shutil.which("perl"):     # the same numbers from score.pl
        (tmp_path / "answers").write_bytes(PAIR)
        out = subprocess.run(["perl", str(score_pl), str(tmp_path / "answers"),
                              str(tmp_path / "lst_trial.gold"), "-t", "best"],
                             capture_output=True, text=True, check=True).stdout
        assert "precision = 52.50, recall = 52.50" in out
        assert "Mode precision = 75.00, Mode recall = 75.00" in out
    html = client.get(f"/?leaderboard={generative.slug}").get_data(as_text=True)
    assert ">generator</a>" in html and "52.5" in html


@ALL_DATABASES
def test_dry_run_names_the_bad_line_and_a_best_file_on_a_ranking_board(
        app, client, team_token, ls07_boards, checks_worker):
    _team, _user, token = team_token
    ranking, generative = ls07_boards
    auth = {"Authorization": f"Bearer {token}"}

    def check(raw: bytes, slug: str) -> dict:
        response = client.post("/api/v1/validate", headers=auth, data={
            "leaderboard": slug, "file": (io.BytesIO(raw), "run.txt")},
            content_type="multipart/form-data")
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    # score.pl skips a line of neither kind with "Error in file on line 3", lst_gap.py a
    # score its float refuses with "Error appending": each is a warning naming its line
    report = check(PAIR.replace(b"side.n 3 :: part", b"side.n 3 - part"), generative.slug)
    assert report["ok"] is True and report["errors"] == []
    [skipped] = [w for w in report["warnings"] if w["code"] == "unreadable_line"]
    assert skipped["position"] == 3 and "line 3" in skipped["message"]
    report = check(b"RANKED\tbright.a 1\tsmart high\tclever 1\n", ranking.slug)
    assert report["ok"] is True
    assert [(w["code"], w["position"], w["target_id"]) for w in report["warnings"]
            if w["code"] == "bad_score"] == [("bad_score", 1, "bright.a 1")]
    report = check(b"finished initializing\nbright.a 1 - smart\n", generative.slug)
    assert [(e["code"], e["position"]) for e in report["errors"]] == [("no_answer_lines", 1)]
    report = check(PAIR, ranking.slug)
    assert [e["code"] for e in report["errors"]] == ["ranking_needs_scores"]
    report = check(RANKED, ranking.slug)
    assert report["ok"] is True and report["errors"] == []


def test_web_form_takes_a_gzipped_pair(app, client, session, ls07_boards, checks_worker):
    _, generative = ls07_boards
    _team, user = make_team(session, name="Form Lab", email="form@example.org")
    assert login(client, user.email).status_code == 302
    data = form_data(client, b"", name="form pair", leaderboard=generative.slug)
    data["file"] = (io.BytesIO(gzip.compress(PAIR)), "run.best-oot.gz")
    response = client.post("/account/submit", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    location = response.headers["Location"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(int(location.rsplit("/", 1)[1])) == "scored"
    page = client.get(location).get_data(as_text=True)
    assert "52.50" in page or "52.5" in page
    assert "best_p" in page or "best P" in page
    # labels published: the owner sees per-instance diagnostics, LS07-worded
    assert "Per-target diagnostics" in page and "Gold answers missed" in page
    assert 'data-target="side.n 4"' in page and "GAP ratio" not in page


@ALL_DATABASES
def test_per_instance_diagnostics_on_published_labels(app, client, session, team_token,
                                                      ls07_boards, checks_worker):
    _team, _user, token = team_token
    ranking, generative = ls07_boards
    auth = {"Authorization": f"Bearer {token}"}
    body = upload_and_work(app, client, token, RANKED, ranking.slug, "ranker")
    assert body["targets_url"].endswith(f"/api/v1/submissions/{body['id']}/targets")
    doc = client.get(f"/api/v1/submissions/{body['id']}/targets?sort=gap&dir=asc",
                     headers=auth).get_json()
    assert doc["targets_scored"] == 4
    by_id = {t["target_id"]: t for t in doc["targets"]}
    assert by_id["bright.a 1"]["gap"] == round(100 * 4.5 / 5.5, 2)
    assert by_id["side.n 4"]["gap"] is None               # skipped by lst_gap.py
    assert [t["target_id"] for t in doc["targets"]][:2] == ["side.n 3", "bright.a 1"]
    top = by_id["bright.a 1"]["top"]
    assert [(s["substitute"], s["label"], s["votes"]) for s in top] == [
        ("clever", "acceptable", 2), ("smart", "acceptable", 3), ("vivid", "not_in_gold", None),
        ("shining", "not_in_gold", None)]
    assert by_id["bright.a 1"]["top"][0]["score"] == 0.4     # 2 of 5 answers
    # a .best/.oot pair: the .oot line where given, else the .best line
    body = upload_and_work(app, client, token, PAIR, generative.slug, "generator")
    doc = client.get(f"/api/v1/submissions/{body['id']}/targets", headers=auth).get_json()
    by_id = {t["target_id"]: t for t in doc["targets"]}
    assert [s["substitute"] for s in by_id["side.n 3"]["top"]] == ["edge", "part"]
    assert [s["substitute"] for s in by_id["bright.a 2"]["top"]] == ["vivid", "shining"]
    assert [m["substitute"] for m in by_id["side.n 4"]["missed"]] == ["near-by"]


def test_wada_et_al_ls07_gap_is_a_reported_row_on_the_ls07_all_ranking_board(
        app, client, session, tmp_path):
    folder = write_semeval07(tmp_path, splits=("all",))
    board = lexsub_board(session, "semeval07", "all", "ranking", data_dir=folder)
    added = add_shipped(session)
    assert [a.origin for a in added if a.board.id == board.id] == [
        "arefyev-coling2020-lexsubgen.json", "wada-coling2022-ls07.json"]
    refresh_snapshot(session=session, board_id=board.id)
    session.commit()
    html = client.get(f"/?leaderboard={board.slug}").get_data(as_text=True)
    assert "Wada et al. (DeBERTa-V3" in html and "64.97" in html
    assert "reported" in html


def test_shipped_lexsub_papers_land_on_the_board_of_their_protocol(client, session, tmp_path):
    """GAP rows go to the ranking boards of the whole corpora, best/oot rows to the test
    generative boards, and each board gets only its own benchmark's rows."""
    folder = write_coinco(write_semeval07(tmp_path, splits=("all", "test")))
    boards = {(name, split): lexsub_board(session, name, split, track, data_dir=folder)
              for name, split, track in (("semeval07", "all", "ranking"),
                                         ("semeval07", "test", "generative"),
                                         ("coinco", "all", "ranking"),
                                         ("coinco", "test", "generative"))}
    add_shipped(session)
    session.commit()

    def rows(key):
        found = session.exec(select(ReportedRow).where(
            ReportedRow.board_id == boards[key].id)).all()
        return {(r.origin, r.name): r.metrics for r in found}

    lexsubgen, cilex = "arefyev-coling2020-lexsubgen.json", "seneviratne-coling2022-cilex.json"
    ls07_gap, coinco_gap = rows(("semeval07", "all")), rows(("coinco", "all"))
    assert ls07_gap[lexsubgen, "XLNet+embs (Arefyev et al., LexSubGen)"] == {"gap": 59.62}
    assert coinco_gap[lexsubgen, "XLNet+embs (Arefyev et al., LexSubGen)"] == {"gap": 55.63}
    assert {o for o, _ in ls07_gap} == {lexsubgen, "wada-coling2022-ls07.json"}
    assert {o for o, _ in coinco_gap} == {lexsubgen} and len(coinco_gap) == 11
    ls07_gen, coinco_gen = rows(("semeval07", "test")), rows(("coinco", "test"))
    assert ls07_gen[cilex, "CILex3 (Seneviratne et al.)"] == {
        "best_r": 23.31, "best_mode_r": 40.98, "oot_r": 56.32, "oot_mode_r": 74.88}
    assert coinco_gen[cilex, "CILex3 (Seneviratne et al.)"]["best_r"] == 16.39
    assert {o for o, _ in ls07_gen} == {cilex, "mccarthy-navigli-2009-ls07.json"}
    assert {o for o, _ in coinco_gen} == {cilex} and len(coinco_gen) == 6
    refresh_snapshot(session=session, board_id=boards["coinco", "test"].id)
    session.commit()
    page = client.get("/?leaderboard=coinco-test-generative&view=oot").get_data(as_text=True)
    assert "LexSubCon (Michalopoulos et al. 2022)" in page and "38.00" in page


def test_check_file_on_a_generative_board_prints_its_counts(client, session, ls07_boards,
                                                            checks_worker):
    """On LS07/CoInCo boards the check's report prints every count of its sentence ("of
    15415 targets answered, 1 missing, 0 unknown, ... substitutes"), none left empty."""
    import re

    _, generative = ls07_boards
    _team, user = make_team(session, name="Count Lab", email="count@example.org")
    assert login(client, user.email).status_code == 302
    data = form_data(client, PAIR + b"bright.a 9 :: \n", name="", leaderboard=generative.slug)
    page = client.post("/account/submit/check", data=data).get_data(as_text=True)
    counts = re.search(r"(\d+) of (\d+) instances answered,\s+(\d+) missing,", page)
    assert counts is not None, page[page.find("check-result"):][:800]
    assert int(counts.group(2)) > 0 and " unknown." in page


def test_the_ranking_api_honours_the_leaderboard_parameter(client, ls07_boards):
    _, generative = ls07_boards  # not the default board (the ranking one is)
    chosen = client.get(f"/api/v1/leaderboard?leaderboard={generative.slug}")
    direct = client.get(f"/api/v1/leaderboards/{generative.slug}/ranking")
    assert chosen.status_code == direct.status_code == 200
    assert chosen.get_json() == direct.get_json()
    assert client.get("/api/v1/leaderboard").get_json() != chosen.get_json()
    missing = client.get("/api/v1/leaderboard?leaderboard=no-such-board")
    assert missing.status_code == 404
    assert missing.get_json()["error"]["code"] == "unknown_leaderboard"


def test_the_significance_pages_json_link_keeps_the_board(app, client, team_token,
                                                          ls07_boards):
    _, generative = ls07_boards
    _team, _user, token = team_token
    assert upload_and_work(app, client, token, PAIR, generative.slug, "pair")["status"] == \
        "scored"
    page = client.get(f"/significance?leaderboard={generative.slug}").get_data(as_text=True)
    assert f"leaderboard={generative.slug}\">/api/v1/significance</a>" in page


def test_ls07_pages_speak_of_ls07_and_public_labels(client, session, ls07_boards):
    """LS07 pages name LS07 in their h1, not SWORDS, and a public-label board's title does
    not end in "test phase", which reads as a hidden test."""
    from leaderboard.models import Split
    from leaderboard.services.catalog.boards import board_title

    _, generative = ls07_boards
    page = client.get(f"/?leaderboard={generative.slug}").get_data(as_text=True)
    h1 = page.split("<h1>")[1].split("</h1>")[0]
    assert h1.startswith("SemEval-2007") and "SWORDS" not in h1
    title = board_title(generative, session.get(Split, generative.split_id))
    assert title.endswith("· generative · public labels") and "phase" not in title


def test_an_ls07_system_page_shows_its_ranking_metrics_as_cards_with_two_decimals(
        app, client, team_token, ls07_boards):
    """The cards on top are the metrics the board ranks on (the table below has all 22),
    printed with two decimals as the ranking prints them; the per-POS chart draws those
    four, not 22 bars a pixel wide on a phone."""
    _team, _user, token = team_token
    _, generative = ls07_boards
    body = upload_and_work(app, client, token, PAIR, generative.slug, "generator")
    page = client.get(f"/systems/{body['id']}").get_data(as_text=True)
    cards = re.findall(r'<div class="card"><div class="label">(.*?)</div>'
                       r'<div class="big">([^<]*)</div>', page)
    assert cards == [("best R", "52.50"), ("oot R", "50.00"), ("best mode R", "75.00"),
                     ("coverage F", "50.00")]
    figure = json.loads(re.search(r'id="pos-figure">(.*?)</script>', page).group(1))
    assert figure["data"][0]["x"] == ["best R", "oot R", "best mode R", "coverage F"]
    assert figure["data"][0]["y"] == [52.5, 50.0, 75.0, 50.0]
