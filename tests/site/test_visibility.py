"""Visibility: a disabled team's systems are 404 to the public everywhere, compare included;
an upload that was never scored has no public page."""

from __future__ import annotations

import hashlib

import pytest

from leaderboard.models import Submission, SubmissionStatus
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
    row = Submission(team_id=seeded.teams["East Lab"], benchmark_id=seeded.benchmark_id,
                     board_id=seeded.board_id,
                     system_name="Never scored", description="secret plans",
                     filename="mine.json", file_bytes=raw, file_size=len(raw),
                     file_sha256=hashlib.sha256(raw).hexdigest(), status=status,
                     is_public=True)
    session.add(row)
    session.commit()
    response = client.get(f"/systems/{row.id}")
    assert response.status_code == 404
    assert "secret plans" not in response.get_data(as_text=True)
    team_page = client.get(f"/teams/{seeded.teams['East Lab']}").get_data(as_text=True)
    assert "Never scored" not in team_page
