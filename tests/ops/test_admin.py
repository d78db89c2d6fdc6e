"""Admin pages: access, moderation with audit rows, team management, queue health, re-score."""

from __future__ import annotations

import pytest
from sqlmodel import select

from leaderboard.models import AuditLog, LeaderboardSnapshot, Submission, Team
from tests.backends import ALL_DATABASES
from tests.factories import csrf_token_from, login, make_team, make_token

PAGES = ["/admin/", "/admin/submissions", "/admin/teams"]


@pytest.fixture
def demo(runner, session):
    assert runner.invoke(args=["benchmark", "load-demo", "--no-enqueue"]).exit_code == 0
    return session.exec(select(Submission).order_by(Submission.id)).all()


@pytest.fixture
def admin_client(client, session):
    make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    assert login(client, "host@example.org").status_code == 302
    return client


@pytest.mark.parametrize("path", PAGES)
def test_anonymous_and_participants_get_404(client, session, path):
    assert client.get(path).status_code == 404
    assert client.post("/admin/rescore").status_code == 404
    make_team(session, name="Lab", email="lab@example.org")
    login(client, "lab@example.org")
    assert client.get(path).status_code == 404
    token = csrf_token_from(client.get("/account/tokens").get_data(as_text=True))
    assert client.post("/admin/rescore", data={"csrf_token": token}).status_code == 404
    assert client.post("/admin/teams/1/disable", data={"csrf_token": token,
                                                        "reason": "x"}).status_code == 404


@pytest.mark.parametrize("path", PAGES)
def test_admin_sees_every_page(admin_client, demo, path):
    response = admin_client.get(path)
    assert response.status_code == 200
    assert "<h1>" in response.get_data(as_text=True)


def test_submission_filters(admin_client, demo, session):
    page = admin_client.get("/admin/submissions?status=queued").get_data(as_text=True)
    assert "3 submission(s)." in page
    assert "Contextual ranker (demo)" in page
    assert "0 submission(s)." in admin_client.get(
        "/admin/submissions?status=scored").get_data(as_text=True)
    team = session.exec(select(Team).where(Team.name == "Demo Lab East")).one()
    page = admin_client.get(f"/admin/submissions?team={team.id}").get_data(as_text=True)
    assert "1 submission(s)." in page and "Frequency baseline (demo)" in page
    assert "0 submission(s)." in admin_client.get(
        "/admin/submissions?leaderboard=999").get_data(as_text=True)
    assert "3 submission(s)." in admin_client.get(
        f"/admin/submissions?leaderboard={demo[0].board_id}").get_data(as_text=True)


@ALL_DATABASES
def test_hide_and_unhide_with_audit(admin_client, demo, session):
    target = demo[0]
    page = admin_client.get("/admin/submissions").get_data(as_text=True)
    token = csrf_token_from(page)
    def newest() -> int:
        session.expire_all()
        return max([s.id for s in session.exec(select(LeaderboardSnapshot)).all()] or [0])

    before = newest()
    # A reason is required to hide.
    response = admin_client.post(f"/admin/submissions/{target.id}/hide",
                                 data={"csrf_token": token, "reason": "  "})
    assert response.status_code == 302
    assert "Give a reason for hiding the submission." in admin_client.get(
        "/admin/submissions").get_data(as_text=True)
    response = admin_client.post(f"/admin/submissions/{target.id}/hide",
                                 data={"csrf_token": token, "reason": "copied from team B"},
                                 follow_redirects=True)
    assert f"Submission #{target.id} (Contextual ranker (demo)) is hidden." in response.get_data(
        as_text=True)
    session.expire_all()
    row = session.get(Submission, target.id)
    assert row.hidden and row.hidden_reason == "copied from team B"
    admin_client.post(f"/admin/submissions/{target.id}/unhide",
                      data={"csrf_token": token, "reason": ""})
    session.expire_all()
    assert not session.get(Submission, target.id).hidden
    audit = session.exec(select(AuditLog).order_by(AuditLog.id)).all()
    assert [(a.action, a.object_type, a.object_id, a.reason) for a in audit] == [
        ("hide", "submission", target.id, "copied from team B"),
        ("unhide", "submission", target.id, "")]
    assert all(a.actor_id is not None for a in audit)
    # The requests computed no ranking: the read filter hid it, a ranker refreshes
    assert newest() == before


def test_actions_need_csrf(admin_client, demo):
    assert admin_client.post(f"/admin/submissions/{demo[0].id}/hide",
                             data={"reason": "x"}).status_code == 400
    assert admin_client.post("/admin/rescore").status_code == 400


def test_unknown_submission_is_reported(admin_client, demo):
    token = csrf_token_from(admin_client.get("/admin/submissions").get_data(as_text=True))
    page = admin_client.post("/admin/submissions/999/hide", data={
        "csrf_token": token, "reason": "x"}, follow_redirects=True).get_data(as_text=True)
    assert "no submission 999" in page


def test_disable_team_blocks_its_token_and_enable_restores_it(admin_client, session):
    team, _user = make_team(session, name="Lab", email="lab@example.org")
    secret = make_token(session, team)
    headers = {"Authorization": f"Bearer {secret}"}
    assert admin_client.get("/api/v1/submissions", headers=headers).status_code == 200
    token = csrf_token_from(admin_client.get("/admin/teams").get_data(as_text=True))
    response = admin_client.post(f"/admin/teams/{team.id}/disable",
                                 data={"csrf_token": token, "reason": "spam uploads"},
                                 follow_redirects=True)
    assert "Team Lab is disabled." in response.get_data(as_text=True)
    blocked = admin_client.get("/api/v1/submissions", headers=headers)
    assert blocked.status_code == 401
    assert blocked.json["error"]["message"] == (
        "The API token is invalid, revoked, or its team is disabled.")
    admin_client.post(f"/admin/teams/{team.id}/enable", data={"csrf_token": token})
    assert admin_client.get("/api/v1/submissions", headers=headers).status_code == 200
    actions = [(a.action, a.reason) for a in session.exec(select(AuditLog).order_by(AuditLog.id))]
    assert actions == [("disable_team", "spam uploads"), ("enable_team", "")]


def test_reset_quota(admin_client, session):
    team, _user = make_team(session, name="Lab", email="lab@example.org")
    token = csrf_token_from(admin_client.get("/admin/teams").get_data(as_text=True))
    page = admin_client.post(f"/admin/teams/{team.id}/reset-quota",
                             data={"csrf_token": token}, follow_redirects=True)
    assert "Quota of Lab reset: earlier submissions no longer count." in page.get_data(
        as_text=True)
    session.expire_all()
    assert session.get(Team, team.id).quota_reset_at is not None
    assert session.exec(select(AuditLog)).one().action == "reset_quota"


def test_queue_health_counts_and_no_worker_warning(admin_client, demo):
    page = admin_client.get("/admin/").get_data(as_text=True)
    assert ('<div class="label">queued</div>\n    <div class="big">'
            '<a href="/admin/submissions?status=queued">3</a>') in page
    assert "<dt>Jobs waiting</dt><dd>0</dd>" in page
    assert "No worker is listening" in page


def test_rescore_button(admin_client, demo, session):
    token = csrf_token_from(admin_client.get("/admin/").get_data(as_text=True))
    page = admin_client.post("/admin/rescore", data={"csrf_token": token},
                             follow_redirects=True).get_data(as_text=True)
    assert "0 submission(s) re-queued, 0 reference row(s) re-scored" in page
    assert session.exec(select(AuditLog)).one().action == "rescore_all"


def test_admin_without_a_team_gets_links_that_answer(app, client, runner, session, demo):
    """No "Submissions" link that answers 403 for an admin without a team,
    and the admin list links each scored submission to its page."""
    from leaderboard.worker import jobs

    result = runner.invoke(args=["admin", "create", "solo@example.org", "--password",
                                 "a long enough password"])
    assert result.exit_code == 0, result.output
    assert login(client, "solo@example.org", "a long enough password").status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert '<li><a href="/account/submissions">Submissions</a></li>' not in home
    assert 'href="/admin/submissions">All submissions</a>' in home
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(demo[0].id) == "scored"
    page = client.get("/admin/submissions").get_data(as_text=True)
    link = f'<a href="/systems/{demo[0].id}">{demo[0].system_name}</a>'
    assert link in page
    assert client.get(f"/systems/{demo[0].id}").status_code == 200  # private: admins see it
