"""Team-name look-alikes: invisible characters, mixed scripts and names
that look like another team's are refused, over the form, the CLI and in parallel sign-ups."""

from __future__ import annotations

import pytest
from sqlmodel import select

from leaderboard.models import Team
from leaderboard.services.access import accounts
from leaderboard.services.access.team_names import name_problem, name_skeleton
from tests.accounts.test_signup_race import parallel_signups
from tests.backends import ALL_DATABASES
from tests.factories import DEFAULT_PASSWORD, csrf_token_from, make_team

#: One look a name: "Team l" in eight spellings, no two of which are the same name whatever
#: the case (their name_key differs but for the last, "l" in NFKC), each in one script.
LOOK_ALIKES = ["Team l", "Team 1", "Team I", "Team |", "Team \u01c0", "Team \u2223",
               "Team \u23fd", "Team \U0001d5c5"]


@pytest.fixture
def app_overrides(app_overrides):
    # The sign-up limits are not under test here.
    app_overrides.update(SIGNUP_RATE_LIMIT="1000 per hour", SIGNUP_EMAIL_RATE_LIMIT="1000 per hour",
                         SIGNUP_GLOBAL_RATE_LIMIT="1000 per hour")
    return app_overrides


@pytest.mark.parametrize("name, position, code", [
    ("al\u00adpha", 3, "00AD"),          # soft hyphen: reads "alpha"
    ("alpha\u2063", 6, "2063"),          # invisible separator
    ("Team\u180eA", 5, "180E"),          # Mongolian vowel separator
    ("Lab\U000e0041", 4, "E0041"),       # a tag character
    ("Lab\ue000", 4, "E000"),            # private use
    ("Lab\u034f", 4, "034F"),            # combining grapheme joiner (Mn, default-ignorable)
    ("Lab\u3164x", 4, "3164"),           # Hangul filler: a blank letter
    ("Lab\ufe0f", 4, "FE0F"),            # variation selector
])
def test_invisible_characters_are_refused(name, position, code):
    problem = name_problem(name)
    assert problem is not None and f"(U+{code}) at position {position}" in problem


@pytest.mark.parametrize("name, scripts", [
    ("alph\u0430", "Latin and Cyrillic"),        # a Cyrillic а among Latin letters
    ("\u0391lpha Lab", "Greek and Latin"),       # a Greek capital alpha first
    ("Team \u0661", "Latin and Arabic"),
])
def test_mixed_scripts_are_refused(name, scripts):
    problem = name_problem(name)
    assert problem is not None and f"mixes scripts, {scripts}" in problem


@pytest.mark.parametrize("name", ["Straße Lab", "Crème brûlée", "cafe\u0301 lab", "Müller & Söhne",
                                  "東京ラボ Lab", "서울 Lab", "日本語", "\u0440\u0430\u0445",
                                  "Team 🚀", "NLP-Group (2024)"])
def test_names_in_one_script_pass(name):
    assert name_problem(name) is None


@pytest.mark.parametrize("first, second", [
    ("pax", "\u0440\u0430\u0445"),          # Latin, then all-Cyrillic рах
    ("PayPal Lab", "PayPaI Lab"),            # capital I for l
    ("Team 1", "Team l"),
    ("Learning Lab", "Leaming Lab"),         # rn for m
    ("HOPE", "\u041d\u041e\u0420\u0415"),  # all-Cyrillic capitals НОРЕ
])
def test_confusables_share_a_skeleton(first, second):
    assert name_skeleton(first) == name_skeleton(second)


def test_different_names_keep_different_skeletons():
    names = ["North Lab", "South Lab", "East Lab", "Team A", "Team B", "alpha", "alpha beta"]
    names += [f"Team {i:04d}" for i in range(1000)]
    assert len({name_skeleton(n) for n in names}) == len(names)


def _signup(client, name: str, email: str):
    token = csrf_token_from(client.get("/account/signup").get_data(as_text=True))
    return client.post("/account/signup", data={
        "team_name": name, "email": email, "password": DEFAULT_PASSWORD,
        "confirm": DEFAULT_PASSWORD, "csrf_token": token})


def test_signup_form_refuses_each_kind_with_its_reason(client, session):
    assert _signup(client, "alpha", "a@example.org").status_code == 200
    assert _signup(client, "pax", "p@example.org").status_code == 200
    for name, email, message in [
        ("al\u00adpha", "b@example.org", "invisible formatting character (U+00AD) at position 3"),
        ("alph\u0430", "c@example.org", "mixes scripts, Latin and Cyrillic"),
        ("\u0440\u0430\u0445", "d@example.org", "looks the same as another team&#39;s name"),
        ("ALPHA", "e@example.org", "The team name &#39;ALPHA&#39; is taken."),
    ]:
        response = _signup(client, name, email)
        assert response.status_code == 400, name
        assert message in response.get_data(as_text=True), name
    assert sorted(session.exec(select(Team.name)).all()) == ["alpha", "pax"]


def test_host_cli_refuses_a_look_alike(session, runner):
    make_team(session, "Team 1", email="one@example.org")
    result = runner.invoke(args=["team", "create", "Team l", "--email", "l@example.org",
                                 "--password", DEFAULT_PASSWORD])
    assert result.exit_code != 0
    assert "looks the same as another team's name" in result.output
    assert session.exec(select(Team.name)).all() == ["Team 1"]


def test_create_team_keeps_the_skeleton(session):
    team, _user = make_team(session, "\uff30\uff41\uff58", email="fw@example.org")  # Ｐａｘ
    assert (team.name_key, team.name_skeleton) == ("pax", "pax")
    with pytest.raises(accounts.TeamNameTaken):
        accounts.create_team(session=session, name="\u0420\u0430\u0445",  # Cyrillic Рах
                             email="cy@example.org", password=DEFAULT_PASSWORD, verified=True)


@ALL_DATABASES
def test_parallel_look_alikes_make_one_team(app, session):
    assert len({name_skeleton(n) for n in LOOK_ALIKES}) == 1
    assert all(name_problem(n) is None for n in LOOK_ALIKES)
    forms = [{"team_name": name, "email": f"look{i}@example.org"}
             for i, name in enumerate(LOOK_ALIKES)]
    responses = parallel_signups(app, forms)
    codes = sorted(response.status_code for response in responses)
    assert codes == [200] + [400] * 7, codes
    assert len(session.exec(select(Team)).all()) == 1
    for response in responses:
        if response.status_code == 400:
            text = response.get_data(as_text=True)
            assert "looks the same as another team" in text or "is taken." in text


def test_skeleton_is_unique_in_the_database(session):
    """Below the app: two rows whose names look alike cannot both be stored."""
    from sqlalchemy.exc import IntegrityError

    session.add(Team(name="Team 1"))
    session.commit()
    session.add(Team(name="Team I"))
    with pytest.raises(IntegrityError):
        session.commit()
    session.rollback()
