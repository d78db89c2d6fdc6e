"""Parallel sign-ups: one team per name whatever its case, and no 500.

Eight threads, each with its own test client and client address, post at the same moment
(a barrier); the database's unique indexes decide, and the losers get the form's answer.
"""

from __future__ import annotations

import threading

import pytest
from sqlmodel import select

from leaderboard.models import Team, User
from tests.backends import ALL_DATABASES
from tests.factories import DEFAULT_PASSWORD, csrf_token_from

CASE_VARIANTS = ["Case Team", "case team", "CASE TEAM", "Case team", "cASE tEAM", "CaSe TeAm",
                 "case  TEAM", "ＣＡＳＥ team"]


@pytest.fixture
def app_overrides(app_overrides):
    # The per-address and global sign-up limits are not under test here.
    app_overrides.update(SIGNUP_RATE_LIMIT="1000 per hour", SIGNUP_EMAIL_RATE_LIMIT="1000 per hour",
                         SIGNUP_GLOBAL_RATE_LIMIT="1000 per hour")
    return app_overrides


def parallel_signups(app, forms: list[dict]) -> list:
    """POST every form to /account/signup at once, each from its own client and address."""
    clients = []
    for i, _form in enumerate(forms):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"127.0.0.{i + 1}"
        token = csrf_token_from(client.get("/account/signup").get_data(as_text=True))
        clients.append((client, token))
    barrier = threading.Barrier(len(forms))
    responses: list = [None] * len(forms)
    errors: list[BaseException] = []

    def post(i: int) -> None:
        client, token = clients[i]
        try:
            barrier.wait(timeout=30)
            responses[i] = client.post("/account/signup", data={
                **forms[i], "password": DEFAULT_PASSWORD, "confirm": DEFAULT_PASSWORD,
                "csrf_token": token})
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(forms))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return responses


@ALL_DATABASES
def test_case_variants_of_one_name_make_one_team(app, session):
    forms = [{"team_name": name, "email": f"case{i}@example.org"}
             for i, name in enumerate(CASE_VARIANTS)]
    responses = parallel_signups(app, forms)
    codes = sorted(response.status_code for response in responses)
    assert codes == [200] + [400] * 7, codes
    assert len(session.exec(select(Team)).all()) == 1
    assert len(session.exec(select(User)).all()) == 1
    for response in responses:
        if response.status_code == 400:
            assert "is taken." in response.get_data(as_text=True)


@ALL_DATABASES
def test_same_exact_name_in_parallel_gives_the_form_error(app, session):
    forms = [{"team_name": "Same Name", "email": f"same{i}@example.org"} for i in range(8)]
    responses = parallel_signups(app, forms)
    codes = sorted(response.status_code for response in responses)
    assert codes == [200] + [400] * 7, codes
    assert len(session.exec(select(Team)).all()) == 1
    for response in responses:
        if response.status_code == 400:
            assert "The team name &#39;Same Name&#39; is taken." in response.get_data(
                as_text=True)


@ALL_DATABASES
def test_same_email_in_parallel_never_answers_500(app, session):
    forms = [{"team_name": f"Mail Race {i}", "email": "race@example.org"} for i in range(8)]
    responses = parallel_signups(app, forms)
    # Every one answers "check your e-mail", as a registered address does (item 5).
    assert [response.status_code for response in responses] == [200] * 8
    assert len(session.exec(select(User)).all()) == 1
    # The losers' teams were rolled back with their users.
    assert len(session.exec(select(Team)).all()) == 1


def test_name_key_is_unique_in_the_database(session):
    """Below the app: two rows whose names differ by case cannot both be stored."""
    from sqlalchemy.exc import IntegrityError

    session.add(Team(name="Straße Lab"))
    session.commit()
    session.add(Team(name="STRASSE LAB"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
