"""A TSAR-2022 board end to end over HTTP: the task's TSV uploaded through the token API and
the web form, scored by a real RQ worker, shown on the ranking page and the API with the
published rows; per-instance diagnostics; the dry run's errors and warnings name the line.

The split is tests/scoring/tsar/files.GOLD (3 instances); the numbers of SYSTEM are worked
out in tests/scoring/tsar/test_hand_worked.py (ACC@1 2/3, MAP@3 25/54, Potential@3 1), printed
as tsar_eval.py prints them: floored, ACC@1 66.66, MAP@3 46.29.
"""

from __future__ import annotations

import gzip
import io
import json

import pytest

from leaderboard.services.catalog.tsar import tsar_board
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.factories import login, make_team
from tests.pipeline.test_ranking_track import upload_and_work
from tests.pipeline.test_web import form_data
from tests.scoring.tsar.files import SYSTEM, write_tsar


@pytest.fixture
def board(session, tmp_path):
    made = tsar_board(session, "en-test", root=write_tsar(tmp_path))
    session.commit()
    return made


@ALL_DATABASES
def test_a_tsv_run_is_scored_ranked_and_shown_beside_the_published_rows(app, client,
                                                                       team_token, board):
    _team, _user, token = team_token
    assert board.slug == "tsar2022-en-test"
    body = upload_and_work(app, client, token, SYSTEM.encode("utf-8"), board.slug, "simple")
    assert body["status"] == "scored", body["errors"]
    m = body["result"]["metrics"]
    assert (m["acc@1"], m["map@3"], m["acc@2@top1"], m["potential@10"]) == (
        66.66, 46.29, 33.33, 100.0)
    api = client.get(f"/api/v1/leaderboards/{board.slug}/ranking").get_json()
    assert api["headline"] == "acc@1"
    assert next(r for r in api["rows"] if r["system"] == "simple")["headline"] == \
        66.66
    html = client.get(f"/?leaderboard={board.slug}").get_data(as_text=True)
    assert ">simple</a>" in html and ">66.66<" in html and "66.67" not in html
    assert 'id="tsar-protocol"' in html
    # the published runs: reported rows, placed by ACC@1 (TeamA above, LSBert below)
    assert "TeamA (run 2)" in html and "80.96" in html and "LSBert-baseline (run 1)" in html
    assert html.index("TeamA (run 2)") < html.index(">simple</a>")
    assert "Part of speech" not in html and "TSAR-2022 data and published results" in html
    for view in ("map", "potential", "top1", "all"):
        page = client.get(f"/?leaderboard={board.slug}&view={view}")
        assert page.status_code == 200
    assert "MAP@10" in page.get_data(as_text=True)
    system = client.get(f"/systems/{body['id']}").get_data(as_text=True)
    assert "MAP@10" in system and "By part of speech" not in system
    inputs = client.get("/benchmarks/tsar2022/1/en-test/inputs.json.gz")
    assert inputs.status_code == 200
    doc = json.loads(gzip.decompress(inputs.data))
    assert doc["instances"][2] == {"id": "The café was crowded.__crowded",
                                   "sentence": "The café was crowded.",
                                   "complex_word": "crowded"}


@ALL_DATABASES
def test_per_instance_diagnostics_and_a_missing_instance(app, client, team_token, board,
                                                         checks_worker):
    _team, _user, token = team_token
    auth = {"Authorization": f"Bearer {token}"}
    two = "".join(SYSTEM.splitlines(keepends=True)[:2]).encode("utf-8")
    body = upload_and_work(app, client, token, gzip.compress(two), board.slug, "partial")
    assert body["status"] == "scored", body["errors"]
    assert body["result"]["metrics"]["acc@1"] == 66.66   # 2 of 3 floored, not 2 of 2
    assert any("1 of 3 instances have no line" in w for w in body["warnings"])
    doc = client.get(f"/api/v1/submissions/{body['id']}/targets", headers=auth).get_json()
    assert doc["targets_scored"] == 3
    by_word = {t["lemma"]: t for t in doc["targets"]}
    assert [(s["substitute"], s["label"], s["votes"]) for s in by_word["sat"]["top"]] == [
        ("perched", "acceptable", 1), ("moved", "not_in_gold", None),
        ("rested", "acceptable", 2)]
    assert by_word["crowded"]["answered"] is False


@ALL_DATABASES
def test_dry_run_names_the_line_of_bad_utf8_and_of_a_misspelt_sentence(
        client, team_token, board, checks_worker):
    _team, _user, token = team_token

    def check(raw: bytes) -> dict:
        response = client.post("/api/v1/validate", headers={
            "Authorization": f"Bearer {token}"}, data={
            "leaderboard": board.slug, "file": (io.BytesIO(raw), "run.tsv")},
            content_type="multipart/form-data")
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    latin1 = SYSTEM.encode("utf-8").replace("café".encode(), "café".encode("latin-1"))
    report = check(latin1)
    assert report["ok"] is False
    assert report["errors"][0]["code"] == "not_utf8" and report["errors"][0]["position"] == 3
    misspelt = SYSTEM.replace("She felt elated today.", "She felt elated today!")
    report = check(misspelt.encode("utf-8"))
    assert report["ok"] is True
    warning = next(w for w in report["warnings"] if w["code"] == "sentence_mismatch")
    assert warning["position"] == 2 and "'She felt elated today.'" in warning["message"]


def test_web_form_takes_a_gzipped_tsv(app, client, session, board, checks_worker):
    _team, user = make_team(session, name="Form Lab", email="form@example.org")
    assert login(client, user.email).status_code == 302
    data = form_data(client, b"", name="form tsv", leaderboard=board.slug)
    data["file"] = (io.BytesIO(gzip.compress(SYSTEM.encode("utf-8"))), "run.tsv.gz")
    response = client.post("/account/submit", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    location = response.headers["Location"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(int(location.rsplit("/", 1)[1])) == "scored"
    page = client.get(location).get_data(as_text=True)
    assert "66.66" in page and "66.67" not in page and "Gold answers missed" in page
    assert "Part of speech" not in page     # no POS on TSAR-2022: no empty POS button


def test_no_ranking_board_and_every_page_of_the_board(client, session, board):
    from leaderboard.services.catalog.benchmarks import get_split
    from leaderboard.services.catalog.boards import BoardError, create_board

    with pytest.raises(BoardError, match="has only the generative track"):
        create_board(session, get_split(session, board.split_id), track="ranking")
    for path in ("/charts", "/compare", "/significance", "/history", "/leaderboard.csv",
                 "/leaderboard.json"):
        response = client.get(f"{path}?leaderboard={board.slug}")
        assert response.status_code == 200, path
    compare = client.get(f"/compare?leaderboard={board.slug}").get_data(as_text=True)
    assert 'name="pos"' not in compare      # no part of speech to compare on
    assert ">By POS</a>" not in compare     # nor a POS matrix in the header
    assert ">By POS</a>" in client.get("/about").get_data(as_text=True)  # a page of no board
    about = client.get("/about").get_data(as_text=True)
    assert 'id="tsar2022"' in about and "CC BY-NC-SA 4.0" in about


def test_the_real_published_rows_are_every_team_and_run():
    from leaderboard.scoring.tsar.data import data_dir
    from leaderboard.services.catalog.tsar import published_rows, results_file

    if not results_file("en").is_file():
        pytest.skip(f"TSAR-2022 results not found under {data_dir()}")
    rows = {lang: published_rows(lang) for lang in ("en", "es", "pt")}
    # one row per CSV line (the header left out): 33, 17 and 16
    assert [len(rows[lang]) for lang in ("en", "es", "pt")] == [33, 17, 16]
    first = rows["en"][0]
    assert first.name == "UniHD (run 2)" and first.metrics["acc@1"] == 80.96
    assert first.metrics["potential@10"] == 99.46 and len(first.metrics) == 10
    assert "LSBert-baseline (run 1)" in {r.name for r in rows["pt"]}
    assert {r.benchmark_split for r in rows["es"]} == {"es-test"}
