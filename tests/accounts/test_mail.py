"""Mail through a real SMTP server (aiosmtpd on a free port): verification, reset, finished.

Also the gate it serves: a signed-up team submits to the hidden split only once an address
is confirmed; host-made teams are confirmed from the start. And the sign-up / reset limits.
"""

from __future__ import annotations

import email
import email.policy
import io
import re
import threading

import pytest
from sqlmodel import select

from leaderboard.models import Submission, Team, User
from tests.backends import ALL_DATABASES
from tests.demo import demo_bytes
from tests.factories import DEFAULT_PASSWORD, csrf_token_from, login, make_team, make_token
from tests.faults import free_port
from tests.jobs import wait_for_status

VERIFY_RE = re.compile(r"http://localhost(/account/verify/\S+)")
RESET_RE = re.compile(r"http://localhost(/account/reset/\S+)")


class Inbox:
    """What the SMTP server received: parsed messages, in order."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, _server, _session, envelope):  # noqa: N802 (aiosmtpd's name)
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.arrived:
            self.messages.append(message)
            self.arrived.notify_all()
        return "250 Message accepted for delivery"

    def wait(self, count: int, timeout: float = 60) -> list:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.messages) >= count, timeout), \
                f"{len(self.messages)} message(s) arrived, expected {count}"
        return self.messages

    @staticmethod
    def body(message) -> str:
        return message.get_body(preferencelist=("plain",)).get_content()


@pytest.fixture
def smtp(app):
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    # Settings are read when mail is sent: the app may exist already (other fixtures).
    app.config["LEADERBOARD"]["SMTP_URL"] = f"smtp://127.0.0.1:{port}"
    app.config["LEADERBOARD"]["MAIL_FROM"] = "Leaderboard <noreply@swords.example>"
    yield inbox
    controller.stop()


def mail_worker(app, burst_worker) -> None:
    """A real worker, in burst mode, with the test app's mail settings."""
    settings = app.config["LEADERBOARD"]
    burst_worker(SMTP_URL=settings["SMTP_URL"], MAIL_FROM=settings["MAIL_FROM"])


def signup(client, team="Mail Lab", mail="new@example.org"):
    token = csrf_token_from(client.get("/account/signup").get_data(as_text=True))
    return client.post("/account/signup", data={
        "team_name": team, "email": mail, "password": DEFAULT_PASSWORD,
        "confirm": DEFAULT_PASSWORD, "csrf_token": token})


def web_upload(client):
    page = client.get("/account/submit").get_data(as_text=True)
    return client.post("/account/submit", data={
        "csrf_token": csrf_token_from(page), "name": "mailed",
        "file": (io.BytesIO(demo_bytes()), "run.json")})


@pytest.mark.usefixtures("benchmark")
def test_signup_mails_a_link_that_unlocks_hidden_submissions(smtp, app, client, session,
                                                             burst_worker):
    assert signup(client).status_code == 200
    assert smtp.messages == []  # the worker sends it
    mail_worker(app, burst_worker)
    [message] = smtp.wait(1)
    assert message["To"] == "new@example.org"
    assert message["From"] == "Leaderboard <noreply@swords.example>"
    assert message["Subject"] == "Confirm your e-mail for the SWORDS leaderboard"
    path = VERIFY_RE.search(Inbox.body(message)).group(1)
    user = session.exec(select(User).where(User.email == "new@example.org")).one()
    assert user.email_verified_at is None

    # Not yet: the web form and the API both refuse, saying why and what to do.
    assert login(client, "new@example.org").status_code == 302
    home = client.get("/account/").get_data(as_text=True)
    assert "Resend verification e-mail</button>" in home
    refused = web_upload(client)
    assert refused.status_code == 403
    assert "no member has confirmed their e-mail address" in refused.get_data(as_text=True)
    # With SMTP the account page says a link was mailed.
    assert "We sent a link to new@example.org." in home
    token = make_token(session, _team_of(session, user))
    api = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                      data={"name": "api", "file": (io.BytesIO(demo_bytes()), "r.json")})
    assert api.status_code == 403
    error = api.get_json()["error"]
    assert error["code"] == "email_unverified"
    assert "Resend verification e-mail" in error["message"]
    assert session.exec(select(Submission)).all() == []

    # Resend gives a second working link; opening one confirms the address.
    page = client.get("/account/").get_data(as_text=True)
    assert client.post("/account/verify/resend",
                       data={"csrf_token": csrf_token_from(page)}).status_code == 302
    assert len(smtp.wait(2)) == 2
    opened = client.get(path)
    assert opened.status_code == 302 and opened.headers["Location"] == "/account/"
    assert "is confirmed" in client.get("/account/").get_data(as_text=True)
    session.expire_all()
    assert session.get(User, user.id).email_verified_at is not None
    assert web_upload(client).status_code == 303
    assert "Resend verification e-mail" not in client.get("/account/").get_data(as_text=True)


def _team_of(session, user):
    from leaderboard.models import Team

    return session.get(Team, session.get(User, user.id).team_id)


def test_tampered_verification_link_is_refused(app, client, session):
    make_team(session, name="Tamper", email="t@example.org", verified=False)
    response = client.get("/account/verify/not-a-real-token")
    assert response.status_code == 400
    assert "This link is not valid" in response.get_data(as_text=True)


@pytest.mark.usefixtures("benchmark")
def test_host_made_team_is_verified_and_submits(app, runner, session):
    result = runner.invoke(args=["team", "create", "Host Lab", "--email", "host@example.org",
                                 "--password", DEFAULT_PASSWORD])
    assert result.exit_code == 0, result.output
    user = session.exec(select(User).where(User.email == "host@example.org")).one()
    assert user.email_verified_at is not None
    client = app.test_client()
    login(client, "host@example.org")
    assert web_upload(client).status_code == 303


def test_password_reset_link_is_mailed(smtp, app, client, session, burst_worker):
    make_team(session, name="Reset Lab", email="reset@example.org")
    token = csrf_token_from(client.get("/account/reset").get_data(as_text=True))
    assert client.post("/account/reset", data={"email": "reset@example.org",
                                               "csrf_token": token}).status_code == 200
    mail_worker(app, burst_worker)
    [message] = smtp.wait(1)
    assert (message["To"], message["Subject"]) == (
        "reset@example.org", "Reset your SWORDS leaderboard password")
    path = RESET_RE.search(Inbox.body(message)).group(1)
    assert client.get(path).status_code == 200


def _queued_mail_jobs(app) -> list:
    from rq import Queue

    from leaderboard.infra.queue import ACCOUNT_MAIL_FUNCTION

    with app.app_context():
        from leaderboard.infra.queue import get_queue

        queue: Queue = get_queue()
        return [job for job in queue.get_jobs() if job.func_name == ACCOUNT_MAIL_FUNCTION]


def _timed_post(client, path: str, data: dict):
    import time

    token = csrf_token_from(client.get(path).get_data(as_text=True))
    started = time.perf_counter()
    response = client.post(path, data={**data, "csrf_token": token})
    return response, time.perf_counter() - started


@ALL_DATABASES
def test_reset_request_queues_the_mail_known_or_not_and_the_worker_sends_it(
        smtp, app, client, session, burst_worker):
    """The request neither looks the address up nor talks SMTP, for a
    known address as for an unknown one; both queue one job with the address, and a real
    worker (burst) sends the one message there is to send."""
    make_team(session, name="Reset Lab", email="known@example.org")
    known, known_s = _timed_post(client, "/account/reset", {"email": "Known@example.org"})
    unknown, unknown_s = _timed_post(client, "/account/reset", {"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 200
    assert known.get_data(as_text=True).replace("Known@example.org", "@") == (
        unknown.get_data(as_text=True).replace("nobody@example.org", "@"))
    assert smtp.messages == []  # nothing sent inside either request
    jobs = _queued_mail_jobs(app)
    assert [job.args[:2] for job in jobs] == [("reset", "nobody@example.org"),
                                              ("reset", "Known@example.org")]  # at the front
    print(f"reset request: known {known_s * 1000:.1f} ms, unknown {unknown_s * 1000:.1f} ms")

    mail_worker(app, burst_worker)
    [message] = smtp.wait(1)
    assert message["To"] == "known@example.org"
    path = RESET_RE.search(Inbox.body(message)).group(1)
    assert client.get(path).status_code == 200
    assert _queued_mail_jobs(app) == []
    assert len(smtp.messages) == 1  # the unknown address got nothing


@ALL_DATABASES
def test_signup_with_a_registered_email_answers_like_a_new_one(smtp, app, client, session,
                                                               burst_worker):
    """A registered address and a new one both get "check your e-mail", so the answer does
    not tell who is registered; the worker mails the new address its confirmation link and
    the registered one a note that it already has an account."""
    make_team(session, name="Old Lab", email="old@example.org")
    taken, taken_s = _timed_post(client, "/account/signup", {
        "team_name": "Probe Lab", "email": "OLD@example.org", "password": DEFAULT_PASSWORD,
        "confirm": DEFAULT_PASSWORD})
    new, new_s = _timed_post(client, "/account/signup", {
        "team_name": "Probe Lab", "email": "new@example.org", "password": DEFAULT_PASSWORD,
        "confirm": DEFAULT_PASSWORD})
    assert taken.status_code == new.status_code == 200
    assert taken.get_data(as_text=True).replace("OLD@example.org", "@") == (
        new.get_data(as_text=True).replace("new@example.org", "@"))
    assert "Check your e-mail" in new.get_data(as_text=True)
    assert smtp.messages == []
    print(f"sign-up: registered e-mail {taken_s * 1000:.1f} ms, new {new_s * 1000:.1f} ms")
    assert [t.name for t in session.exec(select(Team).order_by(Team.id)).all()] == [
        "Old Lab", "Probe Lab"]

    mail_worker(app, burst_worker)
    messages = {m["To"]: m for m in smtp.wait(2)}
    assert sorted(messages) == ["new@example.org", "old@example.org"]
    assert messages["new@example.org"]["Subject"] == (
        "Confirm your e-mail for the SWORDS leaderboard")
    assert VERIFY_RE.search(Inbox.body(messages["new@example.org"]))
    note = messages["old@example.org"]
    assert note["Subject"] == "Sign-up attempt on the SWORDS leaderboard"
    assert "already has an account, so no team was created" in Inbox.body(note)
    assert "http://localhost/account/login" in Inbox.body(note)


@pytest.mark.usefixtures("benchmark")
def test_finished_submission_mails_members_who_opted_in(smtp, app, client, session, request):
    from leaderboard.services.intake.notifications import notify_finished

    launch_worker = request.getfixturevalue("start_worker")

    team, _user = make_team(session, name="Notify Lab", email="notify@example.org")
    quiet = User(email="quiet@example.org", password_hash="!", team_id=team.id)
    session.add(quiet)
    session.commit()
    token = make_token(session, team)
    login(client, "notify@example.org")
    page = client.get("/account/").get_data(as_text=True)
    assert client.post("/account/notifications", data={
        "csrf_token": csrf_token_from(page), "notify_on_finish": "y"}).status_code == 302
    assert 'name="notify_on_finish" value="y" checked' in client.get("/account/").get_data(
        as_text=True)

    launch_worker(SMTP_URL=app.config["LEADERBOARD"]["SMTP_URL"])
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "announced", "file": (io.BytesIO(demo_bytes()),
                                                               "r.json")})
    sid = response.get_json()["id"]
    assert wait_for_status(session, sid, ("scored",)).status == "scored"
    [message] = smtp.wait(1)
    assert message["To"] == "notify@example.org"
    assert message["Subject"] == f"Submission {sid} (announced) is scored"
    body = Inbox.body(message)
    assert f"/account/submissions/{sid}" in body
    assert re.search(r"strict_a_f@10: \d+\.\d\d", body)
    # A second run of the job (or a retry) never announces it again.
    assert notify_finished(app.extensions["db_engine"], sid, app.config["LEADERBOARD"]) == 0
    assert len(smtp.messages) == 1


def test_without_smtp_the_verification_link_goes_to_the_log(app, client, caplog):
    import logging

    with caplog.at_level(logging.WARNING, logger="leaderboard.infra.mail"):
        assert signup(client, team="Log Lab", mail="log@example.org").status_code == 200
    assert "E-mail to log@example.org (no LEADERBOARD_SMTP_URL set)" in caplog.text
    assert VERIFY_RE.search(caplog.text)


def test_signup_and_reset_are_rate_limited_per_address(app_overrides, request):
    from leaderboard import create_app

    app_overrides.update(SIGNUP_RATE_LIMIT="2 per hour", RESET_RATE_LIMIT="2 per hour")
    app = create_app(app_overrides)
    from leaderboard.db import create_all

    create_all(app.extensions["db_engine"])
    request.addfinalizer(app.extensions["db_engine"].dispose)
    client = app.test_client()
    codes = [signup(client, team=f"Flood {i}", mail=f"flood{i}@example.org").status_code
             for i in range(3)]
    assert codes == [200, 200, 429]
    assert "Too many sign-ups from your address" in signup(
        client, team="Flood 9", mail="flood9@example.org").get_data(as_text=True)
    resets = []
    for _ in range(3):
        token = csrf_token_from(client.get("/account/reset").get_data(as_text=True))
        resets.append(client.post("/account/reset", data={"email": "flood0@example.org",
                                                          "csrf_token": token}).status_code)
    assert resets == [200, 200, 429]


def test_reset_with_redis_unreachable_answers_the_same_page(app_overrides, request, caplog):
    """The mail cannot be queued: it is lost (logged for the hosts), the page is unchanged
    (saying so would tell the address is known) and nothing fails."""
    import logging

    app_overrides["REDIS_URL"] = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens
    app = request.getfixturevalue("app")
    request.getfixturevalue("smtp")
    client = app.test_client()
    make_team(request.getfixturevalue("session"), name="Lost Lab", email="lost@example.org")
    with caplog.at_level(logging.WARNING, logger="leaderboard.infra.queue"):
        token = csrf_token_from(client.get("/account/reset").get_data(as_text=True))
        response = client.post("/account/reset", data={"email": "lost@example.org",
                                                       "csrf_token": token})
    assert response.status_code == 200
    assert "If an account exists for <strong>lost@example.org</strong>" in (
        response.get_data(as_text=True))
    assert "could not queue an account e-mail (reset; Redis unreachable)" in caplog.text


@pytest.mark.usefixtures("benchmark")
def test_unverified_team_is_told_before_and_after_a_refused_upload(app, client):
    """The submit page says verification comes first; the refusal is a
    sentence with a real link, not "(/account/).."; without SMTP the account page says where
    the link went (the `make run` console)."""
    assert signup(client, team="Wait Lab", mail="wait@example.org").status_code == 200
    assert login(client, "wait@example.org").status_code == 302
    form = client.get("/account/submit").get_data(as_text=True)
    notice = form.split('id="verify-first"')[1].split("</section>")[0]
    assert "Confirm your e-mail address first." in notice
    assert '<a href="/account/">your account page</a>' in notice
    refused = web_upload(client)
    assert refused.status_code == 403
    text = refused.get_data(as_text=True)
    error = text.split('id="unverified-error">')[1].split("</p>")[0]
    assert '<a href="/account/">your account page</a>' in error
    assert "choose your file again" in error and "nothing was stored" in error
    assert "(/account/)" not in text and ".." not in error
    home = client.get("/account/").get_data(as_text=True)
    where = home.split('id="verify-where">')[1].split("</p>")[0]
    assert "No mail server is configured here" in where
    assert "<code>make run</code>" in where
