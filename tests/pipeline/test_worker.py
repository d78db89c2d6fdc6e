"""Real workers (``leaderboard worker`` subprocesses) on a real Redis: nothing is lost."""

from __future__ import annotations

import io
import json
import os
import signal

from rq import Queue
from sqlmodel import select

from leaderboard.commands.score import score_command
from leaderboard.infra.queue import get_redis
from leaderboard.models import Submission, SubmissionStatus, System
from leaderboard.scoring.printing import printed_all
from leaderboard.scoring.tsar.metrics import METRIC_KEYS as TSAR_METRIC_KEYS
from leaderboard.services.intake.reconcile import reconcile
from tests.backends import ALL_REDIS
from tests.demo import DEMO_SPLIT, DEMO_SUBMISSIONS, demo_bytes
from tests.factories import make_team, make_token
from tests.jobs import wait_for_status

DONE = (SubmissionStatus.SCORED, SubmissionStatus.INVALID, SubmissionStatus.FAILED)


def upload(client, token, raw, name="system", **headers):
    response = client.post("/api/v1/submissions",
                           data={"name": name, "file": (io.BytesIO(raw), "r.json")},
                           headers={"Authorization": f"Bearer {token}", **headers})
    assert response.status_code == 202, response.get_data(as_text=True)
    return response.get_json()["id"]


def cli_scores(runner, stem):
    result = runner.invoke(score_command, ["--split", str(DEMO_SPLIT), "--submission",
                                           str(DEMO_SUBMISSIONS / f"{stem}.json"), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@ALL_REDIS
def test_api_submission_reaches_scored_with_the_cli_numbers(app, client, runner, session,
                                                            benchmark, team_token,
                                                            start_worker):
    _team, _user, token = team_token
    start_worker()
    sid = upload(client, token, demo_bytes("demo_baseline"))
    row = wait_for_status(session, sid, DONE)
    assert row.status == "scored", row.failure_reason
    body = client.get(f"/api/v1/submissions/{sid}",
                      headers={"Authorization": f"Bearer {token}"}).get_json()
    expected = printed_all(cli_scores(runner, "demo_baseline"))  # the API shows 2 decimals
    assert body["result"]["metrics"] == expected["metrics"]
    assert body["result"]["intervals"] == expected["intervals"]
    assert body["result"]["by_pos"] == expected["by_pos"]


@ALL_REDIS
def test_sigkill_mid_job_then_reconcile_and_a_new_worker_scores_it(app, client, session,
                                                                    benchmark, team_token,
                                                                    start_worker, settings):
    _team, _user, token = team_token
    # A huge bootstrap makes the job slow enough to be killed in the middle of it.
    # Its RQ key lives 3 s past its last beat: the reconciler waits for it to expire.
    doomed = start_worker(BOOTSTRAP_SAMPLES=150_000, RECONCILE_SECONDS=3600,
                          HEARTBEAT_STALE_SECONDS=2)
    sid = upload(client, token, demo_bytes())
    row = wait_for_status(session, sid, ("running",) + DONE)
    wait_for_status(session, sid, ("running",))
    assert row.status == "running" and row.progress in ("validating", "scoring")
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(timeout=10)
    session.expire_all()
    assert session.get(type(row), sid).status == "running"
    settings["HEARTBEAT_STALE_SECONDS"] = 1.0
    import time
    time.sleep(3.5)
    with app.app_context():
        report = reconcile(session=session, connection=get_redis(),
                           queue_name=settings["QUEUE_NAME"], settings=settings,
                           grace_seconds=0)
    assert report.requeued == [sid]
    row = session.get(type(row), sid)
    assert row.status == "queued" and "stopped responding" in row.failure_reason
    start_worker()
    row = wait_for_status(session, sid, DONE)
    assert row.status == "scored" and row.attempts == 2


@ALL_REDIS
def test_flushed_redis_loses_nothing_after_reconcile(app, client, session, benchmark,
                                                    start_worker, settings):
    ids = []
    for n, stem in enumerate(("demo_strong", "demo_baseline", "demo_weak")):
        team, _ = make_team(session, name=f"Team {n}", email=f"t{n}@example.org")
        ids.append(upload(client, make_token(session, team), demo_bytes(stem)))
    with app.app_context():
        redis = get_redis()
        queue = Queue(settings["QUEUE_NAME"], connection=redis)
        assert len(queue.job_ids) == 3
        redis.flushdb()
        assert queue.job_ids == []
        report = reconcile(session=session, connection=redis,
                           queue_name=settings["QUEUE_NAME"], settings=settings,
                           grace_seconds=0)
    assert sorted(report.requeued) == sorted(ids)
    start_worker()
    for sid in ids:
        assert wait_for_status(session, sid, DONE).status == "scored"


def test_worker_reconciles_at_start(app, client, session, benchmark, team_token,
                                    start_worker, settings):
    _team, _user, token = team_token
    sid = upload(client, token, demo_bytes())
    with app.app_context():
        get_redis().delete(f"rq:queue:{settings['QUEUE_NAME']}")
    # Rows younger than the grace period are left to their uploader; age this one.
    from datetime import timedelta

    from leaderboard.models import Submission

    row = session.get(Submission, sid)
    row.queued_at = row.queued_at - timedelta(minutes=5)
    session.add(row)
    session.commit()
    start_worker()
    assert wait_for_status(session, sid, DONE).status == "scored"


def swords_part(values: dict) -> dict:
    """A stored result's metrics without TSAR-2022's (what `leaderboard score` prints)."""
    return {k: v for k, v in values.items() if k not in TSAR_METRIC_KEYS}


@ALL_REDIS
def test_web_form_submission_reaches_scored_with_the_cli_numbers(app, client, runner, session,
                                                                 benchmark, start_worker):
    from tests.factories import csrf_token_from, login, make_team

    _team, user = make_team(session, name="Form Lab", email="form@example.org")
    login(client, user.email)
    start_worker()
    token = csrf_token_from(client.get("/account/submit").get_data(as_text=True))
    response = client.post("/account/submit", data={
        "csrf_token": token, "name": "form system",
        "file": (io.BytesIO(demo_bytes("demo_weak")), "demo_weak.json")})
    assert response.status_code == 303
    sid = int(response.headers["Location"].rsplit("/", 1)[1])
    assert wait_for_status(session, sid, DONE).status == "scored"
    from leaderboard.services.intake.submissions import current_result

    result = current_result(session, session.get(Submission, sid))
    expected = cli_scores(runner, "demo_weak")
    # the stored result carries every family's metrics; the CLI prints SWORDS' (not TSAR's)
    assert set(result.metrics) - set(expected["metrics"]) == set(TSAR_METRIC_KEYS)
    assert (swords_part(result.metrics), swords_part(result.intervals),
            {pos: {part: swords_part(block[part]) for part in ("metrics", "intervals")}
             for pos, block in result.by_pos.items()}) == (
        expected["metrics"], expected["intervals"], expected["by_pos"])
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert f"{expected['metrics']['strict_a_f@10']:.2f}" in page


def test_submit_cli_against_a_live_server_waits_and_exits_by_status(app, session, benchmark,
                                                                   team_token, start_worker,
                                                                   tmp_path):
    import subprocess
    import threading

    from werkzeug.serving import make_server

    from tests.jobs import LEADERBOARD_BIN

    _team, _user, token = team_token
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    start_worker()
    url = f"http://127.0.0.1:{server.server_port}"
    good = tmp_path / "good.json"
    good.write_bytes(demo_bytes())
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"substitutes": []}')
    try:
        # The server URL from the environment, links as options.
        ok = subprocess.run([LEADERBOARD_BIN, "submit", str(good), "--token", token, "--name",
                             "cli system", "--paper-url", "https://arxiv.org/abs/1",
                             "--code-url", "https://example.org/code", "--wait"],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "LEADERBOARD_URL": url})
        assert ok.returncode == 0, ok.stderr
        assert "scored" in ok.stdout and "strict_a_f@10" in ok.stdout
        assert "\ncounts: " in ok.stdout  # as `leaderboard score` prints them
        # The board's order, its headline first and marked; not alphabetical.
        table = [line for line in ok.stdout.splitlines()
                 if ("@" in line or "gap" in line) and not line.startswith("counts:")]
        assert table[0].startswith("* strict_a_f@10 ")
        assert [line.split()[0] for line in table[1:4]] == [
            "strict_a_p@10", "strict_a_r@10", "strict_c_p@1"]
        assert "* headline: what the leaderboard ranks by" in ok.stdout
        assert "\nreleased\n" in ok.stdout  # the team's first on a ladder board
        # A weaker file is held: the client prints the reason and no number of it.
        weak = tmp_path / "weak.json"
        weak.write_bytes(demo_bytes("demo_weak"))
        held = subprocess.run([LEADERBOARD_BIN, "submit", str(weak), "--token", token,
                               "--wait"], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "LEADERBOARD_URL": url})
        assert held.returncode == 0, held.stderr
        assert "held: not significantly better than your best, cli system (#" in held.stdout
        assert "strict_a_f@10" not in held.stdout and "interval" not in held.stdout
        row = session.exec(select(Submission).where(Submission.system_name == "cli system")).one()
        system = session.get(System, row.system_id)
        assert (system.paper_url, system.code_url) == ("https://arxiv.org/abs/1",
                                                       "https://example.org/code")
        assert "private: only your team sees it" in ok.stdout
        invalid = subprocess.run([LEADERBOARD_BIN, "submit", str(bad), "--url", url, "--token",
                                  token, "--wait"], capture_output=True, text=True, timeout=120)
        assert invalid.returncode == 2
        assert "[wrong_type]" in invalid.stderr
        denied = subprocess.run([LEADERBOARD_BIN, "submit", str(good), "--url", url, "--token",
                                 "swl_wrong"], capture_output=True, text=True, timeout=60)
        assert denied.returncode == 1
        assert "HTTP 401: The API token is invalid, revoked, or its team is disabled." \
            in denied.stderr
    finally:
        server.shutdown()
        thread.join(timeout=10)


def test_sigterm_stops_an_idle_worker_cleanly(start_worker, benchmark, tmp_path):
    import time

    idle = start_worker()
    log = tmp_path / "worker-0.log"
    deadline = time.monotonic() + 60
    while "Listening on" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    idle.send_signal(signal.SIGTERM)
    assert idle.wait(timeout=20) == 0
    assert "warm shut down requested" in log.read_text()


def test_sigterm_mid_job_finishes_the_job_then_exits(client, session, benchmark, team_token,
                                                     start_worker):
    _team, _user, token = team_token
    # Slow enough to be caught running: scoring the demo with 60,000 resamples now takes
    # well under a second, so the poll could miss the running state.
    proc = start_worker(BOOTSTRAP_SAMPLES=400_000)
    sid = upload(client, token, demo_bytes())
    wait_for_status(session, sid, ("running",))
    proc.send_signal(signal.SIGTERM)
    # The job runs to its end first: 400,000 resamples on a loaded CI machine take a while.
    assert proc.wait(timeout=240) == 0
    session.expire_all()
    assert wait_for_status(session, sid, DONE, timeout=1).status == "scored"
