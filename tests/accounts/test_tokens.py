"""API tokens: created on the account page (shown once), listed, revoked, used as Bearer."""

from __future__ import annotations

import re

from sqlmodel import select

from leaderboard.models import ApiToken
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_team, make_token

TOKEN_RE = re.compile(r'id="new-token"[^>]*value="(swl_[A-Za-z0-9_-]+)"')


def _create(client, name="ci"):
    form = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    return client.post("/account/tokens", data={"name": name, "csrf_token": form})


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@ALL_DATABASES
def test_create_shows_secret_once_and_it_authenticates(client, session, protected):
    make_team(session, "Team A", email="a@example.org")
    login(client, "a@example.org")
    response = _create(client, "laptop")
    html = response.get_data(as_text=True)
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    assert "Copy it now: this is the only time it is shown." in html
    plaintext = TOKEN_RE.search(html).group(1)
    row = session.exec(select(ApiToken)).one()
    assert (row.name, row.prefix, row.last_used_at) == ("laptop", plaintext[:12], None)
    assert plaintext not in row.secret_hash
    listing = client.get("/account/tokens").get_data(as_text=True)
    assert plaintext not in listing
    assert f"<code>{row.prefix}…</code>" in listing and "never" in listing
    used = client.get(protected, headers=_bearer(plaintext))
    assert used.status_code == 200
    assert used.get_json() == {"team": "Team A", "token": "laptop"}
    session.refresh(row)
    assert row.last_used_at is not None


@ALL_DATABASES
def test_revoked_token_is_refused(client, session, protected):
    team, _user = make_team(session, email="a@example.org")
    plaintext = make_token(session, team, "ci")
    assert client.get(protected, headers=_bearer(plaintext)).status_code == 200
    login(client, "a@example.org")
    row = session.exec(select(ApiToken)).one()
    form = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    response = client.post(f"/account/tokens/{row.id}/revoke", data={"csrf_token": form})
    assert response.status_code == 302
    assert "is revoked." in client.get("/account/tokens").get_data(as_text=True)
    refused = client.get(protected, headers=_bearer(plaintext))
    assert refused.status_code == 401
    assert refused.get_json() == {"error": {
        "status": 401, "code": "unauthorized",
        "message": "The API token is invalid, revoked, or its team is disabled."}}


def test_missing_or_malformed_header_is_401_json(client, protected):
    expected = {"error": {
        "status": 401, "code": "unauthorized",
        "message": "Send an API token as 'Authorization: Bearer <token>'. "
                   "Create one on your account page under API tokens."}}
    for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}):
        response = client.get(protected, headers=headers)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="api"'
        assert response.get_json() == expected


def test_wrong_token_is_401_json(client, session, protected):
    team, _user = make_team(session, email="a@example.org")
    plaintext = make_token(session, team)
    for wrong in ("swl_" + "A" * 43, plaintext[:-1] + ("A" if plaintext[-1] != "A" else "B"),
                  "not-even-a-token"):
        response = client.get(protected, headers=_bearer(wrong))
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="api"'
        assert response.get_json()["error"]["message"] == (
            "The API token is invalid, revoked, or its team is disabled.")


def test_disabled_team_token_refused(client, session, protected):
    team, _user = make_team(session, email="a@example.org")
    plaintext = make_token(session, team)
    team.disabled = True
    session.add(team)
    session.commit()
    response = client.get(protected, headers=_bearer(plaintext))
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthorized"


def test_api_needs_no_csrf_token(client, session, protected):
    """Bearer requests carry no cookie, so the API is exempt from CSRF checks."""
    team, _user = make_team(session, email="a@example.org")
    plaintext = make_token(session, team)
    response = client.post(protected, headers=_bearer(plaintext), data={"x": "1"})
    assert response.status_code == 200
    assert response.get_json()["team"] == "Team A"


def test_cannot_revoke_another_teams_token(client, session):
    other, _ = make_team(session, "Other", email="o@example.org")
    make_token(session, other)
    theirs = session.exec(select(ApiToken)).one()
    make_team(session, "Mine", email="m@example.org")
    login(client, "m@example.org")
    form = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    assert client.post(f"/account/tokens/{theirs.id}/revoke",
                       data={"csrf_token": form}).status_code == 404
    session.refresh(theirs)
    assert theirs.revoked_at is None


def test_token_pages_need_csrf_and_a_name(client, session):
    make_team(session, email="a@example.org")
    login(client, "a@example.org")
    assert client.post("/account/tokens", data={"name": "ci"}).status_code == 400
    response = _create(client, "")
    assert response.status_code == 400
    assert "Give the token a name, e.g. ci or laptop." in response.get_data(as_text=True)
    assert session.exec(select(ApiToken)).all() == []


def test_token_pages_need_login(client):
    response = client.get("/account/tokens")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/account/login")


@ALL_DATABASES
def test_scopes_are_enforced_read_only_tokens_cannot_upload(app, client, session,
                                                           checks_worker):
    import io

    from leaderboard.services.access.api_tokens import issue_token

    team, _user = make_team(session, name="Scope Lab", email="scope@example.org")
    _row, read_only = issue_token(session=session, team=team, name="dashboard", scopes="read")
    _row, full = issue_token(session=session, team=team, name="ci")
    session.commit()
    for path in ("/api/v1/submissions", "/api/v1/validate"):
        response = client.post(path, headers={"Authorization": f"Bearer {read_only}"},
                               data={"file": (io.BytesIO(b"{}"), "r.json")},
                               content_type="multipart/form-data")
        assert response.status_code == 403, path
        error = response.get_json()["error"]
        assert error["code"] == "insufficient_scope" and "may not submit" in error["message"]
    listing = client.get("/api/v1/submissions", headers={"Authorization": f"Bearer {read_only}"})
    assert listing.status_code == 200 and listing.get_json() == {"submissions": []}
    # the default token (read and submit) reaches the upload's own checks
    response = client.post("/api/v1/validate", headers={"Authorization": f"Bearer {full}"},
                           data={"file": (io.BytesIO(b"{}"), "r.json")},
                           content_type="multipart/form-data")
    assert response.status_code != 403


def test_account_page_makes_a_read_only_token(client, session):
    make_team(session, "Team R", email="r@example.org")
    login(client, "r@example.org")
    token = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    response = client.post("/account/tokens", data={"csrf_token": token, "name": "dash",
                                                    "read_only": "y"})
    assert response.status_code == 201
    row = session.exec(select(ApiToken)).one()
    assert row.scopes == "read"
    listing = client.get("/account/tokens").get_data(as_text=True)
    assert "<td>read</td>" in listing
