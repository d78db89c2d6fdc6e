"""The submission API: upload, idempotency, duplicates, auth, limits, dry run, status."""

from __future__ import annotations

import io

from rq import Queue
from sqlmodel import select

from leaderboard.infra.queue import get_redis
from leaderboard.models import Submission
from leaderboard.services.access.api_tokens import authenticate_token, revoke_token
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes, gzip_bomb, submission_doc, target_ids
from tests.factories import make_team, make_token


def post(client, token, raw=b"", name="my system", headers=None, **fields):
    data = {"name": name, **fields}
    if raw is not None:
        data["file"] = (io.BytesIO(raw), "result.json")
    hdrs = {"Authorization": f"Bearer {token}", **(headers or {})}
    return client.post("/api/v1/submissions", data=data, headers=hdrs,
                       content_type="multipart/form-data")


def run_job(app, submission_id):
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    return jobs.score_submission_job(submission_id)


def test_upload_answers_202_and_enqueues_after_commit(app, client, session, benchmark,
                                                      team_token):
    _team, _user, token = team_token
    response = post(client, token, demo_bytes())
    assert response.status_code == 202
    body = response.get_json()
    assert body["status"] == "queued"
    assert body["status_url"] == f"http://localhost/api/v1/submissions/{body['id']}"
    row = session.get(Submission, body["id"])
    assert row.file_bytes == demo_bytes() and len(row.file_sha256) == 64
    with app.app_context():
        queue = Queue(app.config["LEADERBOARD"]["QUEUE_NAME"], connection=get_redis())
        assert queue.job_ids == [f"score-{queue.name}-{body['id']}-1"]


def test_job_by_direct_call_scores_and_is_idempotent(app, client, session, benchmark,
                                                     team_token):
    _team, _user, token = team_token
    sid = post(client, token, demo_bytes()).get_json()["id"]
    assert run_job(app, sid) == "scored"
    assert run_job(app, sid) == "scored"  # second run: nothing to claim, nothing stored
    from leaderboard.models import Result

    results = session.exec(select(Result).where(Result.submission_id == sid)).all()
    assert len(results) == 1 and results[0].is_current
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["status"] == "scored" and body["attempts"] == 1
    sig = body["result"]["signature"]
    assert sig["split_checksum"] == benchmark.checksum
    assert (sig["seed"], sig["bootstrap"]) == (0, 1000)
    assert set(body["result"]["by_pos"]) <= {"NOUN", "VERB", "ADJ", "ADV"}
    assert body["result"]["intervals"]["strict_a_f@10"][0] <= body["result"]["metrics"][
        "strict_a_f@10"]
    # Percentages with 2 decimals, as on the pages: the stored result keeps full precision.
    shown = [body["result"]["metrics"]["gap"], *body["result"]["intervals"]["gap"],
             body["result"]["by_pos"]["VERB"]["metrics"]["gap"]]
    stored = [results[0].metrics["gap"], *results[0].intervals["gap"],
              results[0].by_pos["VERB"]["metrics"]["gap"]]
    assert shown == [round(v, 2) for v in stored]
    assert any(v != round(v, 2) for v in stored)  # so rounding was needed


def test_same_idempotency_key_twice_gives_one_submission(client, session, benchmark, team_token):
    _team, _user, token = team_token
    first = post(client, token, demo_bytes(), headers={"Idempotency-Key": "run-42"})
    second = post(client, token, demo_bytes(), headers={"Idempotency-Key": "run-42"})
    assert first.status_code == second.status_code == 202
    assert first.get_json() == second.get_json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert len(session.exec(select(Submission)).all()) == 1


def test_same_idempotency_key_with_other_content_is_409(client, benchmark, team_token):
    _team, _user, token = team_token
    post(client, token, demo_bytes(), headers={"Idempotency-Key": "k1"})
    response = post(client, token, demo_bytes("demo_weak"), headers={"Idempotency-Key": "k1"})
    assert response.status_code == 409
    assert response.get_json() == {"error": {
        "status": 409, "code": "idempotency_key_reused",
        "message": "this Idempotency-Key was already used for a different file"}}


def test_identical_bytes_answer_with_the_earlier_submission(client, benchmark, team_token):
    _team, _user, token = team_token
    first = post(client, token, demo_bytes()).get_json()
    second = post(client, token, demo_bytes(), name="double submit")
    assert second.status_code == 202
    body = second.get_json()
    assert body["id"] == first["id"] and body["duplicate"] is True


def test_missing_and_wrong_and_revoked_token_are_401(client, session, benchmark, team_token):
    team, _user, token = team_token
    no_token = client.post("/api/v1/submissions", data={"name": "x"})
    assert no_token.status_code == 401
    assert no_token.get_json()["error"]["code"] == "unauthorized"
    wrong = post(client, "swl_not-a-real-token", demo_bytes())
    assert wrong.status_code == 401
    assert wrong.get_json()["error"]["message"] == (
        "The API token is invalid, revoked, or its team is disabled.")
    row = authenticate_token(session=session, plaintext=token)
    revoke_token(session=session, token=row)
    session.commit()
    assert post(client, token, demo_bytes()).status_code == 401


@ALL_DATABASES
def test_other_teams_submission_is_404_like_a_missing_one(client, session, benchmark,
                                                          team_token):
    """Another team's id and a missing one answer the same 404 on every route of an id, so
    that a token cannot count every team's submissions."""
    _team, _user, token = team_token
    other, _ = make_team(session, name="Lab Two", email="two@example.org")
    other_token = make_token(session, other)
    sid = post(client, other_token, demo_bytes()).get_json()["id"]
    missing_id = sid + 1000
    headers = {"Authorization": f"Bearer {token}"}
    for path in ("/api/v1/submissions/{}", "/api/v1/submissions/{}/targets"):
        theirs = client.get(path.format(sid), headers=headers)
        missing = client.get(path.format(missing_id), headers=headers)
        assert theirs.status_code == missing.status_code == 404
        assert theirs.get_json() == {"error": {"status": 404, "code": "not_found",
                                               "message": f"no submission {sid}"}}
        assert missing.get_json() == {"error": {"status": 404, "code": "not_found",
                                                "message": f"no submission {missing_id}"}}
    listed = client.get("/api/v1/submissions", headers=headers)
    assert listed.get_json() == {"submissions": []}
    # Its own team still sees it.
    assert client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {other_token}"}).status_code == 200


def test_too_large_is_413_without_storing(app_overrides, benchmark, client, session,
                                          team_token):
    _team, _user, token = team_token
    limit = app_overrides.get("MAX_UPLOAD_BYTES") or client.application.config[
        "LEADERBOARD"]["MAX_UPLOAD_BYTES"]
    client.application.config["LEADERBOARD"]["MAX_UPLOAD_BYTES"] = 1000
    response = post(client, token, b" " * 1001)
    client.application.config["LEADERBOARD"]["MAX_UPLOAD_BYTES"] = limit
    assert response.status_code == 413
    assert response.get_json() == {"error": {
        "status": 413, "code": "file_too_large",
        "message": "the file is larger than the limit of 1,000 bytes"}}
    assert session.exec(select(Submission)).all() == []


def test_missing_file_and_missing_name_are_400(client, benchmark, team_token):
    _team, _user, token = team_token
    no_file = post(client, token, None)
    assert no_file.status_code == 400
    assert no_file.get_json()["error"] == {
        "status": 400, "code": "missing_file",
        "message": "send the result file as multipart form field 'file'"}
    no_name = post(client, token, demo_bytes(), name="  ")
    assert no_name.status_code == 400
    assert no_name.get_json()["error"]["code"] == "missing_name"


def test_validate_is_a_free_dry_run(client, session, benchmark, team_token, checks_worker):
    _team, _user, token = team_token
    ids = target_ids()
    raw = submission_doc({ids[0]: [["word", 1.0]], "t:unknown": [["x", 1]],
                          ids[1]: [["bad", float("nan")]]})
    response = client.post("/api/v1/validate", data={"file": (io.BytesIO(raw), "r.json")},
                           headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    report = response.get_json()
    assert report["ok"] is False
    assert {p["code"] for p in report["errors"]} == {"unknown_target", "non_finite_score",
                                                     "too_few_targets"}
    assert report["counts"]["missing"] == len(ids) - 2
    assert session.exec(select(Submission)).all() == []
    good = client.post("/api/v1/validate", data={"file": (io.BytesIO(demo_bytes()), "r.json")},
                       headers={"Authorization": f"Bearer {token}"}).get_json()
    assert good["ok"] is True and good["errors"] == []


def test_gzip_bomb_is_invalid_with_the_reason(app, client, benchmark, team_token):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["MAX_DECOMPRESSED_BYTES"] = 1_000_000
    bomb = gzip_bomb(5_000_000)
    assert len(bomb) < 10_000
    sid = post(client, token, bomb).get_json()["id"]
    assert run_job(app, sid) == "invalid"
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["errors"] == [{"code": "file_too_large", "target_id": None, "position": None,
                               "message": "the file decompresses to more than 1,000,000 bytes"}]
