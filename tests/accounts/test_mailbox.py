"""One account per mailbox: ``me+1@x.org`` and ``me+2@x.org`` are one.

Before, addresses were compared after ``strip().lower()`` only, so one inbox verified any
number of teams and the per-e-mail sign-up limit counted each ``+tag`` apart.
"""

from __future__ import annotations

import logging

import pytest
from sqlmodel import select

from leaderboard.models import Team, User
from leaderboard.services.access import accounts
from leaderboard.services.access.mailboxes import mailbox_key
from leaderboard.web.account import limits
from tests.accounts.test_limits import ADDRESSES, _client, _post, _signup
from tests.accounts.test_signup_race import parallel_signups
from tests.backends import ALL_DATABASES
from tests.factories import DEFAULT_PASSWORD, make_team
from tests.gate import StatementGate


@pytest.mark.parametrize(("address", "key"), [
    ("me@x.org", "me@x.org"),
    (" Me+Lab1@X.Org ", "me@x.org"),
    ("me+a+b@x.org", "me@x.org"),
    ("me@x.org.", "me@x.org"),
    ("J.Doe+probe@GoogleMail.com", "jdoe@gmail.com"),
    ("j.d.o.e@gmail.com", "jdoe@gmail.com"),
    # Dots count elsewhere (Outlook: two people); so does "-" (a common part of names).
    ("j.doe@outlook.com", "j.doe@outlook.com"),
    ("jean-luc@x.org", "jean-luc@x.org"),
    # Nothing before the tag: the local part is kept whole.
    ("+only@x.org", "+only@x.org"),
    ("me@BÜCHER.example", "me@xn--bcher-kva.example"),
    ("me@xn--bcher-kva.example", "me@xn--bcher-kva.example"),
    ("not an address", "not an address"),
])
def test_mailbox_key(address, key):
    assert mailbox_key(address) == key


def test_the_column_follows_the_address(session):
    _team, user = make_team(session, name="Tagged", email="Lab+Tag@Example.org")
    assert (user.email, user.mailbox) == ("lab+tag@example.org", "lab@example.org")
    user.email = "other.name+x@gmail.com"
    session.add(user)
    session.commit()
    assert session.get(User, user.id).mailbox == "othername@gmail.com"


@ALL_DATABASES
def test_a_second_address_of_a_mailbox_is_refused_as_a_taken_one(session):
    team, _user = make_team(session, name="First Lab", email="me+1@x.org")
    for address in ("me+2@x.org", "ME@X.ORG", "me@x.org."):
        with pytest.raises(accounts.EmailTaken) as taken:
            accounts.create_team(session=session, name=f"Lab {address}", email=address,
                                 password=DEFAULT_PASSWORD, verified=True)
        assert str(taken.value) == accounts.EMAIL_TAKEN
        session.rollback()
        with pytest.raises(accounts.EmailTaken) as joined:
            accounts.join_team(session=session, team=team, email=address,
                               password=DEFAULT_PASSWORD)
        assert str(joined.value) == accounts.EMAIL_TAKEN
        session.rollback()
    assert [t.name for t in session.exec(select(Team)).all()] == ["First Lab"]
    assert [u.email for u in session.exec(select(User)).all()] == ["me+1@x.org"]
    # Another mailbox on the same domain is free.
    accounts.create_team(session=session, name="Second Lab", email="you+1@x.org",
                         password=DEFAULT_PASSWORD, verified=True)
    session.commit()


def test_signup_on_a_taken_mailbox_answers_as_a_taken_address_does(client, session, caplog):
    """The same page as a new address (the answer tells nobody who is registered); the note
    goes to the account's own address, which reaches that inbox."""
    make_team(session, name="Old Lab", email="me+1@x.org")
    with caplog.at_level(logging.WARNING, logger="leaderboard.infra.mail"):
        taken = _signup(client, "Probe Lab", "me+2@x.org")
    new = _signup(client, "Probe Lab", "new@x.org")
    assert taken.status_code == new.status_code == 200
    assert taken.get_data(as_text=True).replace("me+2@x.org", "@") == (
        new.get_data(as_text=True).replace("new@x.org", "@"))
    assert session.exec(select(User.email).order_by(User.id)).all() == [
        "me+1@x.org", "new@x.org"]
    notes = [r.getMessage() for r in caplog.records if "Sign-up attempt" in r.getMessage()]
    assert len(notes) == 1
    assert notes[0].startswith("E-mail to me+1@x.org (no LEADERBOARD_SMTP_URL set)")
    assert ("tried to sign up a new team on the SWORDS leaderboard with me+2@x.org. Your "
            "account me+1@x.org gets its mail in the same mailbox") in notes[0]


@ALL_DATABASES
def test_parallel_signups_on_one_mailbox_make_one_account(app, session):
    """Eight addresses of one inbox at the same moment, each from its own client address: the
    mailbox's lock lets one through; the others get the page a taken address gets. A gate
    (:mod:`tests.gate`) lines up their checks for an account on the mailbox: without the
    lock, all eight saw none and eight accounts were made, on both databases."""
    app.config["LEADERBOARD"].update(SIGNUP_EMAIL_RATE_LIMIT="1000 per hour",
                                     SIGNUP_RATE_LIMIT="1000 per hour")
    StatementGate('WHERE "user".mailbox =', 8, 3.0).watch(app.extensions["db_engine"])
    forms = [{"team_name": f"Sybil {i}", "email": f"me+{i}@x.org"} for i in range(8)]
    responses = parallel_signups(app, forms)
    assert [r.status_code for r in responses] == [200] * 8
    users = session.exec(select(User)).all()
    assert len(users) == 1 and users[0].mailbox == "me@x.org"
    assert len(session.exec(select(Team)).all()) == 1


def test_the_per_email_signup_limit_counts_the_mailbox(app_overrides, request):
    app_overrides.update(SIGNUP_EMAIL_RATE_LIMIT="3 per hour")
    app = request.getfixturevalue("app")
    responses = [_signup(_client(app, address), f"Tag {i}", f"me+{i}@x.org")
                 for i, address in enumerate(ADDRESSES)]
    assert [r.status_code for r in responses] == [200] * 3 + [429] * 5
    assert limits.SIGNUP_EMAIL_LIMITED in responses[-1].get_data(as_text=True)
    # Another mailbox is not held back by it.
    assert _signup(_client(app, ADDRESSES[0]), "Other", "you@x.org").status_code == 200


def test_the_per_email_reset_and_login_limits_count_the_mailbox(app_overrides, request):
    app_overrides.update(RESET_EMAIL_RATE_LIMIT="2 per hour", LOGIN_ACCOUNT_RATE_LIMIT="2 per hour")
    app = request.getfixturevalue("app")
    make_team(request.getfixturevalue("session"), email="me@x.org")
    resets = [_post(_client(app, a), "/account/reset", {"email": f"me+{i}@x.org"}).status_code
              for i, a in enumerate(ADDRESSES[:4])]
    assert resets == [200, 200, 429, 429]
    logins = [_post(_client(app, a), "/account/login",
                    {"email": f"Me+{i}@X.org", "password": "wrong password!"}).status_code
              for i, a in enumerate(ADDRESSES[:4])]
    assert logins == [400, 400, 429, 429]
