"""The owner's pages of a held (Ladder) submission say that it is held and why, and offer
no comparison (a held system is on none: its links would answer 404)."""

from __future__ import annotations

import io

from leaderboard.models import ReleaseState, Submission
from leaderboard.worker import jobs
from tests.demo import demo_bytes
from tests.factories import login, make_team, make_token


def _scored_public(app, client, token: str, stem: str, name: str) -> int:
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"system_name": name, "public": "1",
                                 "file": (io.BytesIO(demo_bytes(stem)), "r.json")})
    assert response.status_code == 202, response.get_data(as_text=True)
    sid = response.get_json()["id"]
    assert jobs.score_submission_job(sid) == "scored"
    return sid


def test_the_owner_reads_that_a_held_submission_is_held_and_has_no_compare_links(
        app, client, session, benchmark, team_token):
    _team, user, token = team_token
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    other, _ = make_team(session, name="Lab Two", email="two@example.org")
    released = _scored_public(app, client, make_token(session, other), "demo_baseline", "Base")
    third, _ = make_team(session, name="Lab Three", email="three@example.org")
    _scored_public(app, client, make_token(session, third), "demo_weak", "Weak")
    held = _scored_public(app, client, token, "demo_strong", "Strong")
    row = session.get(Submission, held)
    row.release_state = ReleaseState.HELD
    row.release_detail = {"against_id": released, "against_system": "Base",
                          "metric_label": "GAP", "against_value": 50.0, "alpha": 0.05}
    session.add(row)
    session.commit()
    login(client, user.email)

    page = client.get(f"/account/submissions/{held}").get_data(as_text=True)
    assert "It is on the ranking" not in page
    assert "The ladder holds it, so it is not on the ranking" in page
    assert "not significantly better than your best, Base" in page

    system = client.get(f"/systems/{held}").get_data(as_text=True)
    assert 'action="/compare"' not in system and "/significance?" not in system
    assert "Held by the ladder: it is compared with no system" in system
    assert client.get(f"/compare?a={held}&b={released}").status_code == 404  # why none
    public = client.get(f"/systems/{released}").get_data(as_text=True)
    # a public system still has its comparisons, with the other public one only
    assert 'action="/compare"' in public and "Weak" in public
