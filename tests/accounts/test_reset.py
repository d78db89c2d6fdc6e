"""Password reset and set-password links: signed, expiring, usable once."""

from __future__ import annotations

import logging
import re
import time

from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from leaderboard.services.access.accounts import password_stamp
from tests.factories import DEFAULT_PASSWORD, csrf_token_from, login, make_team

LINK_RE = re.compile(r"Password reset link for a@example\.org: (http://localhost/account/reset/\S+)")


def _request_reset(client, email: str):
    token = csrf_token_from(client.get("/account/reset").get_data(as_text=True))
    return client.post("/account/reset", data={"email": email, "csrf_token": token})


def _choose(client, path: str, password: str):
    page = client.get(path)
    assert page.status_code == 200, page.get_data(as_text=True)
    token = csrf_token_from(page.get_data(as_text=True))
    return client.post(path, data={"password": password, "confirm": password,
                                   "csrf_token": token})


def _past_token(app, user, seconds_ago: int, salt: str = "password-reset") -> str:
    """A reset token signed ``seconds_ago`` (the clock moved back for the signer only)."""

    class PastSigner(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - seconds_ago

    serializer = URLSafeTimedSerializer(app.secret_key, salt=salt, signer=PastSigner)
    return serializer.dumps({"uid": user.id, "stamp": password_stamp(user)})


def test_reset_link_is_logged_works_once(client, session, caplog):
    make_team(session, email="a@example.org")
    with caplog.at_level(logging.WARNING):
        response = _request_reset(client, "A@example.org")
    assert response.status_code == 200
    assert "If an account exists for <strong>A@example.org</strong>" in response.get_data(
        as_text=True)
    link = LINK_RE.search(caplog.text).group(1)
    path = link.removeprefix("http://localhost")
    assert _choose(client, path, "reset password 1").status_code == 302
    assert login(client, "a@example.org", "reset password 1").status_code == 302
    second = client.get(path)
    assert second.status_code == 400
    assert "This link has already been used or the password has changed since." in (
        second.get_data(as_text=True))


def test_reset_request_for_unknown_email_looks_the_same(client, session, caplog):
    make_team(session, email="a@example.org")
    with caplog.at_level(logging.WARNING):
        response = _request_reset(client, "nobody@example.org")
    assert response.status_code == 200
    assert "If an account exists for <strong>nobody@example.org</strong>" in (
        response.get_data(as_text=True))
    assert "Password reset link" not in caplog.text


def test_reset_link_expires(app_overrides, request):
    app_overrides["PASSWORD_RESET_MAX_AGE"] = 60
    app = request.getfixturevalue("app")
    session = request.getfixturevalue("session")
    client = app.test_client()
    _team, user = make_team(session, email="a@example.org")
    fresh = _past_token(app, user, seconds_ago=30)
    stale = _past_token(app, user, seconds_ago=61)
    response = client.get(f"/account/reset/{stale}")
    assert response.status_code == 400
    assert "This link has expired. Ask for a new password reset link." in (
        response.get_data(as_text=True))
    assert client.get(f"/account/reset/{fresh}").status_code == 200


def test_tampered_or_foreign_links_are_refused(app, client, session):
    _team, user = make_team(session, email="a@example.org")
    good = _past_token(app, user, seconds_ago=0)
    for bad in (good[:-2] + "xx", "garbage",
                _past_token(app, user, 0, salt="set-password"),
                URLSafeTimedSerializer("another key", salt="password-reset").dumps(
                    {"uid": user.id, "stamp": password_stamp(user)})):
        response = client.get(f"/account/reset/{bad}")
        assert response.status_code == 400
        assert "This link is not valid. Check that it was copied completely." in (
            response.get_data(as_text=True))
    # A reset link is not a set-password link either.
    assert client.get(f"/account/set-password/{good}").status_code == 400


def test_reset_link_dies_when_password_changes_otherwise(app, client, session):
    _team, user = make_team(session, email="a@example.org")
    token = _past_token(app, user, seconds_ago=0)
    login(client, "a@example.org")
    form = csrf_token_from(client.get("/account/password").get_data(as_text=True))
    client.post("/account/password", data={"current_password": DEFAULT_PASSWORD,
                                           "password": "changed meanwhile",
                                           "confirm": "changed meanwhile", "csrf_token": form})
    assert client.get(f"/account/reset/{token}").status_code == 400


def test_reset_form_errors_keep_the_link(app, client, session):
    _team, user = make_team(session, email="a@example.org")
    path = f"/account/reset/{_past_token(app, user, seconds_ago=0)}"
    token = csrf_token_from(client.get(path).get_data(as_text=True))
    response = client.post(path, data={"password": "short", "confirm": "short",
                                       "csrf_token": token})
    assert response.status_code == 400
    assert "Password must be at least 8 characters." in response.get_data(as_text=True)
    assert login(client, "a@example.org").status_code == 302
