"""Several leaderboards on one site: listed by the API, named by uploads, with their own
rankings and quotas."""

from __future__ import annotations

import io
import json

import pytest

from leaderboard.models import Submission
from leaderboard.scoring.families import SWORDS_BIBTEX
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import BoardError, board_by_slug, create_board
from leaderboard.services.catalog.citations import leaderboard_bibtex
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.demo import DEMO_SPLIT, demo_bytes

DEMO = "swords-demo-v1-test-generative"
RANKING = "swords-demo-v1-test-ranking"


def post(client, token, raw, *, leaderboard=None, public=False, path="/api/v1/submissions",
         headers=None):
    data = {"name": "sys", "file": (io.BytesIO(raw), "result.json"),
            "public": "true" if public else "false"}
    if leaderboard is not None:
        data["leaderboard"] = leaderboard
    return client.post(path, data=data,
                       headers={"Authorization": f"Bearer {token}", **(headers or {})},
                       content_type="multipart/form-data")


@pytest.fixture
def ranking_board(session, benchmark):
    board = create_board(session, benchmark, track="ranking")
    session.commit()
    return board


def test_leaderboards_api_lists_every_board_default_first(client, session, benchmark,
                                                          ranking_board):
    body = client.get("/api/v1/leaderboards").get_json()
    # a SWORDS-format split under another name cites SWORDS
    cite = {"benchmark": "swords", "title": "SWORDS", "bibtex": [SWORDS_BIBTEX],
            "leaderboard": leaderboard_bibtex("http://localhost/")}
    assert body == {"leaderboards": [
        {"slug": DEMO, "benchmark": {"name": "swords-demo", "version": "1", "split": "test",
                                    "title": "swords-demo v1"},
         "track": "generative", "phase": "test", "labels": "hidden", "release": "ladder",
         "default": True,
         "title": "swords-demo 1 test · generative", "n_targets": benchmark.n_targets,
         "ranking_url": f"http://localhost/api/v1/leaderboards/{DEMO}/ranking",
         "page_url": "http://localhost/?leaderboard=" + DEMO, "citation": cite},
        {"slug": RANKING, "benchmark": {"name": "swords-demo", "version": "1", "split": "test",
                                    "title": "swords-demo v1"},
         "track": "ranking", "phase": "test", "labels": "hidden", "release": "ladder",
         "default": False,
         "title": "swords-demo 1 test · ranking", "n_targets": benchmark.n_targets,
         "ranking_url": f"http://localhost/api/v1/leaderboards/{RANKING}/ranking",
         "page_url": "http://localhost/?leaderboard=" + RANKING, "citation": cite}]}


def test_unknown_leaderboard_is_404_everywhere(client, benchmark, team_token):
    _team, _user, token = team_token
    response = post(client, token, demo_bytes(), leaderboard="nope")
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "unknown_leaderboard"
    assert post(client, token, demo_bytes(), leaderboard="nope",
                path="/api/v1/validate").status_code == 404
    assert client.get("/api/v1/leaderboards/nope/ranking").status_code == 404
    page = client.get("/?leaderboard=nope")
    assert page.status_code == 404 and b"no leaderboard" in page.data


@ALL_DATABASES
def test_quotas_and_duplicates_are_per_board(client, session, benchmark, ranking_board,
                                             team_token, settings):
    _team, _user, token = team_token
    settings.update(DAILY_SCORED_QUOTA=1)
    first = post(client, token, demo_bytes())
    assert first.status_code == 202 and first.get_json()["leaderboard"] == DEMO
    refused = post(client, token, demo_bytes("demo_weak"))
    assert refused.status_code == 429
    # The same bytes to the other board are a new submission, under that board's quota.
    other = post(client, token, demo_bytes(), leaderboard=RANKING)
    assert other.status_code == 202
    body = other.get_json()
    assert body["leaderboard"] == RANKING and body["id"] != first.get_json()["id"]
    assert "duplicate" not in body
    assert post(client, token, demo_bytes("demo_weak"), leaderboard=RANKING).status_code == 429
    rows = {row.id: row.board_id for row in session.query(Submission).all()}
    assert sorted(rows.values()) == sorted([benchmark.id, ranking_board.id])


@ALL_DATABASES
def test_idempotency_key_replays_only_on_its_own_board(client, session, benchmark,
                                                       ranking_board, team_token):
    """The same key and bytes sent to another board get a 409 naming the board the key was
    used on, not the first board's submission replayed under the second board's name."""
    _team, _user, token = team_token
    key = {"Idempotency-Key": "run-7"}
    first = post(client, token, demo_bytes(), headers=key)
    assert first.status_code == 202 and first.get_json()["leaderboard"] == DEMO
    again = post(client, token, demo_bytes(), headers=key)
    assert again.status_code == 202 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    other = post(client, token, demo_bytes(), leaderboard=RANKING, headers=key)
    assert other.status_code == 409
    assert other.get_json() == {"error": {
        "status": 409, "code": "idempotency_key_reused",
        "message": f"this Idempotency-Key was already used for a submission to leaderboard "
                   f"{DEMO}; send a new key for {RANKING}"}}
    assert "Idempotent-Replayed" not in other.headers
    rows = session.query(Submission).all()
    demo_board = board_by_slug(session, DEMO)
    assert [(row.id, row.board_id) for row in rows] == [(first.get_json()["id"], demo_board.id)]
    # A new key on the other board is a new submission there.
    fresh = post(client, token, demo_bytes(), leaderboard=RANKING,
                 headers={"Idempotency-Key": "run-8"})
    assert fresh.status_code == 202 and fresh.get_json()["leaderboard"] == RANKING
    assert fresh.get_json()["id"] != first.get_json()["id"]


@ALL_DATABASES
def test_rankings_are_separate_per_board(app, client, session, benchmark, ranking_board,
                                         team_token):
    _team, _user, token = team_token
    sid = post(client, token, demo_bytes(), public=True).get_json()["id"]
    # A generative file on the ranking board misses candidates: invalid, never ranked there.
    rid = post(client, token, demo_bytes(), leaderboard=RANKING, public=True).get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "scored"
    assert jobs.score_submission_job(rid) == "invalid"
    generative = client.get(f"/api/v1/leaderboards/{DEMO}/ranking?entries=all").get_json()
    ranking = client.get(f"/api/v1/leaderboards/{RANKING}/ranking?entries=all").get_json()
    assert [row["id"] for row in generative["rows"]] == [sid]
    assert ranking["rows"] == []
    assert client.get("/api/v1/leaderboard?entries=all").get_json() == generative
    errors = session.get(Submission, rid).errors
    assert errors[0]["code"] == "missing_candidates"


def test_dev_board_needs_public_labels(session, benchmark):
    with pytest.raises(BoardError, match="has hidden labels"):
        create_board(session, benchmark, phase="dev")
    public = import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                              version="1", split="dev", hidden=False)
    board = create_board(session, public, track="ranking")
    assert (board.slug, board.phase, board.labels_public) == (
        "swords-demo-v1-dev-ranking", "dev", True)


def test_board_cli_creates_lists_and_sets_default(runner, session, benchmark):
    made = runner.invoke(args=["board", "create", "--benchmark", "swords-demo", "--version", "1",
                               "--split", "test", "--track", "ranking"])
    assert made.exit_code == 0, made.output
    assert made.output.splitlines() == [f"{RANKING}: swords-demo 1 test · ranking",
                                        "  reference Random: GAP 69.13, GAP ratio 70.74"]
    again = runner.invoke(args=["board", "create", "--benchmark", "swords-demo", "--version",
                                "1", "--split", "test", "--track", "ranking"])
    assert again.exit_code == 0 and again.output == made.output  # idempotent
    missing = runner.invoke(args=["board", "create", "--benchmark", "swords", "--version", "9",
                                  "--split", "test"])
    assert missing.exit_code != 0 and "is not imported" in missing.output
    assert runner.invoke(args=["board", "set-default", RANKING]).exit_code == 0
    listed = runner.invoke(args=["board", "list"]).output.splitlines()
    assert listed[0].split("\t") == [RANKING, "swords-demo 1 test · ranking", "hidden labels",
                                     "release ladder", "default"]
    assert listed[1].split("\t")[0] == DEMO


def test_pages_name_and_keep_the_board(client, session, benchmark, ranking_board):
    page = client.get(f"/?leaderboard={RANKING}").get_data(as_text=True)
    # Links to the other pages of the board carry it along.
    assert f'href="/matrix?leaderboard={RANKING}"' in page
    default = client.get("/").get_data(as_text=True)
    assert 'href="/matrix"' in default
    export = client.get(f"/leaderboard.json?leaderboard={RANKING}")
    assert export.status_code == 200 and json.loads(export.data) == []


def test_systems_of_two_boards_are_not_compared(app, client, session, benchmark,
                                                ranking_board, team_token):
    from leaderboard.models import Result
    from leaderboard.services.catalog.boards import import_board
    from leaderboard.services.ranking.ladder import set_release

    # Both of the team's files must be shown: the second, weaker one would be held under the
    # ladder, which tests/pipeline/test_ladder.py covers.
    set_release(session, import_board(session, benchmark), "full")
    session.commit()
    _team, _user, token = team_token
    a = post(client, token, demo_bytes(), public=True).get_json()["id"]
    b = post(client, token, demo_bytes("demo_weak"), public=True).get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(a) == jobs.score_submission_job(b) == "scored"
    assert client.get(f"/api/v1/compare?a={a}&b={b}").status_code == 200
    # Moved onto the ranking board (as if uploaded there), b no longer pairs with a.
    row = session.get(Submission, b)
    row.board_id = ranking_board.id
    session.add(row)
    session.commit()
    assert session.query(Result).count() == 2
    assert import_board(session, benchmark).id != row.board_id
    refused = client.get(f"/api/v1/compare?a={a}&b={b}")
    assert refused.status_code == 409
    assert "different leaderboards" in refused.get_json()["error"]["message"]
    # The page answers as the API does, with the same reason.
    page = client.get(f"/compare?a={a}&b={b}")
    assert page.status_code == 409
    assert ("No paired comparison: the two systems are on different leaderboards."
            in page.get_data(as_text=True))


def test_a_ranking_track_result_shows_only_the_tracks_metrics(app, client, session, benchmark,
                                                              ranking_board, team_token):
    from leaderboard.scoring.swords.ranking_track import candidates_by_target

    _team, _user, token = team_token
    split = json.loads(DEMO_SPLIT.read_bytes())
    doc = {"substitutes_lemmatized": False,
           "substitutes": {tid: [[c, float(-i)] for i, c in enumerate(cands)]
                           for tid, cands in candidates_by_target(split).items()}}
    sid = post(client, token, json.dumps(doc).encode(), leaderboard=RANKING).get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "scored"
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert (body["leaderboard"], body["track"]) == (RANKING, "ranking")
    assert set(body["result"]["metrics"]) == {"gap", "gap_rat", "strict_c_p@1"}
    assert set(body["result"]["intervals"]) == {"gap", "gap_rat", "strict_c_p@1"}
    assert all(set(block["metrics"]) == {"gap", "gap_rat", "strict_c_p@1"}
               for block in body["result"]["by_pos"].values())
    listed = client.get("/api/v1/submissions",
                        headers={"Authorization": f"Bearer {token}"}).get_json()
    assert set(listed["submissions"][0]["metrics"]) == {"gap", "gap_rat", "strict_c_p@1"}
