"""Admin queue-health page: submissions that differ from an earlier one on few targets, and
teams created from one address."""

from __future__ import annotations

import hashlib
import json

import pytest
from sqlmodel import select

from leaderboard.infra.queue import get_redis
from leaderboard.models import Submission, SubmissionStatus, Team
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.catalog.boards import import_board
from leaderboard.services.intake.probing import address_clusters, differing_targets, near_duplicates
from leaderboard.worker import jobs
from tests.backends import ALL_DATABASES
from tests.demo import DEMO_SPLIT, target_ids
from tests.factories import csrf_token_from, login, make_team
from tests.jobs import drain

IDS = target_ids()


@pytest.fixture
def split(session):
    return import_benchmark(session=session, raw=DEMO_SPLIT.read_bytes(), name="swords-demo",
                            version="1", split="test", hidden=True, make_default=True)


def store(session, team, split, substitutes: dict, status=SubmissionStatus.SCORED) -> int:
    raw = json.dumps({"substitutes": substitutes}).encode()
    row = Submission(team_id=team.id, split_id=split.id,
                     board_id=import_board(session, split).id, system_name="s",
                     file_bytes=raw, file_size=len(raw),
                     file_sha256=hashlib.sha256(raw).hexdigest(), status=status)
    session.add(row)
    session.commit()
    return row.id


def full(word: str) -> dict:
    return {t: [[word, 1.0]] for t in IDS}


def test_differing_targets_by_hand():
    a = {"t1": (("x", 1.0),), "t2": ("y",)}
    assert differing_targets(a, a) == 0
    assert differing_targets(a, {"t1": (("x", 1.0),), "t2": ("z",)}) == 1
    assert differing_targets(a, {"t1": (("x", 1.0),), "t3": ("y",)}) == 2


@ALL_DATABASES
def test_near_duplicate_submissions_are_flagged_on_the_admin_page(client, session, split):
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    prober, _ = make_team(session, name="Prober", email="p@example.org")
    honest, _ = make_team(session, name="Honest", email="h@example.org")
    first = store(session, prober, split, full("base"))
    # Same file but one target's candidate changed: its score delta reads that label back.
    probe = store(session, prober, split, {**full("base"), IDS[3]: [["probe", 1.0]]})
    store(session, prober, split, {**full("base"), IDS[4]: [["x", 1.0]]},
          status=SubmissionStatus.INVALID)  # not scored: nothing was learnt from it
    store(session, honest, split, full("one"))
    store(session, honest, split, full("two"))  # differs on all 13 targets
    flags = near_duplicates(session)
    assert [(f.team_name, f.submission_id, f.earlier_id, f.differing, f.n_targets)
            for f in flags] == [("Prober", probe, first, 1, 13)]
    assert login(client, "host@example.org").status_code == 302
    page = client.get("/admin/").get_data(as_text=True)
    assert "Possible label probing" in page
    assert 'id="near-duplicates-pending"' in page  # a worker compares the files, not the page
    settings = client.application.config["LEADERBOARD"]
    jobs.configure(settings=settings, engine=client.application.extensions["db_engine"])
    with client.application.app_context():
        drain(get_redis(), settings)
    page = client.get("/admin/").get_data(as_text=True)
    assert f"<td>#{probe}</td><td>#{first}</td>\n    <td>1 of 13</td>" in page
    assert "Honest" not in page.split('id="near-duplicates"')[1].split("</table>")[0]


@ALL_DATABASES
def test_teams_signed_up_from_one_address_are_clustered(app, client, session):
    def signup(team: str, email: str, ip: str) -> int:
        c = app.test_client()
        token = csrf_token_from(c.get("/account/signup",
                                      environ_base={"REMOTE_ADDR": ip}).get_data(as_text=True))
        return c.post("/account/signup", environ_base={"REMOTE_ADDR": ip}, data={
            "csrf_token": token, "team_name": team, "email": email,
            "password": "correct horse battery", "confirm": "correct horse battery"},
        ).status_code

    assert signup("Sock One", "s1@example.org", "203.0.113.7") == 200
    assert signup("Sock Two", "s2@example.org", "203.0.113.7") == 200
    assert signup("Elsewhere", "e@example.org", "198.51.100.1") == 200
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)  # CLI-like
    rows = {t.name: t.signup_ip for t in session.exec(select(Team)).all()}
    assert rows == {"Sock One": "203.0.113.7", "Sock Two": "203.0.113.7",
                    "Elsewhere": "198.51.100.1", "Hosts": None}
    clusters = address_clusters(session)
    assert [(ip, [t.name for t in teams]) for ip, teams in clusters] == [
        ("203.0.113.7", ["Sock One", "Sock Two"])]
    assert login(client, "host@example.org").status_code == 302
    page = client.get("/admin/").get_data(as_text=True)
    assert "<tr><td>203.0.113.7</td><td>2: Sock One, Sock Two</td></tr>" in page

