"""Faults: worker SIGKILL mid-job, Redis killed and restarted empty, database locked mid-job.

Real test split, real ``leaderboard worker`` processes, a real redis-server on loopback,
SQLite database. Each scenario prints what the submitter sees (the API's status body) and
checks in the database that every submission ends scored with exactly one current result.
Short timings (heartbeat 1 s, stale after 6 s, reconcile every 2 s) so it runs in minutes.

    .venv/bin/python perf/bench_faults.py
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sqlite3
import tempfile
import time

from ops_harness import Instance, RedisServer, require_split

SETTINGS = {"HEARTBEAT_SECONDS": 1.0, "HEARTBEAT_STALE_SECONDS": 6.0, "RECONCILE_SECONDS": 2.0,
            "RETRY_BACKOFF_SECONDS": 2.0, "API_RATE_LIMIT": "100000 per minute",
            "DAILY_SCORED_QUOTA": 10000, "TOTAL_SCORED_QUOTA": 10000, "DAILY_ATTEMPT_CAP": 10000}
TEAM = "Fault Lab"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Api:
    """The submitter's view: the real API through the Flask test client, with a team token."""

    def __init__(self, inst: Instance):
        from sqlmodel import Session, select

        from leaderboard.models import Team
        from leaderboard.services.access.api_tokens import issue_token

        with Session(inst.engine, expire_on_commit=False) as session:
            team = session.exec(select(Team)).first()
            _row, self.token = issue_token(session=session, team=team, name="bench")
            session.commit()
        self.client = inst.app.test_client()
        self.headers = {"Authorization": f"Bearer {self.token}"}

    def status(self, sid: int) -> dict:
        body = self.client.get(f"/api/v1/submissions/{sid}", headers=self.headers).json
        return {k: body[k] for k in ("status", "progress", "attempts", "failure_reason")}

    def upload(self, raw: bytes, name: str):
        return self.client.post("/api/v1/submissions", headers=self.headers, data={
            "name": name, "file": (io.BytesIO(raw), "result.json")})


def wait_for(predicate, timeout: float, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise SystemExit("timed out")


def running_id(inst: Instance, ids: list[int]) -> int | None:
    from sqlmodel import Session, select

    from leaderboard.models import Submission

    with Session(inst.engine) as session:
        return session.exec(select(Submission.id).where(Submission.id.in_(ids),
                                                        Submission.status == "running")).first()


def report(inst: Instance, ids: list[int], label: str) -> None:
    check = inst.result_check(ids)
    check.pop("durations")
    ok = check["with_one_current_result"] == len(ids) and check["with_more_than_one_result"] == 0
    print(f"  {label}: statuses {inst.statuses(ids)}; {check}; "
          f"{'nothing lost, scored exactly once' if ok else 'PROBLEM'}")


def worker_sigkill(inst: Instance, bench, raw: bytes, api: Api) -> None:
    print("\n1. Worker SIGKILL mid-job")
    ids = inst.add_submissions(bench, raw, 6, team_name=TEAM)
    [worker] = inst.start_workers(1)
    inst.enqueue(ids)
    victim = wait_for(lambda: running_id(inst, ids), 60, 0.01)
    print(f"  seen by the submitter while running: {api.status(victim)}")
    os.killpg(worker.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    print(f"  worker {worker.pid} killed with SIGKILL while submission {victim} was running")
    inst.workers.remove(worker)
    inst.start_workers(1, "replacement")
    requeued = wait_for(lambda: (s := api.status(victim))["status"] != "running" and s, 120)
    print(f"  {time.monotonic() - killed_at:.1f} s later the submitter sees: {requeued}")
    inst.wait_final(ids, 600)
    print(f"  all {len(ids)} final {time.monotonic() - killed_at:.1f} s after the kill; "
          f"victim now: {api.status(victim)['status']}, attempts {api.status(victim)['attempts']}")
    report(inst, ids, "database")
    inst.stop_workers()


def redis_restart(inst: Instance, bench, raw: bytes, api: Api, server: RedisServer) -> None:
    print("\n2. Redis killed (SIGKILL, no persistence) and started again, empty")
    ids = inst.add_submissions(bench, raw, 6, team_name=TEAM)
    inst.enqueue(ids)  # no worker yet: the jobs sit in Redis
    print(f"  {len(ids)} submissions queued in Redis, no worker running")
    server.kill()
    print("  Redis killed; an upload now gets: ", end="")
    upload_raw = inst_submission_bytes(inst, ids[0])
    response = api.upload(upload_raw.replace(b'"substitutes"', b'"substitutes" ', 1),
                          "uploaded during outage")
    print(f"HTTP {response.status_code} {response.get_data(as_text=True)[:160]!r}", flush=True)
    time.sleep(2)
    server.start()
    inst.redis.connection_pool.disconnect()
    api.client.application.extensions.pop("redis", None)
    print(f"  Redis restarted empty (queue length {inst.redis.llen('rq:queue:scoring')})")
    started = time.monotonic()
    inst.start_workers(2, "after-redis")
    everything = [*ids, *new_ids_since(inst, ids[-1])]
    inst.wait_final(everything, 600)
    print(f"  workers started; every submission final {time.monotonic() - started:.1f} s later "
          "(the reconciler re-enqueued what Redis forgot)")
    report(inst, everything, "database")
    inst.stop_workers()


def inst_submission_bytes(inst: Instance, sid: int) -> bytes:
    from sqlmodel import Session

    from leaderboard.models import Submission

    with Session(inst.engine) as session:
        return session.get(Submission, sid).file_bytes


def new_ids_since(inst: Instance, last: int) -> list[int]:
    from sqlmodel import Session, select

    from leaderboard.models import Submission

    with Session(inst.engine) as session:
        return list(session.exec(select(Submission.id).where(Submission.id > last)).all())


def database_lock(inst: Instance, bench, raw: bytes, api: Api, seconds: float,
                  number: int) -> None:
    print(f"\n{number}. Database unavailable for {seconds:.0f} s during a job "
          "(SQLite exclusive lock; SQLite's busy timeout is 30 s)")
    ids = inst.add_submissions(bench, raw, 4, team_name=TEAM)
    inst.start_workers(1, f"db-{seconds:.0f}")
    inst.enqueue(ids)
    victim = wait_for(lambda: running_id(inst, ids), 60, 0.005)
    path = inst.database_url.removeprefix("sqlite:///")
    lock = sqlite3.connect(path, timeout=60, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    locked_at = time.monotonic()
    print(f"  database locked while submission {victim} was running")
    time.sleep(seconds)
    lock.execute("COMMIT")
    lock.close()
    print(f"  unlocked after {time.monotonic() - locked_at:.1f} s; victim: {api.status(victim)}")
    inst.wait_final(ids, 600)
    print(f"  all final {time.monotonic() - locked_at:.1f} s after the lock began; victim: "
          f"{api.status(victim)}")
    report(inst, ids, "database")
    inst.stop_workers()


def main() -> None:
    raw = require_split()
    server = RedisServer(free_port())
    server.start()
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, redis_url=server.url, **SETTINGS)
        try:
            bench = inst.import_split(raw)
            inst.add_submissions(bench, raw, 0, team_name=TEAM)
            api = Api(inst)
            worker_sigkill(inst, bench, raw, api)
            redis_restart(inst, bench, raw, api, server)
            database_lock(inst, bench, raw, api, 10, 3)
            database_lock(inst, bench, raw, api, 45, 4)
        finally:
            inst.close()
            server.kill()


if __name__ == "__main__":
    main()
