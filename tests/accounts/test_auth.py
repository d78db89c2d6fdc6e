"""Sign-up, login, logout, wrong passwords, CSRF, the login rate limit, password change."""

from __future__ import annotations

import pytest
from sqlmodel import select

from leaderboard.models import Team, User
from tests.backends import ALL_DATABASES
from tests.factories import DEFAULT_PASSWORD, csrf_token_from, login, make_team


def _signup(client, team="Lexical Lions", email="lions@example.org",
            password=DEFAULT_PASSWORD, confirm=None):
    token = csrf_token_from(client.get("/account/signup").get_data(as_text=True))
    return client.post("/account/signup", data={
        "team_name": team, "email": email, "password": password,
        "confirm": password if confirm is None else confirm, "csrf_token": token})


@ALL_DATABASES
def test_signup_creates_team_then_the_member_logs_in(client, session):
    response = _signup(client, email="Lions@Example.org")
    assert response.status_code == 200
    assert "<h1>Check your e-mail</h1>" in response.get_data(as_text=True)
    # Not logged in by the sign-up (an address that exists could not be, and must look alike).
    assert client.get("/account/").status_code == 302
    assert login(client, "lions@example.org").status_code == 302
    home = client.get("/account/")
    html = home.get_data(as_text=True)
    assert home.status_code == 200
    assert "<h1>Team Lexical Lions</h1>" in html
    assert "lions@example.org" in html
    assert 'href="/account/tokens"' in html and 'href="/account/submissions"' in html
    team = session.exec(select(Team)).one()
    user = session.exec(select(User)).one()
    assert (team.name, user.email, user.team_id, user.is_admin) == (
        "Lexical Lions", "lions@example.org", team.id, False)
    assert user.password_hash.startswith("scrypt:")
    assert DEFAULT_PASSWORD not in user.password_hash


@ALL_DATABASES
def test_signup_refuses_a_taken_team_name_but_not_an_email_by_name(client, session):
    make_team(session, "Lexical Lions", email="first@example.org")
    response = _signup(client, team="lexical lions", email="second@example.org")
    assert response.status_code == 400
    assert "The team name &#39;lexical lions&#39; is taken." in response.get_data(as_text=True)
    # A registered address gets the answer of a new sign-up (see test_mail for the mails).
    taken = _signup(client, team="Other", email="FIRST@example.org")
    new = _signup(client, team="Other", email="fresh@example.org")
    assert taken.status_code == new.status_code == 200
    assert taken.get_data(as_text=True).replace("FIRST@example.org", "@") == (
        new.get_data(as_text=True).replace("fresh@example.org", "@"))
    assert "already exists" not in taken.get_data(as_text=True)
    assert [t.name for t in session.exec(select(Team).order_by(Team.id)).all()] == [
        "Lexical Lions", "Other"]
    assert session.exec(select(User.email).order_by(User.id)).all() == [
        "first@example.org", "fresh@example.org"]


def test_signup_field_errors_next_to_fields(client):
    response = _signup(client, team="", email="not-an-email", password="short", confirm="other")
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert '<p class="field-error" id="team_name-error">Enter a team name.</p>' in html
    assert '<p class="field-error" id="email-error">Enter a valid e-mail address.</p>' in html
    assert "Password must be at least 8 characters." in html
    assert '<p class="field-error" id="confirm-error">The two passwords differ.</p>' in html
    assert 'aria-describedby="email-hint email-error"' in html


def test_login_and_logout(client, session):
    make_team(session, email="a@example.org")
    response = login(client, "a@example.org")
    assert response.status_code == 302
    assert response.headers["Location"] == "/account/"
    assert client.get("/account/").status_code == 200
    token = csrf_token_from(client.get("/account/").get_data(as_text=True))
    response = client.post("/account/logout", data={"csrf_token": token})
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    response = client.get("/account/")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/account/login?next=")


def test_login_next_only_follows_local_paths(client, session):
    make_team(session, email="a@example.org")
    token = csrf_token_from(client.get("/account/login").get_data(as_text=True))
    data = {"email": "a@example.org", "password": DEFAULT_PASSWORD, "csrf_token": token}
    response = client.post("/account/login?next=//evil.example/x", data=data)
    assert response.headers["Location"] == "/account/"
    response = client.post("/account/login?next=/account/tokens", data=data)
    assert response.headers["Location"] == "/account/tokens"


@ALL_DATABASES
@pytest.mark.parametrize("target", ["/account/tokens%0d%0aSet-Cookie:%20x=1", "/%0aevil",
                                    "/account/%00", "/account/%09tokens", "/%5cevil.example",
                                    "/%5c%5cevil.example/x"])
def test_login_next_with_control_characters_or_backslashes_falls_back(client, session,
                                                                      target):
    """CR/LF in ``next`` (a header may not hold them) and a backslash, which browsers read
    as a slash ("/\\evil" goes off-site), fall back to the default page, not a 500 after the
    login was recorded."""
    make_team(session, email="a@example.org")
    form = client.get(f"/account/login?next={target}")
    assert form.status_code == 200
    data = {"email": "a@example.org", "password": DEFAULT_PASSWORD,
            "csrf_token": csrf_token_from(form.get_data(as_text=True))}
    response = client.post(f"/account/login?next={target}", data=data)
    assert response.status_code == 302
    assert response.headers["Location"] == "/account/"
    assert client.get("/account/").status_code == 200  # logged in


def test_logout_is_post_only(client, session):
    make_team(session, email="a@example.org")
    login(client, "a@example.org")
    assert client.get("/account/logout").status_code == 405
    assert client.get("/account/").status_code == 200


def test_wrong_password_same_message_whether_email_exists_or_not(client, session):
    make_team(session, email="a@example.org")
    known = login(client, "a@example.org", "wrong password!")
    unknown = login(client, "nobody@example.org", "wrong password!")
    for response in (known, unknown):
        assert response.status_code == 400
        assert '<p class="form-error" role="alert">Wrong e-mail or password.</p>' in (
            response.get_data(as_text=True))
    assert client.get("/account/").status_code == 302


def test_disabled_team_cannot_log_in(client, session):
    team, _user = make_team(session, email="a@example.org")
    team.disabled = True
    session.add(team)
    session.commit()
    response = login(client, "a@example.org")
    assert response.status_code == 400
    assert "This team is disabled." in response.get_data(as_text=True)


def test_post_without_csrf_token_is_rejected(client, session):
    make_team(session, email="a@example.org")
    response = client.post("/account/login", data={"email": "a@example.org",
                                                   "password": DEFAULT_PASSWORD})
    assert response.status_code == 400
    assert "The CSRF token is missing." in response.get_data(as_text=True)
    assert client.get("/account/").status_code == 302
    client.get("/account/signup")
    response = client.post("/account/signup", data={
        "team_name": "X", "email": "x@example.org", "password": DEFAULT_PASSWORD,
        "confirm": DEFAULT_PASSWORD, "csrf_token": "forged"})
    assert response.status_code == 400
    assert "The CSRF token is invalid." in response.get_data(as_text=True)
    login(client, "a@example.org")
    assert client.post("/account/logout").status_code == 400
    assert client.get("/account/").status_code == 200


def test_login_rate_limit_answers_429(app_overrides, request):
    app_overrides["LOGIN_RATE_LIMIT"] = "3 per minute"
    client = request.getfixturevalue("client")
    for _ in range(3):
        assert login(client, "a@example.org", "wrong password!").status_code == 400
    response = login(client, "a@example.org", "wrong password!")
    html = response.get_data(as_text=True)
    assert response.status_code == 429
    assert "<h1>Too many requests</h1>" in html
    assert "Too many login attempts from your address. Wait a minute, then try again" in html
    # Reading the form is not limited, only attempts.
    assert client.get("/account/login").status_code == 200


def test_change_password_logs_out_other_sessions(app, session):
    make_team(session, email="a@example.org")
    mine, other = app.test_client(), app.test_client()
    login(mine, "a@example.org")
    login(other, "a@example.org")
    token = csrf_token_from(mine.get("/account/password").get_data(as_text=True))
    response = mine.post("/account/password", data={
        "current_password": DEFAULT_PASSWORD, "password": "a brand new secret",
        "confirm": "a brand new secret", "csrf_token": token})
    assert response.status_code == 302
    assert mine.get("/account/").status_code == 200
    assert other.get("/account/").status_code == 302
    fresh = app.test_client()
    assert login(fresh, "a@example.org").status_code == 400
    assert login(fresh, "a@example.org", "a brand new secret").status_code == 302


def test_change_password_needs_current_password(client, session):
    make_team(session, email="a@example.org")
    login(client, "a@example.org")
    token = csrf_token_from(client.get("/account/password").get_data(as_text=True))
    response = client.post("/account/password", data={
        "current_password": "not it at all", "password": "a brand new secret",
        "confirm": "a brand new secret", "csrf_token": token})
    assert response.status_code == 400
    assert "That is not your current password." in response.get_data(as_text=True)
    assert login(client, "a@example.org").status_code == 302


def test_session_from_another_secret_key_is_ignored(client, session, other_app):
    """A cookie signed with another key (e.g. after rotating the secret) is not a login."""
    make_team(session, email="a@example.org")
    login(client, "a@example.org")
    cookie = client.get_cookie("session")
    same_key = other_app().test_client()
    same_key.set_cookie("session", cookie.value)
    assert same_key.get("/account/").status_code == 200
    other_key = other_app(SECRET_KEY="another-secret-key").test_client()
    other_key.set_cookie("session", cookie.value)
    assert other_key.get("/account/").status_code == 302
