"""Dev phase: per-target diagnostics over HTTP, scored by a real worker, on both databases.

The numbers are worked out by hand in tests/dev_split.py. A test-phase (hidden labels)
submission gets 404 on the same routes, and a walk over every GET route shows per-target
data only on the owning team's page and API route of a dev submission.
"""

from __future__ import annotations

import io
import json
import re

import pytest

from leaderboard.models import SubmissionStatus
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes, target_ids
from tests.dev_split import TID, dev_split_bytes, dev_submission_bytes
from tests.factories import login, make_team, make_token
from tests.jobs import wait_for_status

ORDER = {v: k for k, v in TID.items()}


@pytest.fixture
def app_overrides(app_overrides):
    # The route walk sends a few hundred requests; API rate limits are tested elsewhere.
    return {**app_overrides, "RATELIMIT_ENABLED": False}


@pytest.fixture
def dev_board(app, session, benchmark):
    """The tiny split imported with public labels: its generative board is a dev board."""
    bench = import_benchmark(session=session, raw=dev_split_bytes(), name="tiny", version="1",
                             split="dev", hidden=False, bootstrap=0)
    board = import_board(session, bench)
    assert (board.phase, board.labels_public, board.is_default) == ("dev", True, False)
    return board


def upload(client, token, raw, **fields):
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "sys", "public": "true", **fields,
                                 "file": (io.BytesIO(raw), "r.json")})
    assert response.status_code == 202, response.get_data(as_text=True)
    return response.get_json()["id"]


@pytest.fixture
def scored(app, client, session, benchmark, dev_board, team_token, start_worker):
    """(token, dev submission id, test submission id), both scored by a real worker."""
    _team, _user, token = team_token
    start_worker()
    dev_id = upload(client, token, dev_submission_bytes(), leaderboard=dev_board.slug)
    test_id = upload(client, token, demo_bytes())
    for sid in (dev_id, test_id):
        assert wait_for_status(session, sid, (SubmissionStatus.SCORED,)).status == "scored"
    return token, dev_id, test_id


def targets(client, token, sid, query=""):
    return client.get(f"/api/v1/submissions/{sid}/targets{query}",
                      headers={"Authorization": f"Bearer {token}"})


def order(body):
    return [ORDER[t["target_id"]] for t in body["targets"]]


@ALL_DATABASES
def test_dev_diagnostics_match_hand_worked_values(app, client, session, scored, dev_board):
    token, dev_id, _test_id = scored
    status = client.get(f"/api/v1/submissions/{dev_id}",
                        headers={"Authorization": f"Bearer {token}"}).get_json()
    assert status["targets_url"] == f"http://localhost/api/v1/submissions/{dev_id}/targets"
    result = status["result"]
    # pooled over the three targets (tests/dev_split.py): F = 1/4, mean GAP 0.263389
    assert (result["metrics"]["strict_a_f@10"], result["metrics"]["gap"]) == (25.0, 26.34)

    response = targets(client, token, dev_id)
    assert response.status_code == 200
    body = response.get_json()
    assert {k: body[k] for k in ("submission_id", "leaderboard", "track", "sort", "dir", "pos",
                                 "targets_scored", "targets_matching", "pos_values")} == {
        "submission_id": dev_id, "leaderboard": dev_board.slug, "track": "generative",
        "sort": "f", "dir": "asc", "pos": None, "targets_scored": 3, "targets_matching": 3,
        "pos_values": ["NOUN", "ADJ"]}
    # worst first by F^10: big 0, car 1/3, summit 4/7
    assert order(body) == ["big", "car", "summit"]
    big, car, summit = body["targets"]

    assert [(s["rank"], s["substitute"], s["label"], s["score"], s["votes"])
            for s in car["top"]] == [
        (1, "vehicle", "conceivable", 0.5, 5), (2, "automobile", "acceptable", 0.8, 8),
        (3, "boat", "not_in_gold", None, None), (4, "train", "not_conceivable", 0.0, 0)]
    assert car["missed"] == [{"substitute": "auto", "score": 0.6, "votes": 6, "rank": None}]
    assert (car["lemma"], car["pos"], car["hits"], car["n_top"], car["gold_a_k"]) == (
        "car", "NOUN", 1, 4, 2)
    # P = 1/4, R = 1/2, F = 1/3; GAP = 34.5/79 (ratio the same: 10 labels per candidate)
    assert (car["precision"], car["recall"], car["f"], car["gap"], car["gap_rat"]) == (
        25.0, 50.0, 33.33, 43.67, 43.67)

    assert [s["label"] for s in big["top"]] == ["not_in_gold"] * 10
    assert [s["substitute"] for s in big["top"]][:3] == ["red", "blue", "green"]
    assert big["missed"] == [{"substitute": "large", "score": 0.9, "votes": 9, "rank": 11}]
    # nothing acceptable in the top 10: F = 0; GAP = (9/11) / 15.5 = 18/341
    assert (big["f"], big["f_defined"], big["gap"], big["gap_rat"]) == (0.0, True, 5.28, 5.28)

    assert [(s["substitute"], s["label"], s["score"]) for s in summit["top"]] == [
        ("rock", "not_in_gold", None), ("stone", "not_in_gold", None),
        ("hill", "conceivable", 0.2), ("peak", "acceptable", 1.0), ("top", "acceptable", 0.7)]
    assert summit["missed"] == []
    # P = 2/5, R = 1, F = 4/7; GAP = 224/745
    assert (summit["precision"], summit["recall"], summit["f"], summit["gap"]) == (
        40.0, 100.0, 57.14, 30.07)

    # worst first by GAP: big 5.28, summit 30.07, car 43.67; best first is the reverse
    assert order(targets(client, token, dev_id, "?sort=gap").get_json()) == [
        "big", "summit", "car"]
    assert order(targets(client, token, dev_id, "?sort=gap&dir=desc").get_json()) == [
        "car", "summit", "big"]
    nouns = targets(client, token, dev_id, "?sort=gap_rat&pos=NOUN&limit=1").get_json()
    assert (order(nouns), nouns["targets_matching"]) == (["summit"], 2)
    bad = targets(client, token, dev_id, "?sort=recall")
    assert bad.status_code == 400
    assert bad.get_json() == {"error": {
        "status": 400, "code": "bad_query",
        "message": "sort must be one of f, gap, gap_rat, not 'recall'"}}

    # the team's page shows the same, sorted server-side by its header links
    team_user_email = "one@example.org"
    assert login(client, team_user_email).status_code == 302
    page = client.get(f"/account/submissions/{dev_id}?sort=gap").get_data(as_text=True)
    rows = re.findall(r'<tr data-target="(t:[0-9a-f]{40})">', page)
    assert [ORDER[t] for t in rows] == ["big", "summit", "car"]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "Per-target diagnostics" in text
    assert "Worst targets first by GAP: 3 of 3 targets." in text
    assert "vehicle 0.50 · conceivable" in text and "automobile 0.80 · acceptable" in text
    assert "boat not in gold" in text and "train 0.00 · not conceivable" in text
    assert "auto 0.60 · not listed" in text and "large 0.90 · your rank 11" in text
    car_row = page.split(f'<tr data-target="{TID["car"]}">')[1].split("</tr>")[0]
    assert re.findall(r'data-metric="(\w+)"[^>]*>([\d.]+)<', car_row) == [
        ("f", "33.33"), ("gap", "43.67"), ("gap_rat", "43.67")]
    # the active GAP header links to the other direction; the others start worst first
    assert 'aria-sort="ascending"' in page
    assert (f"/account/submissions/{dev_id}?sort=gap&amp;dir=desc&amp;pos=ALL&amp;limit=50"
            "#targets") in page
    assert f"/account/submissions/{dev_id}?sort=f&amp;dir=asc&amp;pos=ALL&amp;limit=50" in page
    adj = client.get(f"/account/submissions/{dev_id}?pos=ADJ").get_data(as_text=True)
    assert [ORDER[t] for t in re.findall(r'<tr data-target="(t:[0-9a-f]{40})">', adj)] == [
        "big"]
    assert client.get(f"/account/submissions/{dev_id}?dir=up").status_code == 400


@ALL_DATABASES
def test_hidden_labels_and_other_teams_get_404(app, client, session, scored):
    token, dev_id, test_id = scored
    assert "targets_url" not in client.get(f"/api/v1/submissions/{test_id}", headers={
        "Authorization": f"Bearer {token}"}).get_json()
    response = targets(client, token, test_id)
    assert response.status_code == 404
    assert response.get_json() == {"error": {
        "status": 404, "code": "not_found",
        "message": "per-target diagnostics exist only for submissions to a dev-phase "
                   "leaderboard, whose labels are public"}}
    other, _ = make_team(session, name="Lab Two", email="two@example.org")
    other_token = make_token(session, other)
    for sid in (dev_id, test_id):
        response = targets(client, other_token, sid)
        assert response.status_code == 404
        assert response.get_json() == {"error": {"status": 404, "code": "not_found",
                                                 "message": f"no submission {sid}"}}
    assert targets(client, "swl_wrong", dev_id).status_code == 401
    # the test-phase page has its results but no per-target section
    assert login(client, "one@example.org").status_code == 302
    page = client.get(f"/account/submissions/{test_id}?sort=gap").get_data(as_text=True)
    assert "Results" in page and "Per-target diagnostics" not in page
    other_web = app.test_client()
    assert login(other_web, "two@example.org").status_code == 302
    assert other_web.get(f"/account/submissions/{dev_id}").status_code == 404


MARKERS = ("not_in_gold", "not in gold", "Per-target", "gold_a_k", "missed")


def _walk(app, client, token, sid, team_id, board_slug, bench) -> dict[str, int]:
    """GET every route (ids filled with ``sid``), bare and with ?leaderboard=; url -> status."""
    fill = {"team_id": team_id, "slug": board_slug, "name": bench.name,
            "version": bench.version, "split": bench.split, "filename": "css/site.css"}
    seen = {}
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods:
            continue
        needed = rule.arguments - set(rule.defaults or {})
        values = {a: fill.get(a, sid if "id" in a else "x") for a in needed}
        with app.test_request_context():
            from flask import url_for

            url = url_for(rule.endpoint, **values)
        for query in ("", f"?leaderboard={board_slug}"):
            response = client.get(url + query, headers={"Authorization": f"Bearer {token}"}
                                  if token else {})
            seen[url + query] = (response.status_code,
                                 response.get_data().decode("utf-8", "replace"))
    return seen


def _per_target(seen: dict, tids: list[str]) -> list[str]:
    """URLs whose body holds a target id of the split together with a diagnostics word."""
    return sorted(url for url, (_status, body) in seen.items()
                  if any(t in body for t in tids) and any(m in body for m in MARKERS))


@ALL_DATABASES
def test_no_route_gives_per_target_data_for_hidden_labels(app, client, session, scored,
                                                         benchmark, dev_board, team_token):
    token, dev_id, test_id = scored
    team, _user, _ = team_token
    anonymous = app.test_client()
    assert login(client, "one@example.org").status_code == 302
    for who, web, tok in (("owner", client, token), ("anonymous", anonymous, None)):
        seen = _walk(app, web, tok, test_id, team.id, "swords-demo-v1-test-generative",
                     benchmark)
        assert len(seen) > 60
        assert _per_target(seen, target_ids()) == [], who
        assert seen[f"/api/v1/submissions/{test_id}/targets"][0] == (404 if tok else 401)
    # The same walk finds the diagnostics of a dev submission (so the markers work), and
    # only on the team's own page and API route: public pages never show them.
    from leaderboard.models import Split

    dev_bench = session.get(Split, dev_board.split_id)
    seen = _walk(app, client, token, dev_id, team.id, dev_board.slug, dev_bench)
    assert seen[f"/systems/{dev_id}"][0] == 200
    assert _per_target(seen, list(TID.values())) == [
        f"/account/submissions/{dev_id}", f"/account/submissions/{dev_id}?leaderboard="
        f"{dev_board.slug}", f"/api/v1/submissions/{dev_id}/targets",
        f"/api/v1/submissions/{dev_id}/targets?leaderboard={dev_board.slug}"]
    seen = _walk(app, anonymous, None, dev_id, team.id, dev_board.slug, dev_bench)
    assert _per_target(seen, list(TID.values())) == []


@ALL_DATABASES
def test_ranking_track_dev_board_shows_the_ranked_candidates(app, client, session, benchmark,
                                                            dev_board, team_token,
                                                            start_worker):
    from leaderboard.models import Split
    from leaderboard.services.catalog.boards import create_board

    ranking = create_board(session, session.get(Split, dev_board.split_id),
                           track="ranking")
    session.commit()
    _team, _user, token = team_token
    start_worker()
    # Every candidate of car, in reverse gold order; big and summit abstain.
    raw = json.dumps({"substitutes_lemmatized": False, "substitutes": {TID["car"]: [
        ["train", 5], ["truck", 4], ["vehicle", 3], ["auto", 2], ["automobile", 1]]}}).encode()
    sid = upload(client, token, raw, leaderboard=ranking.slug)
    assert wait_for_status(session, sid, (SubmissionStatus.SCORED,)).status == "scored"
    body = targets(client, token, sid, "?pos=NOUN&sort=gap&dir=desc").get_json()
    assert (body["leaderboard"], body["track"]) == (ranking.slug, "ranking")
    car, summit = body["targets"]
    assert [(s["substitute"], s["label"], s["votes"]) for s in car["top"]] == [
        ("train", "not_conceivable", 0), ("truck", "conceivable", 1),
        ("vehicle", "conceivable", 5), ("auto", "acceptable", 6),
        ("automobile", "acceptable", 8)]
    # every acceptable candidate is in the top 10: nothing missed; P = 2/5, R = 1, F = 4/7.
    # GAP: votes 0, 1, 5, 6, 8 -> (1/2 + 6/3 + 12/4 + 20/5) / (79/3) = 28.5/79 = 0.360759
    assert (car["missed"], car["f"], car["gap"]) == ([], 57.14, 36.08)
    assert (summit["answered"], summit["top"], summit["gap"]) == (False, [], 0.0)
    assert [m["substitute"] for m in summit["missed"]] == ["peak", "top"]
