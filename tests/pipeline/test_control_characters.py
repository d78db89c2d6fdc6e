"""NUL (and every other control character) in a query argument, a form field or a
path segment is a 400 (or a 404 for a path) on both databases, never a 500 from PostgreSQL.

One rule (``leaderboard.web.security.refuse_control_characters``) covers every request, so each
place the adversarial pass found is tested here through real HTTP.
"""

from __future__ import annotations

import io

import pytest
from sqlmodel import select

from leaderboard.models import ApiToken, AuditLog, Submission
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes
from tests.factories import csrf_token_from, login, make_team


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@ALL_DATABASES
def test_nul_in_the_leaderboard_query_of_the_ranking_is_400(client, board):
    response = client.get("/?leaderboard=%00")
    assert response.status_code == 400
    assert "the leaderboard contains a control character (U+0000)" in response.get_data(
        as_text=True)


@ALL_DATABASES
def test_nul_in_the_leaderboard_query_of_the_submit_form_is_400(client, board, team_token):
    _team, user, _token = team_token
    assert login(client, user.email).status_code == 302
    response = client.get("/account/submit?leaderboard=%00")
    assert response.status_code == 400
    assert "the leaderboard contains a control character (U+0000)" in response.get_data(
        as_text=True)


@ALL_DATABASES
@pytest.mark.parametrize("path", ["/api/v1/submissions", "/api/v1/validate"])
def test_nul_in_the_api_leaderboard_field_is_a_json_400(client, session, board, team_token,
                                                        path):
    _team, _user, token = team_token
    response = client.post(path, headers=_auth(token), data={
        "name": "System", "leaderboard": "swords\x00",
        "file": (io.BytesIO(demo_bytes()), "result.json")})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json() == {"error": {
        "status": 400, "code": "bad_characters",
        "message": "the leaderboard contains a control character (U+0000) at position 7; "
                   "remove it and try again"}}
    assert session.exec(select(Submission)).all() == []


@ALL_DATABASES
def test_nul_in_the_web_upload_leaderboard_field_is_400(client, session, board, team_token):
    _team, user, _token = team_token
    assert login(client, user.email).status_code == 302
    csrf = csrf_token_from(client.get("/account/submit").get_data(as_text=True))
    response = client.post("/account/submit", data={
        "csrf_token": csrf, "leaderboard": "\x00", "name": "Web System",
        "file": (io.BytesIO(demo_bytes()), "result.json")})
    assert response.status_code == 400
    assert "the leaderboard contains a control character (U+0000)" in response.get_data(
        as_text=True)
    assert session.exec(select(Submission)).all() == []


@ALL_DATABASES
@pytest.mark.parametrize("path", [
    "/benchmarks/swords%00/1/test/inputs.json.gz",
    "/benchmarks/swords-demo/1%00/test/inputs.json.gz",
    "/systems/1%07",
    "/api/v1/leaderboards/x%00/ranking",
])
def test_control_character_in_a_path_is_404(client, board, path):
    response = client.get(path)
    assert response.status_code == 404
    if path.startswith("/api/"):
        assert response.get_json()["error"]["code"] == "not_found"


@ALL_DATABASES
def test_nul_in_a_token_name_is_400_and_no_token_is_made(client, session, team_token):
    team, user, _token = team_token
    assert login(client, user.email).status_code == 302
    csrf = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    response = client.post("/account/tokens", data={"csrf_token": csrf, "name": "ci\x00"})
    assert response.status_code == 400
    assert "contains a control character (U+0000) at position 3" in response.get_data(
        as_text=True)
    assert len(session.exec(select(ApiToken).where(ApiToken.team_id == team.id)).all()) == 1


@ALL_DATABASES
def test_nul_in_an_admin_reason_is_400_and_nothing_is_audited(client, session):
    target, _ = make_team(session, name="Target Lab", email="target@example.org")
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    assert login(client, "host@example.org").status_code == 302
    csrf = csrf_token_from(client.get("/admin/teams").get_data(as_text=True))
    response = client.post(f"/admin/teams/{target.id}/disable",
                           data={"csrf_token": csrf, "reason": "spam\x00"})
    assert response.status_code == 400
    assert "the reason contains a control character (U+0000)" in response.get_data(as_text=True)
    assert session.exec(select(AuditLog)).all() == []
    session.refresh(target)
    assert not target.disabled


@ALL_DATABASES
def test_other_control_characters_in_a_query_are_400_too(client, board):
    response = client.get("/?metric=gap%1b[31m")
    assert response.status_code == 400
    assert "control character (U+001B)" in response.get_data(as_text=True)
    assert client.get("/api/v1/leaderboard?leaderboard=%0a").status_code == 400


@ALL_DATABASES
def test_ordinary_text_and_multiline_fields_still_pass(client, session, board, team_token):
    _team, _user, token = team_token
    assert client.get("/?leaderboard=" + board.slug).status_code == 200
    response = client.post("/api/v1/submissions", headers=_auth(token), data={
        "name": "Système ñ", "description": "line one\r\n\tline two",
        "file": (io.BytesIO(demo_bytes()), "result.json")})
    assert response.status_code == 202, response.get_data(as_text=True)


def test_every_uploaded_file_name_is_checked_not_only_the_first(client, session, board,
                                                                 team_token):
    _team, _user, token = team_token
    response = client.post("/api/v1/submissions", headers=_auth(token), data={
        "name": "System", "file": [(io.BytesIO(demo_bytes()), "result.json"),
                                   (io.BytesIO(b"{}"), "second\x00.json")]})
    assert response.status_code == 400
    assert response.get_json()["error"]["message"].startswith(
        "the file name contains a control character (U+0000) at position 7")
    assert session.exec(select(Submission)).all() == []
