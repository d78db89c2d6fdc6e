"""Invitations: a member makes a week-long signed link; whoever opens it
joins the team with their own e-mail and password."""

from __future__ import annotations

import re
import time

from sqlmodel import select

from leaderboard.models import User
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_team

LINK = re.compile(r'id="invitation-link"[^>]*value="([^"]+)"')


def _invite(client) -> str:
    token = csrf_token_from(client.get("/account/").get_data(as_text=True))
    response = client.post("/account/invitations", data={"csrf_token": token})
    assert response.status_code == 201 and response.headers["Cache-Control"] == "no-store"
    return LINK.search(response.get_data(as_text=True)).group(1)


@ALL_DATABASES
def test_an_invited_person_joins_the_team_and_logs_in(app, client, session):
    team, _user = make_team(session, "Invite Lab", email="lead@example.org")
    login(client, "lead@example.org")
    assert "Invite a member" in client.get("/account/").get_data(as_text=True)
    path = _invite(client).removeprefix("http://localhost")
    guest = app.test_client()
    page = guest.get(path)
    assert page.status_code == 200 and "Join the team Invite Lab" in page.get_data(as_text=True)
    form = {"csrf_token": csrf_token_from(page.get_data(as_text=True)),
            "email": "New.Member@Example.org", "password": "a long password",
            "confirm": "a long password"}
    joined = guest.post(path, data=form)
    assert joined.status_code == 200 and "Welcome to Invite Lab" in joined.get_data(
        as_text=True)
    member = session.exec(select(User).where(User.email == "new.member@example.org")).one()
    assert member.team_id == team.id and member.email_verified_at is None
    assert login(guest, "new.member@example.org", "a long password").status_code == 302
    members = guest.get("/account/").get_data(as_text=True)
    assert "lead@example.org" in members and "new.member@example.org" in members
    # the same address again: a form error, nothing created
    again = app.test_client()
    page = again.get(path)
    form["csrf_token"] = csrf_token_from(page.get_data(as_text=True))
    refused = again.post(path, data=form)
    assert refused.status_code == 400 and "already exists" in refused.get_data(as_text=True)
    assert len(session.exec(select(User).where(User.team_id == team.id)).all()) == 2


def test_a_tampered_or_expired_invitation_is_refused(app, client, session, monkeypatch):
    make_team(session, "Invite Lab", email="lead@example.org")
    login(client, "lead@example.org")
    path = _invite(client).removeprefix("http://localhost")
    tampered = client.get(path[:-3] + "xyz")
    assert tampered.status_code == 400 and "not valid" in tampered.get_data(as_text=True)
    week = 7 * 24 * 3600
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + week + 60)
    expired = app.test_client().get(path)
    assert expired.status_code == 400 and "expired" in expired.get_data(as_text=True)
