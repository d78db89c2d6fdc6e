"""The upload form, the check button, the submission pages and the publish toggle."""

from __future__ import annotations

import io

from rq import Queue
from sqlmodel import select

from leaderboard.infra.queue import get_redis
from leaderboard.models import LeaderboardSnapshot, Submission
from leaderboard.ranker.placement import ranking_queue_name
from leaderboard.services.catalog.boards import import_board
from leaderboard.worker import jobs
from tests.demo import demo_bytes, submission_doc, target_ids
from tests.factories import csrf_token_from, login, make_team
from tests.jobs import drain


def form_data(client, raw, name="Web system", **extra):
    token = csrf_token_from(client.get("/account/submit").get_data(as_text=True))
    return {"csrf_token": token, "file": (io.BytesIO(raw), "result.json"), "name": name,
            "description": "", "paper_url": "", "code_url": "", **extra}


def logged_in(client, session):
    _team, user = make_team(session, name="Web Lab", email="web@example.org")
    assert login(client, user.email).status_code == 302
    return user


def test_form_shows_the_remaining_quota(client, session, benchmark):
    logged_in(client, session)
    page = client.get("/account/submit").get_data(as_text=True)
    assert "<strong>5</strong> scored submissions left today" in page
    assert "20 uploads of any outcome left today" in page
    assert 'src="/static/js/submit.js"' in page and "<script>" not in page


def test_upload_redirects_to_the_page_which_shows_progress_and_then_results(
        app, client, session, benchmark):
    logged_in(client, session)
    response = client.post("/account/submit", data=form_data(client, demo_bytes(), public="y"))
    assert response.status_code == 303
    location = response.headers["Location"]
    sid = int(location.rsplit("/", 1)[1])
    page = client.get(location).get_data(as_text=True)
    assert "queued" in page and '<meta http-equiv="refresh" content="10">' in page
    assert client.get(f"{location}/status").get_json() == {
        "id": sid, "status": "queued", "progress": "", "done": False}
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "scored"
    page = client.get(location).get_data(as_text=True)
    assert "http-equiv" not in page
    row = session.get(Submission, sid)
    assert row.file_sha256 in page and benchmark.checksum in page
    assert "seed 0, B = 1000" in page and "strict_a_f@10" in page
    # readable, grouped metric names; public and scored: a link to its public page
    assert "F<sup>10</sup> strict" in page and "Lenient F/P/R at 10" in page
    assert ">strict_a_f@10<" not in page
    assert f'href="/systems/{sid}"' in page and "once scored" not in page


def test_double_submit_lands_on_the_same_submission(client, session, benchmark):
    logged_in(client, session)
    first = client.post("/account/submit", data=form_data(client, demo_bytes()))
    second = client.post("/account/submit", data=form_data(client, demo_bytes()))
    assert first.headers["Location"] == second.headers["Location"]
    assert len(session.exec(select(Submission)).all()) == 1


def test_check_button_lists_every_problem_and_stores_nothing(client, session, benchmark,
                                                             checks_worker):
    logged_in(client, session)
    ids = target_ids()
    raw = submission_doc({ids[0]: [["fine", 1]], ids[1]: [["x", "high"]], "t:nope": []})
    response = client.post("/account/submit/check", data=form_data(client, raw, name=""))
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "the file is not valid" in page
    assert "non_numeric_score" in page and "unknown_target" in page
    assert session.exec(select(Submission)).all() == []


def test_check_button_counts_empty_lists_as_abstentions(client, session, benchmark,
                                                         checks_worker):
    """On the web form, 2 empty lists and 2 missing are 4 abstentions."""
    logged_in(client, session)
    ids = target_ids()
    raw = submission_doc({t: [["word", 1.0]] for t in ids[:9]} | {ids[9]: [], ids[10]: []})
    page = client.post("/account/submit/check",
                       data=form_data(client, raw, name="")).get_data(as_text=True)
    assert "9 of 13 targets answered,\n    2 empty lists and 2 missing: 4 abstentions," in page


def test_invalid_submission_page_shows_every_problem(app, client, session, benchmark):
    logged_in(client, session)
    response = client.post("/account/submit", data=form_data(client, b"\xff\xfe not utf8"))
    sid = int(response.headers["Location"].rsplit("/", 1)[1])
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(sid) == "invalid"
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Why it is invalid" in page and "not_utf8" in page


def test_logged_out_form_post_goes_to_login_and_stores_nothing(client, session, benchmark):
    logged_in(client, session)
    data = form_data(client, demo_bytes())
    client.post("/account/logout", data={"csrf_token": data["csrf_token"]})
    response = client.post("/account/submit", data=data)
    assert response.status_code == 302
    assert response.headers["Location"] == "/account/login?next=%2Faccount%2Fsubmit"
    assert session.exec(select(Submission)).all() == []


def test_expired_session_cookie_is_a_400_csrf_page(client, session, benchmark):
    logged_in(client, session)
    data = form_data(client, demo_bytes())
    client.delete_cookie("session")
    response = client.post("/account/submit", data=data)
    assert response.status_code == 400
    assert "<p>The CSRF session token is missing.</p>" in response.get_data(as_text=True)
    assert session.exec(select(Submission)).all() == []


def test_other_teams_submission_page_is_404(client, session, benchmark):
    other, _ = make_team(session, name="Other Lab", email="other@example.org")
    row = Submission(team_id=other.id, split_id=benchmark.id,
                     board_id=import_board(session, benchmark).id, system_name="theirs",
                     file_bytes=b"{}", file_sha256="0" * 64)
    session.add(row)
    session.commit()
    logged_in(client, session)
    assert client.get(f"/account/submissions/{row.id}").status_code == 404
    assert client.get(f"/account/submissions/{row.id}/status").status_code == 404


def test_publish_toggle_needs_csrf_and_queues_the_ranking_refresh(app, client, session,
                                                                   benchmark):
    logged_in(client, session)
    location = client.post("/account/submit", data=form_data(client, demo_bytes())).headers[
        "Location"]
    sid = int(location.rsplit("/", 1)[1])
    assert client.post(f"{location}/visibility", data={"public": "1"}).status_code == 400
    token = csrf_token_from(client.get(location).get_data(as_text=True))
    before = len(session.exec(select(LeaderboardSnapshot)).all())
    response = client.post(f"{location}/visibility", data={"public": "1", "csrf_token": token})
    assert response.status_code == 303
    flashed = client.get(location).get_data(as_text=True)
    assert "Published: it appears on the ranking once scored." in flashed  # still queued
    response = client.post(f"{location}/visibility", data={"public": "0", "csrf_token": token})
    assert "leaves the public ranking within a few seconds" in client.get(location).get_data(
        as_text=True)
    client.post(f"{location}/visibility", data={"public": "1", "csrf_token": token})
    session.expire_all()
    assert session.get(Submission, sid).is_public is True
    # the request only queued the refresh (ranking a large board is no request's work)
    assert len(session.exec(select(LeaderboardSnapshot)).all()) == before
    settings = app.config["LEADERBOARD"]
    with app.app_context():
        conn = get_redis()
    queued = Queue(ranking_queue_name(settings["QUEUE_NAME"]), connection=conn).job_ids
    assert any(j.startswith(f"refresh-{settings['QUEUE_NAME']}-") for j in queued), queued
    jobs.configure(settings=settings, engine=app.extensions["db_engine"])
    drain(conn, settings)
    session.expire_all()
    assert len(session.exec(select(LeaderboardSnapshot)).all()) > before
    listing = client.get("/account/submissions").get_data(as_text=True)
    assert "Web system" in listing


def test_check_button_is_rate_limited(app, client, session, benchmark, checks_worker):
    app.config["LEADERBOARD"]["DRY_RUN_RATE_LIMIT"] = "3 per minute"
    logged_in(client, session)
    statuses = [client.post("/account/submit/check",
                            data=form_data(client, demo_bytes())).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    page = client.post("/account/submit/check", data=form_data(client, demo_bytes()))
    assert page.status_code == 429 and "<!doctype html>" in page.get_data(as_text=True).lower()
