"""Sessions end on the server: a cookie saved before logout, replayed, opens nothing."""

from __future__ import annotations

from sqlmodel import select

from leaderboard.models import LoginSession
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_team

PRIVATE = ("/account/", "/account/tokens", "/account/submissions")


def saved_cookie(client) -> str:
    return client.get_cookie("session").value


def replay(app, cookie: str):
    """A fresh browser carrying only ``cookie`` (what an attacker who copied it has)."""
    other = app.test_client()
    other.set_cookie("session", cookie)
    return other


def post_form(client, page: str, action: str):
    token = csrf_token_from(client.get(page).get_data(as_text=True))
    return client.post(action, data={"csrf_token": token})


def assert_sent_to_login(client) -> None:
    for path in PRIVATE:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response.headers["Location"].startswith("/account/login"), path


@ALL_DATABASES
def test_cookie_saved_before_logout_is_dead_after_it(app, client, session):
    make_team(session, name="Replay Lab", email="replay@example.org")
    assert login(client, "replay@example.org").status_code == 302
    cookie = saved_cookie(client)
    assert replay(app, cookie).get("/account/").status_code == 200  # the copy works now

    response = post_form(client, "/account/", "/account/logout")
    assert response.status_code == 302
    assert_sent_to_login(client)
    assert_sent_to_login(replay(app, cookie))
    assert session.exec(select(LoginSession)).all() == []


@ALL_DATABASES
def test_logout_ends_only_this_browser(app, client, session):
    make_team(session, name="Two Browsers", email="two@example.org")
    laptop = app.test_client()
    assert login(laptop, "two@example.org").status_code == 302
    assert login(client, "two@example.org").status_code == 302
    post_form(client, "/account/", "/account/logout")
    assert laptop.get("/account/").status_code == 200


@ALL_DATABASES
def test_log_out_everywhere_ends_every_browser(app, client, session):
    make_team(session, name="Everywhere Lab", email="every@example.org")
    laptop, phone = app.test_client(), app.test_client()
    for browser in (laptop, phone, client):
        assert login(browser, "every@example.org").status_code == 302
    saved = saved_cookie(phone)
    page = client.get("/account/").get_data(as_text=True)
    assert 'action="/account/logout-everywhere"' in page
    assert ">Log out everywhere</button>" in page

    response = post_form(client, "/account/", "/account/logout-everywhere")
    assert response.status_code == 302
    assert response.headers["Location"] == "/account/login"
    follow = client.get("/account/login").get_data(as_text=True)
    assert "You are logged out everywhere (3 sessions ended)." in follow
    for browser in (client, laptop, phone, replay(app, saved)):
        assert_sent_to_login(browser)
    # Logging in again works, and starts a single new session.
    assert login(laptop, "every@example.org").status_code == 302
    assert laptop.get("/account/").status_code == 200
    assert len(session.exec(select(LoginSession)).all()) == 1


def test_log_out_everywhere_needs_the_csrf_token(app, client, session):
    make_team(session, name="Forged Lab", email="forged@example.org")
    login(client, "forged@example.org")
    assert client.post("/account/logout-everywhere").status_code == 400
    assert client.get("/account/").status_code == 200
