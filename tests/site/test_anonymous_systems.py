"""A team makes a system anonymous when uploading (form, token API, CLI) or later (form,
PATCH), with an optional reveal date; the public sees it masked at once, its team sees it
whole, and a reveal (by hand or on its date) names it at the same permalink."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

from click.testing import CliRunner
from sqlmodel import select

from leaderboard.commands.submit import submit_command
from leaderboard.models import Submission, System, SystemEdit, Team, User
from leaderboard.services.intake.systems import reveal_due
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_token
from tests.live_site import serving
from tests.site.anon_seed import ANON_SYSTEM, PAPER, TEAM, seed_anonymous
from tests.site.seed import demo_file, variant


def _token(session, team_id: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(session, session.get(Team, team_id))}"}


def _system(session, slug: str) -> System:
    session.expire_all()
    return session.exec(select(System).where(System.slug == slug)).one()


def _names(client) -> list[str]:
    return [r["system"] for r in client.get("/api/v1/leaderboard?entries=all").get_json()["rows"]]


def test_the_api_upload_makes_the_system_anonymous_with_a_reveal_date(client, session, seeded):
    mine = _token(session, seeded.teams["North Lab"])
    raw = json.dumps(demo_file("demo_weak")).encode()
    response = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Blind ranker", "anonymous": "true", "reveal_on": "2027-03-15",
        "paper_url": "https://arxiv.org/abs/1", "file": (io.BytesIO(raw), "weak.json")})
    assert response.status_code == 202
    shown = response.get_json()["system"]
    system = _system(session, shown["id"])
    assert system.anonymous and len(system.anonymous_tag) == 4
    assert shown == {"id": system.slug, "name": "Blind ranker", "anonymous": True,
                     "public_name": f"Anonymous {system.anonymous_tag}",
                     "reveal_on": "2027-03-15"}
    edits = session.exec(select(SystemEdit).where(SystemEdit.system_id == system.id)).all()
    assert {(e.field, e.new, e.via) for e in edits} >= {("anonymous", "true", "upload"),
                                                         ("reveal_on", "2027-03-15", "upload")}
    bad = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Blind ranker", "anonymous": "true", "reveal_on": "15/03/2027",
        "file": (io.BytesIO(raw + b" "), "weak.json")})
    assert bad.status_code == 400 and "YYYY-MM-DD" in bad.get_json()["error"]["message"]
    # an upload never names a system: a later upload without the flag leaves it anonymous
    again = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Blind ranker", "anonymous": "false",
        "file": (io.BytesIO(raw + b"  "), "weak.json")})
    assert again.status_code == 202 and _system(session, system.slug).anonymous


def test_the_upload_form_makes_the_system_anonymous(client, session, seeded):
    email = session.exec(select(User.email).where(
        User.team_id == seeded.teams["South Lab"])).first()
    login(client, email)
    token = csrf_token_from(client.get("/account/submit").get_data(as_text=True))
    response = client.post("/account/submit", data={
        "csrf_token": token, "name": "Form blind", "anonymous": "y", "reveal_on": "",
        "file": (io.BytesIO(json.dumps(demo_file("demo_weak")).encode()), "weak.json")})
    assert response.status_code == 303
    system = session.exec(select(System).where(System.name == "Form blind")).one()
    assert system.anonymous and system.reveal_on is None and system.anonymous_tag


def test_the_cli_submits_anonymous_with_a_reveal_date(app, session, seeded, tmp_path):
    token = make_token(session, session.get(Team, seeded.teams["East Lab"]))
    path = str(tmp_path / "weak.json")
    (tmp_path / "weak.json").write_text(json.dumps(variant(demo_file("demo_strong"), 6)))
    runner = CliRunner()
    with serving(app) as base:
        done = runner.invoke(submit_command, [path, "--url", base, "--token", token,
                                              "--system", "CLI blind", "--anonymous",
                                              "--reveal-on", "2027-01-31"])
        refused = runner.invoke(submit_command, [path, "--url", base, "--token", token,
                                                 "--reveal-on", "2027-01-31"])
    assert done.exit_code == 0, done.output
    session.expire_all()
    system = session.exec(select(System).where(System.name == "CLI blind")).one()
    assert system.anonymous and system.reveal_on.date().isoformat() == "2027-01-31"
    assert f"the public sees 'Anonymous {system.anonymous_tag}' until 2027-01-31" in done.output
    assert refused.exit_code == 2 and "--reveal-on needs --anonymous" in refused.output


@ALL_DATABASES
def test_patch_masks_at_once_and_the_reveal_names_it_at_the_same_permalink(
        client, session, seeded):
    """Marked anonymous, a system leaves every name-bearing surface at the next request,
    before any refresh (the read path masks from the database); revealed, its page names it
    at once, the board after the refresh the reveal asks for."""
    north = _token(session, seeded.teams["North Lab"])
    sub = session.get(Submission, seeded.public["Contextual ranker"])
    system = session.get(System, sub.system_id)
    assert "Contextual ranker" in _names(client)
    response = client.patch(f"/api/v1/systems/{system.slug}", headers=north,
                            json={"anonymous": True, "reveal_on": "2027-05-01"})
    assert response.status_code == 200
    body = response.get_json()
    tag = _system(session, system.slug).anonymous_tag
    assert (body["anonymous"], body["public_name"], body["reveal_on"], body["changed"]) == (
        True, f"Anonymous {tag}", "2027-05-01", ["anonymous", "reveal_on"])
    names = _names(client)
    assert "Contextual ranker" not in names and f"Anonymous {tag}" in names
    assert client.get(f"/systems/{sub.id}").status_code == 404
    page = client.get(f"/systems/{system.slug}").get_data(as_text=True)
    assert f"Anonymous {tag}" in page and f"/teams/{seeded.teams['North Lab']}" not in page
    assert "North Lab" in client.get(f"/teams/{seeded.teams['North Lab']}").get_data(
        as_text=True)
    assert "Contextual ranker" not in client.get(
        f"/teams/{seeded.teams['North Lab']}").get_data(as_text=True)
    named = client.patch(f"/api/v1/systems/{system.slug}", headers=north,
                         json={"anonymous": False})
    assert named.get_json()["changed"] == ["anonymous", "reveal_on"]
    page = client.get(f"/systems/{system.slug}").get_data(as_text=True)
    assert "Contextual ranker" in page and "North Lab" in page and "named since" in page
    session.expire_all()  # the PATCH was another session's
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    assert "Contextual ranker" in _names(client) and f"Anonymous {tag}" not in _names(client)


@ALL_DATABASES
def test_the_reveal_date_passing_names_the_system_and_asks_for_its_boards(
        app, session):
    anon = seed_anonymous(session)
    system = _system(session, anon.system_slug)
    system.reveal_on = datetime(2027, 2, 1, tzinfo=UTC)
    session.add(system)
    session.commit()
    asked: list[dict[int, list[int]]] = []
    assert reveal_due(session=session, now=datetime(2027, 1, 31, 23, 59, tzinfo=UTC),
                      request_refresh=asked.append) == []
    assert reveal_due(session=session, now=datetime(2027, 2, 1, tzinfo=UTC),
                      request_refresh=asked.append) == [anon.system_slug]
    assert asked == [{anon.seeded.board_id: anon.anon_ids}]
    system = _system(session, anon.system_slug)
    assert not system.anonymous and system.reveal_on is None
    edit = session.exec(select(SystemEdit).where(SystemEdit.system_id == system.id,
                                                 SystemEdit.field == "anonymous")).all()[-1]
    assert (edit.old, edit.new, edit.via) == ("true", "false", "reveal")
    page = app.test_client().get(f"/systems/{anon.system_slug}").get_data(as_text=True)
    assert ANON_SYSTEM in page and TEAM in page and PAPER in page


def test_the_team_sees_its_anonymous_system_whole(app, session):
    anon = seed_anonymous(session)
    client = app.test_client()
    member = session.exec(select(User.email).where(User.team_id == anon.team_id)
                          .order_by(User.id)).first()
    login(client, member)
    page = client.get(f"/systems/{anon.system_slug}").get_data(as_text=True)
    assert ANON_SYSTEM in page and TEAM in page and PAPER in page
    assert f"the public sees this system as <strong>Anonymous {anon.tag}</strong>" in page
    assert client.get(f"/systems/{anon.anon_ids[0]}").status_code == 200
    assert ANON_SYSTEM in client.get(f"/teams/{anon.team_id}").get_data(as_text=True)
    form = client.get(f"/account/systems/{anon.system_slug}").get_data(as_text=True)
    assert 'name="anonymous"' in form and 'name="reveal_on"' in form
    public = app.test_client()
    assert ANON_SYSTEM not in public.get(f"/teams/{anon.team_id}").get_data(as_text=True)
    assert public.get(f"/systems/{anon.anon_ids[0]}").status_code == 404


def test_the_system_form_reveals_by_hand(app, session):
    anon = seed_anonymous(session)
    client = app.test_client()
    login(client, session.exec(select(User.email).where(User.team_id == anon.team_id)
                               .order_by(User.id)).first())
    page = client.get(f"/account/systems/{anon.system_slug}").get_data(as_text=True)
    saved = client.post(f"/account/systems/{anon.system_slug}", data={
        "csrf_token": csrf_token_from(page), "anonymous": "no", "reveal_on": ""})
    assert saved.status_code == 303
    assert not _system(session, anon.system_slug).anonymous
    shown = app.test_client().get(f"/systems/{anon.system_slug}").get_data(as_text=True)
    assert ANON_SYSTEM in shown and "named since" in shown


def test_the_rankers_beat_reveals_a_due_system_and_queues_its_board(app, session):
    """The ranker's periodic look: a system whose reveal date has passed is named, and its
    board gets a refresh job on the real queue."""
    from leaderboard.infra.queue import refresh_keys
    from leaderboard.ranker.refresh import reveal_due_systems

    anon = seed_anonymous(session)
    system = _system(session, anon.system_slug)
    system.reveal_on = datetime(2020, 1, 1, tzinfo=UTC)
    session.add(system)
    session.commit()
    from leaderboard.infra.redis_conn import connect_redis

    settings = app.config["LEADERBOARD"]
    connection = connect_redis(settings["REDIS_URL"], settings["INSTANCE_PATH"])
    queue = settings["QUEUE_NAME"]
    engine = app.extensions["db_engine"]
    assert reveal_due_systems(connection, queue, engine) == [anon.system_slug]
    assert reveal_due_systems(connection, queue, engine) == []
    assert connection.get(refresh_keys(anon.seeded.board_id, queue)["pending"]) is not None
    assert not _system(session, anon.system_slug).anonymous
