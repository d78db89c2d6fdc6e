"""Visibility: a disabled team's systems are 404 to the public everywhere, compare included;
an upload that was never scored has no public page."""

from __future__ import annotations

import hashlib
import re

import pytest

from leaderboard.models import Submission, SubmissionStatus, System
from leaderboard.services.intake.admin import set_team_disabled
from tests.backends import ALL_DATABASES


@ALL_DATABASES
def test_disabled_teams_systems_are_404_everywhere(client, session, seeded):
    south = seeded.public["Thesaurus baseline"]
    north = seeded.public["Contextual ranker"]
    assert client.get(f"/systems/{south}").status_code == 200
    assert client.get(f"/systems/{north}?compare={south}",
                      follow_redirects=True).status_code == 200
    assert client.get(f"/compare?a={north}&b={south}").status_code == 200
    assert client.get(f"/api/v1/compare?a={north}&b={south}").status_code == 200
    set_team_disabled(session, team_id=seeded.teams["South Lab"], disabled=True,
                      reason="probing", actor_id=None)
    assert client.get(f"/systems/{south}").status_code == 404
    # ?compare= on a system page redirects to /compare, which refuses the hidden side too.
    assert client.get(f"/systems/{north}?compare={south}",
                      follow_redirects=True).status_code == 404
    assert client.get(f"/systems/{south}?compare={north}",
                      follow_redirects=True).status_code == 404
    assert client.get(f"/compare?a={north}&b={south}").status_code == 404
    assert client.get(f"/api/v1/compare?a={south}&b={north}").status_code == 404
    assert client.get(f"/teams/{seeded.teams['South Lab']}").status_code == 404
    for path in ("/", "/leaderboard.csv", "/leaderboard.json", "/api/v1/leaderboard",
                 f"/systems/{north}"):
        response = client.get(path)
        assert response.status_code == 200, path
        text = response.get_data(as_text=True)
        assert "Thesaurus baseline" not in text and "South Lab" not in text, path
    assert client.get(f"/systems/{north}").status_code == 200


@ALL_DATABASES
@pytest.mark.parametrize("status", [SubmissionStatus.INVALID, SubmissionStatus.FAILED,
                                    SubmissionStatus.QUEUED, SubmissionStatus.RUNNING])
def test_unscored_public_upload_has_no_public_page(client, session, seeded, status):
    raw = b'{"substitutes": {}}'
    system = System(team_id=seeded.teams["East Lab"], name="Never scored",
                    description="secret plans")
    session.add(system)
    session.flush()
    row = Submission(team_id=seeded.teams["East Lab"], split_id=seeded.split_id,
                     board_id=seeded.board_id, system_id=system.id,
                     system_name="Never scored",
                     filename="mine.json", file_bytes=raw, file_size=len(raw),
                     file_sha256=hashlib.sha256(raw).hexdigest(), status=status,
                     is_public=True)
    session.add(row)
    session.commit()
    for url in (f"/systems/{row.id}", f"/systems/{system.slug}"):
        response = client.get(url)
        assert response.status_code == 404
        assert "secret plans" not in response.get_data(as_text=True)
    team_page = client.get(f"/teams/{seeded.teams['East Lab']}").get_data(as_text=True)
    assert "Never scored" not in team_page


def _anonymous_and_other_team(app) -> list:
    """An anonymous client and a member of another team (North Lab), logged in."""
    from tests.factories import login

    anonymous, north = app.test_client(), app.test_client()
    assert login(north, "north-lab@example.org").status_code == 302
    return [anonymous, north]


@ALL_DATABASES
def test_held_submission_answers_everybody_else_as_a_private_one(app, session, seeded):
    """A published submission the Ladder held is shown to its team and the
    hosts only; to anybody else every page answers as for a private one, byte for byte."""
    from leaderboard.models import ReleaseState
    from leaderboard.services.ranking.snapshots import refresh_snapshot
    from tests.factories import login, make_team

    held_id, private_id = seeded.public["Frequency baseline"], seeded.private_id
    north = seeded.public["Contextual ranker"]
    held = session.get(Submission, held_id)
    held.release_state = ReleaseState.HELD
    held.release_detail = {"against_id": private_id, "against_system": "Secret system",
                           "metric_label": "F^10 strict", "against_value": 12.5}
    session.add(held)
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    east_team = f"/teams/{seeded.teams['East Lab']}"
    pairs = [("/systems/{id}", 404), ("/systems/{id}?compare=" + str(north), 404),
             ("/compare?a={id}&b=" + str(north), 404),
             ("/api/v1/compare?a=" + str(north) + "&b={id}", 404),
             ("/significance?around={id}", 400), ("/api/v1/significance?around={id}", 400)]
    team_pages, others = [], _anonymous_and_other_team(app)
    for who in others:
        for route, status in pairs:
            as_held = who.get(route.format(id=held_id), follow_redirects=True)
            as_private = who.get(route.format(id=private_id), follow_redirects=True)
            assert as_held.status_code == as_private.status_code == status, route
            # The significance window names the id it was asked for: "submission N is not
            # ranked on this board's ..."
            echoed = f"submission {private_id} ", f"submission {held_id} "
            assert _without_csrf(as_held.get_data(as_text=True)) == _without_csrf(
                as_private.get_data(as_text=True)).replace(*echoed), route
        text = who.get(east_team).get_data(as_text=True)
        assert "Frequency baseline" not in text and "held" not in text
        team_pages.append(text)

    # The team reads it, held, with the whole reason; so does a host.
    east = app.test_client()
    assert login(east, "east-lab@example.org").status_code == 302
    page = east.get(f"/systems/{held_id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "held: not significantly better than your best, Secret system" in text
    assert 'badge-private">held</span>' in text
    assert "Frequency baseline" in east.get(east_team).get_data(as_text=True)
    make_team(session, "Host Lab", email="host@example.org", is_admin=True)
    host = app.test_client()
    assert login(host, "host@example.org").status_code == 302
    assert host.get(f"/systems/{held_id}").status_code == 200

    # The same team page as if the team had kept it private: nothing tells the two apart.
    held.release_state, held.release_detail, held.is_public = ReleaseState.UNDECIDED, {}, False
    session.add(held)
    session.commit()
    after = [who.get(east_team).get_data(as_text=True) for who in others]
    # A CSRF token carries the second it was made: the only part two fetches may differ in.
    assert [_without_csrf(page) for page in after] == [_without_csrf(p) for p in team_pages]


def _without_csrf(page: str) -> str:
    return re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token"', page)
