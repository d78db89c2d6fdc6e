"""Every kind of bad file, uploaded through the API and scored by the job: ``invalid`` with the
full list of problems, nothing crashes, nothing is lost."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from leaderboard.worker import jobs
from tests.demo import demo_bytes, submission_doc, target_ids

IDS = target_ids()
T0, T1, T2 = IDS[0], IDS[1], IDS[2]


def codes_of(raw: bytes, client, app, token) -> tuple[str, list[dict], list]:
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "bad", "file": (io.BytesIO(raw), "bad.json")})
    assert response.status_code == 202, response.get_data(as_text=True)
    sid = response.get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    status = jobs.score_submission_job(sid)
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["status"] == status
    return status, body["errors"], body["warnings"]


CASES = {
    "empty file": (b"", [("not_json", None)]),
    "blank file": (b"  \n", [("not_json", None)]),
    "non-UTF-8": (b'{"substitutes": {"\xff": []}}', [("not_utf8", None)]),
    "malformed JSON": (b'{"substitutes": {', [("not_json", None)]),
    "top level is a list": (b"[]", [("not_object", None)]),
    "no substitutes key": (b'{"substitutes_lemmatized": true}', [("missing_substitutes", None)]),
    "substitutes is a list": (b'{"substitutes": []}', [("wrong_type", None)]),
    "lemmatized flag is a string": (
        json.dumps({"substitutes_lemmatized": "yes", "substitutes": {}}).encode(),
        [("wrong_type", None)]),
    "entry is not a list": (submission_doc({T0: "word"}), [("wrong_type", T0)]),
    "NaN score": (b'{"substitutes": {"%s": [["word", NaN]]}}' % T0.encode(),
                  [("non_finite_score", T0)]),
    "Infinity score": (b'{"substitutes": {"%s": [["word", Infinity]]}}' % T0.encode(),
                       [("non_finite_score", T0)]),
    "string score": (submission_doc({T0: [["word", "0.9"]]}), [("non_numeric_score", T0)]),
    "number as substitute": (submission_doc({T0: [[3, 1.0]]}), [("non_string_substitute", T0)]),
    "bad pair": (submission_doc({T0: [["a", 1, 2]]}), [("wrong_type", T0)]),
    "unknown target id (wrong split)": (
        submission_doc({"t:" + "0" * 40: [["a", 1]], T0: [["b", 1]]}),
        [("unknown_target", "t:" + "0" * 40)]),
    "duplicate target": (
        b'{"substitutes": {"%s": [["a", 1]], "%s": [["b", 1]]}}' % (T0.encode(), T0.encode()),
        [("duplicate_target", T0)]),
    "several problems at once": (
        submission_doc({T0: [["a", "x"]], T1: "nope", "t:zzz": [], T2: [[None, 1]]}),
        [("non_numeric_score", T0), ("wrong_type", T1), ("unknown_target", "t:zzz"),
         ("non_string_substitute", T2)]),
    "truncated gzip": (gzip.compress(demo_bytes())[:40], [("bad_gzip", None)]),
    # Empty members cost a quadratic read without a cap; refused at the member cap.
    "multi-member gzip bomb": (
        gzip.compress(b'{"substitutes": {}}') + gzip.compress(b"") * 400_000,
        [("too_many_gzip_members", None)]),
    "2 MB substitute, gzipped": (
        gzip.compress(b'{"substitutes": {"%s": ["%s"]}}' % (T0.encode(), b"a" * 2_000_000)),
        [("value_too_long", None)]),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_file_is_invalid_with_every_problem(case, app, client, benchmark, team_token):
    _team, _user, token = team_token
    # Each case is about its own problem on one or two targets; the minimum share of answered
    # targets (a problem of its own) has its tests below.
    app.config["LEADERBOARD"]["MIN_ANSWERED_FRACTION"] = 0.0
    raw, expected = CASES[case]
    status, errors, _warnings = codes_of(raw, client, app, token)
    assert status == "invalid"
    assert sorted((e["code"], e["target_id"]) for e in errors) == sorted(expected)
    assert all(e["message"] for e in errors)


def test_missing_targets_are_a_warning_and_still_scored(app, client, benchmark, team_token):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["MIN_ANSWERED_FRACTION"] = 0.0
    status, errors, warnings = codes_of(submission_doc({T0: [["word", 1.0]]}), client, app,
                                        token)
    assert (status, errors) == ("scored", [])
    assert f"{len(IDS) - 1} of {len(IDS)} targets are abstentions ({len(IDS) - 1} without " \
           "an entry, 0 with an empty list); they score 0" in warnings


def test_dry_run_counts_empty_lists_as_abstentions(client, benchmark, team_token,
                                                   checks_worker):
    """98 missing and 11 empty lists are 109 abstentions, not 98."""
    _team, _user, token = team_token
    doc = {t: [["word", 1.0]] for t in IDS[:9]} | {IDS[9]: [], IDS[10]: []}
    response = client.post("/api/v1/validate", headers={"Authorization": f"Bearer {token}"},
                           data={"file": (io.BytesIO(submission_doc(doc)), "r.json")},
                           content_type="multipart/form-data")
    body = response.get_json()
    assert response.status_code == 200 and body["ok"] is True
    assert {k: body["counts"][k] for k in ("answered", "empty_lists", "missing",
                                           "abstentions")} == {
        "answered": 9, "empty_lists": 2, "missing": 2, "abstentions": 4}
    assert [w["message"] for w in body["warnings"] if w["code"] == "missing_targets"] == [
        "4 of 13 targets are abstentions (2 without an entry, 2 with an empty list); they "
        "score 0"]


def test_hidden_split_needs_half_of_its_targets_answered(app, client, benchmark, team_token):
    _team, _user, token = team_token
    assert benchmark.hidden and len(IDS) == 13
    # One candidate on one target: the score would be that candidate's hidden label.
    status, errors, _ = codes_of(submission_doc({T0: [["word", 1.0]]}), client, app, token)
    assert status == "invalid"
    assert [(e["code"], e["message"]) for e in errors] == [(
        "too_few_targets", "1 of 13 targets are answered (a non-empty list); this split's "
        "labels are hidden, so at least 7 (50%) must be answered. Give a ranked list of "
        "substitutes for more targets.")]
    # An empty list is an abstention, not an answer.
    six = {t: [["word", 1.0]] for t in IDS[:6]} | {IDS[6]: []}
    status, errors, _ = codes_of(submission_doc(six), client, app, token)
    assert (status, [e["code"] for e in errors]) == ("invalid", ["too_few_targets"])
    assert errors[0]["message"].startswith("6 of 13 targets are answered")
    seven = {t: [["word", 1.0]] for t in IDS[:7]}
    assert codes_of(submission_doc(seven), client, app, token)[:2] == ("scored", [])


def test_minimum_share_is_a_setting_and_public_splits_have_none(app, client, session,
                                                                 benchmark, team_token):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["MIN_ANSWERED_FRACTION"] = 0.8
    nine = {t: [["word", 1.0]] for t in IDS[:10]}  # 10 of 13 < ceil(0.8 * 13) = 11
    status, errors, _ = codes_of(submission_doc(nine), client, app, token)
    assert [e["code"] for e in errors] == ["too_few_targets"]
    assert "at least 11 (80%)" in errors[0]["message"]
    benchmark.hidden = False  # labels published: nothing left to probe
    session.add(benchmark)
    session.commit()
    one = submission_doc({T1: [["word", 1.0]]})
    assert codes_of(one, client, app, token)[:2] == ("scored", [])


def test_size_limits_are_settings_of_the_job_and_the_dry_run(app, client, benchmark,
                                                             team_token, start_worker):
    _team, _user, token = team_token
    app.config["LEADERBOARD"]["MIN_ANSWERED_FRACTION"] = 0.0
    raw = submission_doc({T0: [["word", 1.0]]})
    app.config["LEADERBOARD"]["MAX_JSON_TOKEN_BYTES"] = 41  # a target id has 42 bytes
    status, errors, _ = codes_of(raw, client, app, token)
    assert (status, [e["code"] for e in errors]) == ("invalid", ["value_too_long"])
    assert errors[0]["message"].startswith("the file has 42 bytes in a row without a double")
    assert "the limit is 41 bytes" in errors[0]["message"]
    app.config["LEADERBOARD"]["MAX_JSON_TOKEN_BYTES"] = 65536
    start_worker(MAX_SUBSTITUTES_BYTES=50)  # dry runs are checked by a worker, by its settings
    response = client.post("/api/v1/validate", data={"file": (io.BytesIO(raw), "r.json")},
                           headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    report = response.get_json()
    assert report["ok"] is False
    assert [p["code"] for p in report["errors"]] == ["substitutes_too_large"]
    assert report["errors"][0]["message"].endswith("bytes; the limit is 50")


def test_gzipped_valid_file_is_scored(app, client, benchmark, team_token):
    _team, _user, token = team_token
    status, errors, _ = codes_of(gzip.compress(demo_bytes()), client, app, token)
    assert (status, errors) == ("scored", [])


def test_zero_byte_multipart_part_is_stored_and_invalid(app, client, benchmark, team_token):
    _team, _user, token = team_token
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "empty", "file": (io.BytesIO(b""), "")})
    assert response.status_code == 202
    sid = response.get_json()["id"]
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "invalid"


def test_body_over_the_request_limit_is_413_json(app, client, benchmark, team_token):
    _team, _user, token = team_token
    app.config["MAX_CONTENT_LENGTH"] = 2000
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "big", "file": (io.BytesIO(b"x" * 5000), "big.json")})
    assert response.status_code == 413
    assert response.get_json()["error"]["status"] == 413


def test_dry_runs_past_the_queue_limit_are_told_to_retry(client, benchmark, team_token,
                                                         settings):
    """Dry runs wait in a bounded queue for a worker: past MAX_QUEUED_CHECKS a new one is
    refused at once as busy (503, Retry-After), and nothing of it is stored."""
    from leaderboard.infra.queue import get_redis
    from leaderboard.services.intake.checks import checks_queue_name

    _team, _user, token = team_token
    settings.update(MAX_QUEUED_CHECKS=1, CHECK_WAIT_SECONDS=0)
    headers = {"Authorization": f"Bearer {token}"}

    def check():
        return client.post("/api/v1/validate",
                           data={"file": (io.BytesIO(demo_bytes()), "r.json")},
                           headers=headers, content_type="multipart/form-data")

    first = check()  # no worker runs: it waits in the queue
    assert first.status_code == 202 and first.headers["Retry-After"] == "2"
    assert first.get_json()["status"] == "checking"
    busy = check()
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert busy.get_json()["error"]["code"] == "busy"
    with client.application.app_context():
        assert get_redis().llen(f"rq:queue:{checks_queue_name(settings['QUEUE_NAME'])}") == 1
