"""Host commands: team create/list, token create/revoke, admin create."""

from __future__ import annotations

import re

from sqlmodel import select

from leaderboard.models import Team, User
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_team

LINK_RE = re.compile(r"works once\): http://[^/\s]+(/account/set-password/\S+)$", re.M)


@ALL_DATABASES
def test_token_create_prints_token_alone_on_last_line_and_it_works(runner, session, protected,
                                                                 client):
    make_team(session, "Team A", email="a@example.org")
    result = runner.invoke(args=["token", "create", "--team", "team a", "--name", "ci"])
    assert result.exit_code == 0, result.output
    lines = result.output.rstrip("\n").split("\n")
    token = lines[-1]
    assert re.fullmatch(r"swl_[A-Za-z0-9_-]{43}", token)
    assert token not in "\n".join(lines[:-1])
    response = client.get(protected, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.get_json() == {"team": "Team A", "token": "ci"}

    result = runner.invoke(args=["token", "revoke", "--team", "Team A", "--name", "ci"])
    assert result.exit_code == 0
    assert result.output == "Revoked 1 token(s) named 'ci' of team 'Team A'.\n"
    assert client.get(protected, headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_token_commands_refuse_unknown_team_or_name(runner, session):
    make_team(session, "Team A")
    result = runner.invoke(args=["token", "create", "--team", "Nobody", "--name", "ci"])
    assert result.exit_code == 1
    assert "Error: No team named 'Nobody' (see 'leaderboard team list')." in result.output
    result = runner.invoke(args=["token", "revoke", "--team", "Team A", "--name", "ci"])
    assert result.exit_code == 1
    assert "Error: Team 'Team A' has no live token named 'ci'." in result.output


def test_team_create_with_generated_password_and_link(runner, app, session, client):
    result = runner.invoke(args=["team", "create", "Lexical Lions", "--email", "l@example.org"])
    assert result.exit_code == 0, result.output
    assert "Created team 'Lexical Lions' (id 1) with member l@example.org." in result.output
    password = re.search(r"^Generated password: (\S+)$", result.output, re.M).group(1)
    assert login(client, "l@example.org", password).status_code == 302
    # The set-password link lets the member choose their own.
    path = LINK_RE.search(result.output).group(1)
    other = app.test_client()
    page = other.get(path)
    assert page.status_code == 200
    token = csrf_token_from(page.get_data(as_text=True))
    assert other.post(path, data={"password": "chosen by me", "confirm": "chosen by me",
                                  "csrf_token": token}).status_code == 302
    assert login(app.test_client(), "l@example.org", "chosen by me").status_code == 302
    assert other.get(path).status_code == 400


def test_team_create_with_password_and_duplicates(runner, session):
    result = runner.invoke(args=["team", "create", "A", "--email", "a@example.org",
                                 "--password", "given password"])
    assert result.exit_code == 0
    assert "Generated password" not in result.output
    result = runner.invoke(args=["team", "create", "a", "--email", "b@example.org"])
    assert result.exit_code == 1
    assert "Error: The team name 'a' is taken." in result.output
    result = runner.invoke(args=["team", "create", "B", "--email", "A@example.org"])
    assert result.exit_code == 1
    assert "Error: An account with that e-mail already exists." in result.output
    result = runner.invoke(args=["team", "create", "C", "--email", "c@example.org",
                                 "--password", "short"])
    assert result.exit_code == 1
    assert "Error: Password must be at least 8 characters." in result.output
    assert [t.name for t in session.exec(select(Team)).all()] == ["A"]


def test_team_list(runner, session):
    assert "No teams yet." in runner.invoke(args=["team", "list"]).output
    team, _ = make_team(session, "Beta", email="b@example.org")
    make_team(session, "alpha", email="a@example.org")
    team.disabled = True
    session.add(team)
    session.commit()
    runner.invoke(args=["token", "create", "--team", "Beta", "--name", "ci"])
    result = runner.invoke(args=["team", "list"])
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "2\talpha\ta@example.org\t0 live token(s)",
        "1\tBeta [disabled]\tb@example.org\t1 live token(s)",
    ]


def test_admin_create_new_and_promote(runner, app, session):
    result = runner.invoke(args=["admin", "create", "boss@example.org", "--password",
                                 "boss password"])
    assert result.exit_code == 0
    assert result.output == "Created admin boss@example.org (no team).\n"
    boss = session.exec(select(User).where(User.email == "boss@example.org")).one()
    assert (boss.is_admin, boss.team_id) == (True, None)
    client = app.test_client()
    assert login(client, "boss@example.org", "boss password").status_code == 302
    home = client.get("/account/").get_data(as_text=True)
    assert "This account belongs to no team, so it cannot submit." in home
    assert client.get("/account/tokens").status_code == 403

    make_team(session, "Team A", email="a@example.org")
    result = runner.invoke(args=["admin", "create", "A@example.org"])
    assert result.exit_code == 0
    assert result.output == "a@example.org is now an admin.\n"
    session.expire_all()
    member = session.exec(select(User).where(User.email == "a@example.org")).one()
    assert member.is_admin and member.team_id is not None
    assert login(app.test_client(), "a@example.org").status_code == 302


def test_admin_create_generates_password(runner, app):
    result = runner.invoke(args=["admin", "create", "root@example.org"])
    assert result.exit_code == 0
    password = re.search(r"^Generated password: (\S+)$", result.output, re.M).group(1)
    assert login(app.test_client(), "root@example.org", password).status_code == 302
