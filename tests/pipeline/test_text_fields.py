"""Text fields: NUL and other control characters are a 400 naming the field on both databases
(PostgreSQL used to answer 500), and invisible formatting characters are refused in names.
Every path: the API, the web form, sign-up and ``leaderboard team create``."""

from __future__ import annotations

import io

import pytest
from sqlmodel import select

from leaderboard.models import Submission, System, Team
from leaderboard.services.text_fields import text_problem
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes
from tests.factories import csrf_token_from, login

RLO = "Lab\u202ekcaH"


def upload(client, token, **fields):
    data = {"name": "System", "file": (io.BytesIO(demo_bytes()), "result.json"), **fields}
    return client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                       data=data)


@ALL_DATABASES
@pytest.mark.parametrize("field, value, label", [
    ("name", "Sys\x00tem", "system name"),
    ("description", "about\x00it", "description"),
    ("paper_url", "https://x.example/\x00", "paper URL"),
    ("name", "Sys\x07", "system name"),
    ("name", RLO, "system name"),
    ("name", "Zero\u200bWidth", "system name"),
    ("name", "Bom\ufeff", "system name"),
])
def test_api_refuses_bad_characters_naming_the_field(client, session, benchmark, team_token,
                                                    field, value, label):
    _team, _user, token = team_token
    response = upload(client, token, **{field: value})
    assert response.status_code == 400, response.get_data(as_text=True)
    body = response.get_json()
    assert body["error"]["code"] == "bad_characters"
    assert body["error"]["message"].startswith(f"the {label} contains ")
    assert session.exec(select(Submission)).all() == []


@ALL_DATABASES
def test_nul_in_the_file_name_is_a_400(client, session, benchmark, team_token):
    _team, _user, token = team_token
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "S", "file": (io.BytesIO(demo_bytes()), "a\x00.json")})
    assert response.status_code == 400
    assert response.get_json()["error"]["message"].startswith("the file name contains a "
                                                              "control character (U+0000)")


@ALL_DATABASES
def test_description_keeps_tabs_and_newlines(client, session, benchmark, team_token):
    _team, _user, token = team_token
    response = upload(client, token, description="line one\r\n\tline two\n")
    assert response.status_code == 202
    assert session.exec(select(System)).one().description == "line one\r\n\tline two"


@ALL_DATABASES
def test_web_form_refuses_nul_with_a_400_naming_the_field(client, session, benchmark,
                                                          team_token):
    _team, user, _token = team_token
    assert login(client, user.email).status_code == 302
    csrf = csrf_token_from(client.get("/account/submit").get_data(as_text=True))
    response = client.post("/account/submit", data={
        "csrf_token": csrf, "file": (io.BytesIO(demo_bytes()), "result.json"),
        "name": "Web\x00System", "description": "", "paper_url": "", "code_url": ""})
    assert response.status_code == 400
    assert "the system name contains a control character (U+0000)" in response.get_data(
        as_text=True)
    assert session.exec(select(Submission)).all() == []


@ALL_DATABASES
@pytest.mark.parametrize("team_name, email, shown", [
    # Control characters: refused for every request before the form is read (the 400 page
    # names the field); invisible characters: by the sign-up form, next to the field.
    ("Nul\x00Lab", "nul@example.org", "the team name contains a control character (U+0000)"),
    (RLO, "rlo@example.org", "The team name contains an invisible formatting character "
     "(U+202E)"),
    ("Fine Lab", "a\x00b@example.org", "the e-mail address contains a control character"),
])
def test_signup_refuses_bad_characters(client, session, team_name, email, shown):
    token = csrf_token_from(client.get("/account/signup").get_data(as_text=True))
    response = client.post("/account/signup", data={
        "csrf_token": token, "team_name": team_name, "email": email,
        "password": "correct horse battery", "confirm": "correct horse battery"})
    assert response.status_code == 400
    assert shown in response.get_data(as_text=True)
    assert session.exec(select(Team)).all() == []


@ALL_DATABASES
def test_login_with_nul_in_the_email_is_refused_not_a_500(client, session):
    token = csrf_token_from(client.get("/account/login").get_data(as_text=True))
    response = client.post("/account/login", data={
        "csrf_token": token, "email": "a\x00@example.org", "password": "whatever12"})
    assert response.status_code == 400  # not a 500 from PostgreSQL
    assert "the e-mail address contains a control character (U+0000)" in response.get_data(
        as_text=True)


@ALL_DATABASES
def test_cli_team_create_refuses_bidi_and_zero_width(runner, session):
    result = runner.invoke(args=["team", "create", "Lab\u2066X", "--email", "x@example.org"])
    assert result.exit_code == 1
    assert "The team name contains an invisible formatting character (U+2066)" in result.output
    result = runner.invoke(args=["team", "create", "Lab\u200dX", "--email", "x@example.org"])
    assert "(U+200D)" in result.output
    assert session.exec(select(Team)).all() == []


def test_rule_by_hand():
    assert text_problem("name", "Ordinary Lab (v2) ñ 中文") is None
    assert text_problem("description", "a\tb\nc", multiline=True) is None
    assert text_problem("description", "a\tb") == ("the description contains a control "
                                                   "character (U+0009) at position 2; remove "
                                                   "it and try again")
    assert text_problem("name", "x\u200fy") is None  # only names refuse invisible characters
    assert text_problem("name", "x\u200fy", name=True).startswith(
        "the name contains an invisible formatting character (U+200F)")
    assert text_problem("name", "\ud800") is not None
