"""A system is one across boards: its page lists its rank and headline on each board it has a
public result on; its metadata is edited by its team only (form and token API) with every
change kept; a withdrawn submission leaves every public surface."""

from __future__ import annotations

import io
import json
import re

import pytest
from sqlmodel import select

from leaderboard.models import Result, Submission, System, SystemEdit, Team, User
from leaderboard.services.catalog.benchmarks import import_benchmark
from leaderboard.services.intake.admin import list_submissions
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import csrf_token_from, login, make_token
from tests.site.seed import _store, demo_file, demo_split

SWORDS_DEMO = "swords-demo-v1-test-generative"


def _system(session, seeded, name: str = "Contextual ranker") -> System:
    return session.get(System, session.get(Submission, seeded.public[name]).system_id)


def _auth(session, seeded, team: str = "North Lab") -> dict[str, str]:
    return {"Authorization": f"Bearer {make_token(session, session.get(Team, seeded.teams[team]))}"}


@pytest.fixture
def two_boards(session, seeded) -> int:
    """The demo split again as a public dev board, with North Lab's Contextual ranker and
    East Lab's Frequency baseline on it; the dev board's id."""
    dev = import_benchmark(session=session, raw=json.dumps(demo_split()).encode(),
                           name="swords-demo", version="1", split="dev", hidden=False,
                           bootstrap=200)
    strong = _store(session, dev, session.get(Team, seeded.teams["North Lab"]),
                    "Contextual ranker", demo_file("demo_strong"))
    _store(session, dev, session.get(Team, seeded.teams["East Lab"]), "Frequency baseline",
           demo_file("demo_weak"))
    session.commit()
    refresh_snapshot(session=session, board_id=strong.board_id)
    session.commit()
    return strong.board_id


def _results(html: str) -> list[str]:
    body = html.split('id="results-caption"')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_the_system_page_lists_its_rank_on_two_boards(client, session, seeded, two_boards):
    system = _system(session, seeded)
    dev_sub = session.exec(select(Submission).where(Submission.board_id == two_boards,
                                                    Submission.system_id == system.id)).one()
    assert dev_sub.system_name == "Contextual ranker"   # one system, two boards
    ranking = client.get(f"/api/v1/leaderboards/{SWORDS_DEMO}/ranking?entries=all").get_json()
    mine = next(r for r in ranking["rows"] if r["id"] == seeded.public["Contextual ranker"])
    head = mine["metrics"][ranking["headline"]]
    response = client.get(f"/systems/{system.slug}")
    assert response.status_code == 200
    rows = _results(response.get_data(as_text=True))
    assert len(rows) == 2
    test_row = next(r for r in rows if r.startswith("swords-demo 1 test"))
    dev_row = next(r for r in rows if r.startswith("swords-demo 1 dev"))
    # the ranking's own rank, rank interval and headline (1 decimal on SWORDS)
    assert f"{mine['rank']} of 5 {mine['rank_lo']}–{mine['rank_hi']}" in test_row
    assert f"{head['value']:.1f}"[:-1] in test_row
    # two systems on dev: the strong file first, tested against the weak one below it
    assert " 1 of 2 " in f" {dev_row} "
    assert re.search(r"(significantly above|not significantly different from) Frequency "
                     r"baseline \(East Lab, p (= [0-9.]+|&lt; 0.001)\)", dev_row)
    assert re.fullmatch(r"[a-z][a-z2-7]{9}", system.slug)
    # each row links its result's frozen record and certificate
    page = response.get_data(as_text=True)
    record = session.exec(select(Result.public_id).where(
        Result.submission_id == dev_sub.id, Result.is_current)).one()
    assert f'href="/results/{record}">permalink</a>' in page
    assert client.get(f"/results/{record}/certificate.json").get_json()["result"] == record
    # the API gives the same across boards
    api = client.get(f"/api/v1/systems/{system.slug}").get_json()
    assert api["id"] == system.slug and api["name"] == "Contextual ranker"
    assert api["team"]["id"] == system.team_id and api["anonymous"] is False
    test_api = next(r for r in api["results"] if r["leaderboard"] == SWORDS_DEMO)
    assert (test_api["rank"], test_api["of"]) == (mine["rank"], 5)
    assert {r["result"] for r in api["results"]} >= {record}
    assert client.get("/api/v1/systems/nosuchsys1").status_code == 404


def test_another_teams_patch_is_404_and_the_owners_edits_are_all_kept(client, session,
                                                                        seeded):
    system = _system(session, seeded)
    url = f"/api/v1/systems/{system.slug}"
    other = client.patch(url, json={"description": "stolen"}, headers=_auth(session, seeded,
                                                                            "South Lab"))
    assert other.status_code == 404
    assert other.get_json()["error"]["code"] == "not_found"
    mine = _auth(session, seeded)
    first = client.patch(url, json={"paper_url": "https://arxiv.org/abs/2106.04102",
                                    "parameter_count": 340000000, "open_weights": True},
                         headers=mine)
    assert first.status_code == 200, first.get_json()
    assert first.get_json()["changed"] == ["paper_url", "parameter_count", "open_weights"]
    second = client.patch(url, json={"description": "BERT ranker", "open_weights": False,
                                     "extra_resources": "WordNet"}, headers=mine)
    assert second.get_json()["open_weights"] is False
    edits = session.exec(select(SystemEdit).where(SystemEdit.system_id == system.id)
                         .order_by(SystemEdit.id)).all()
    assert [(e.field, e.old, e.new, e.via) for e in edits] == [
        ("paper_url", "", "https://arxiv.org/abs/2106.04102", "api"),
        ("parameter_count", "", "340000000", "api"),
        ("open_weights", "", "true", "api"),
        ("description", "Contextual ranker: a demo system.", "BERT ranker", "api"),
        ("extra_resources", "", "WordNet", "api"),
        ("open_weights", "true", "false", "api")]
    html = client.get(f"/systems/{system.slug}").get_data(as_text=True)
    history = html.split('id="history-caption"')[1]
    assert len(re.findall(r"<tr><td><time", history)) == 6
    assert "<td>open weights</td><td>true</td><td>false</td><td>api</td>" in history
    assert '<a href="https://arxiv.org/abs/2106.04102" rel="nofollow noopener">' in html
    assert "340,000,000" in html


@pytest.mark.parametrize("url", ["https://exa mple.org/x", "ftp://example.org/x",
                                 "https:///nohost", "javascript:alert(1)"])
def test_a_bad_url_is_refused_with_a_clear_error(client, session, seeded, url):
    system = _system(session, seeded)
    response = client.patch(f"/api/v1/systems/{system.slug}", json={"code_url": url},
                            headers=_auth(session, seeded))
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "bad_url"
    assert error["message"].startswith("the code URL must be an http:// or https:// address")
    session.refresh(system)
    assert system.code_url == ""


def test_a_stored_url_that_is_not_valid_is_shown_as_text(client, session, seeded):
    system = _system(session, seeded)
    system.paper_url = "https://exa mple.org/paper"   # as an older row may hold it
    session.add(system)
    session.commit()
    html = client.get(f"/systems/{system.slug}").get_data(as_text=True)
    assert "https://exa mple.org/paper" in html
    assert 'href="https://exa mple.org/paper"' not in html


def test_the_form_edits_the_teams_own_system_only(app, client, session, seeded):
    system = _system(session, seeded)
    south = app.test_client()
    assert login(south, _members(session, seeded.teams["South Lab"])[0]).status_code == 302
    assert south.get(f"/account/systems/{system.slug}").status_code == 404
    assert login(client, _members(session, seeded.teams["North Lab"])[0]).status_code == 302
    page = client.get(f"/account/systems/{system.slug}")
    assert page.status_code == 200
    form = {"csrf_token": csrf_token_from(page.get_data(as_text=True)),
            "description": "Contextual ranker: a demo system.", "paper_url": "",
            "code_url": "https://github.com/example/ranker", "base_model": "bert-large",
            "extra_resources": "", "parameter_count": "", "external_llm_api": "no",
            "open_weights": ""}
    saved = client.post(f"/account/systems/{system.slug}", data=form)
    assert saved.status_code == 303
    assert saved.headers["Location"].endswith(f"/systems/{system.slug}")
    edits = session.exec(select(SystemEdit).where(SystemEdit.system_id == system.id)).all()
    assert sorted((e.field, e.new, e.via) for e in edits) == [
        ("base_model", "bert-large", "form"), ("code_url", "https://github.com/example/ranker",
                                               "form"), ("external_llm_api", "false", "form")]
    bad = client.post(f"/account/systems/{system.slug}", data={**form, "code_url": "www.x"})
    assert bad.status_code == 400
    assert "the code URL must be an http:// or https:// address" in bad.get_data(as_text=True)


def _members(session, team_id: int) -> list[str]:
    return [u.email for u in session.exec(select(User).where(User.team_id == team_id))]


def test_withdraw_removes_it_from_every_public_surface(client, session, seeded, two_boards):
    sid = seeded.public["Contextual ranker"]
    system = _system(session, seeded)
    mine = _auth(session, seeded)
    assert client.delete(f"/api/v1/submissions/{sid}", headers=mine).get_json() == {
        "id": sid, "is_public": False, "withdrawn": True}
    ranking = client.get(f"/api/v1/leaderboards/{SWORDS_DEMO}/ranking?entries=all").get_json()
    assert sid not in [r["id"] for r in ranking["rows"]]
    assert len(ranking["rows"]) == 4
    assert "Contextual ranker" not in client.get("/").get_data(as_text=True)
    assert client.get(f"/systems/{sid}").status_code == 404
    # the system keeps its other board's result, and only that one
    rows = _results(client.get(f"/systems/{system.slug}").get_data(as_text=True))
    assert [r.split(" · ")[0] for r in rows] == ["swords-demo 1 dev"]
    again = client.post(f"/api/v1/submissions/{sid}/publish", headers=mine)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "withdrawn"
    assert client.delete(f"/api/v1/submissions/{sid}",
                         headers=_auth(session, seeded, "South Lab")).status_code == 404
    row = session.get(Submission, sid)
    session.refresh(row)
    assert row.withdrawn_at is not None and row.status == "scored"   # kept for the hosts
    assert sid in [s.id for s, _team, _board in list_submissions(session)]


def test_publish_and_unpublish_through_the_api(client, session, seeded):
    sid = seeded.private_id
    east = _auth(session, seeded, "East Lab")
    ranking = f"/api/v1/leaderboards/{SWORDS_DEMO}/ranking?entries=all"
    assert client.post(f"/api/v1/submissions/{sid}/publish",
                       headers=_auth(session, seeded, "North Lab")).status_code == 404
    assert client.post(f"/api/v1/submissions/{sid}/publish", headers=east).get_json()[
        "is_public"] is True
    assert client.get(f"/systems/{sid}").status_code == 200
    assert client.post(f"/api/v1/submissions/{sid}/unpublish", headers=east).get_json()[
        "is_public"] is False
    assert sid not in [r["id"] for r in client.get(ranking).get_json()["rows"]]
    assert client.get(f"/systems/{sid}").status_code == 404


def test_uploads_choose_or_make_the_system_by_name(client, session, seeded):
    mine = _auth(session, seeded)
    system = _system(session, seeded)
    raw = json.dumps(demo_file("demo_weak")).encode()
    response = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Contextual ranker", "file": (io.BytesIO(raw), "weak.json")})
    assert response.status_code == 202
    assert response.get_json()["system"] == {"id": system.slug, "name": "Contextual ranker",
                                             "anonymous": False,
                                             "public_name": "Contextual ranker",
                                             "reveal_on": None}
    made = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Brand new", "code_url": "https://github.com/x/y",
        "file": (io.BytesIO(raw + b" "), "weak.json")}).get_json()["system"]
    new = session.exec(select(System).where(System.slug == made["id"])).one()
    assert (new.name, new.team_id, new.code_url) == ("Brand new", seeded.teams["North Lab"],
                                                      "https://github.com/x/y")
    bad = client.post("/api/v1/submissions", headers=mine, data={
        "system": "Brand new", "paper_url": "http://a b",
        "file": (io.BytesIO(raw + b"  "), "weak.json")})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "bad_url"
