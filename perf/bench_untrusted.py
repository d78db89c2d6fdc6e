"""Untrusted files against `make run`: tiny gzips of long lines sent as dry runs
and as an upload, with ``GET /about`` timed beside them.

Starts the real ``leaderboard serve`` (gunicorn, one RQ worker, the ranker, embedded Redis; the
demo and the LS07/CoInCo boards from ../shared/data/lexsub, as ``make run`` does) on a free
loopback port with a throw-away instance folder, creates a team and an API token with the host
commands, then:

1. dry runs (``POST /api/v1/validate``, board ``semeval07-test-generative``) of gzipped long
   lines without `` :: ``: 100,000 ``a`` (133 bytes) 2 and then 8 at once, ``....`` x 5,000
   and 20,000 ``a`` (20,000 characters, 55 bytes each) 2 at once; each burst ``--rounds``
   times, one after the other (default once). While they run, one reader
   loops ``GET /about``: its p50/p95/max are reported beside each dry run's answer (status,
   seconds, what it said). A dry run answered 202 is polled at its ``check_url``.
2. the 183-byte upload (``side.n 301 :: team`` then two lines of 60,000 ``c``, gzipped)
   through ``POST /api/v1/submissions`` on the same board: seconds until its status is final,
   its ``attempts`` (status body and database), final status and reason, /about beside it.

Also reported per phase: the worker's CPU seconds (its own and its reaped children's), whether
the gunicorn workers and the RQ worker kept their pids, and ``WORKER TIMEOUT`` lines in the
serve log. Every loop is bounded in count and time; everything talks to 127.0.0.1 only. The API
rate limit is raised to 600 a minute so that polling a slow check is not refused (nothing else
differs from ``make run``). Prints one JSON document on stdout (progress on stderr).

    .venv/bin/python perf/bench_untrusted.py [--commit REV | --source DIR] [--rounds 1]
                                                   [--wait 120] [--upload-wait 400]

``--commit REV`` runs that commit of this repository (``git archive`` into the temporary
folder, with this virtualenv: how a commit before a fix behaved, or the committed state without
the work tree's uncommitted edits); ``--source DIR`` another checkout. Targets:
/about p95 under 100 ms, each dry run answered within 15 s, the upload final within 60 s after
one run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
LEADERBOARD = str(BIN / "leaderboard")
BOARD = "semeval07-test-generative"
FINAL = ("scored", "invalid", "failed")
TEAM, EMAIL, PASSWORD = "Untrusted Bench", "untrusted-bench@example.org", "correct horse battery"


def lexsub_dir() -> Path:
    env = os.environ.get("LEADERBOARD_LEXSUB_DIR")
    return Path(env) if env else ROOT.parent / "shared" / "data" / "lexsub"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


# --- HTTP ------------------------------------------------------------------------------------

def call(base: str, method: str, path: str, *, token: str | None = None,
         fields: dict[str, str] | None = None, file: bytes | None = None,
         timeout: float = 30) -> tuple[int, dict[str, Any] | str, dict[str, str]]:
    """One request to 127.0.0.1 (multipart when ``file``); (status, JSON or text, headers).
    Status 0: no answer (connection refused or reset, timeout)."""
    assert base.startswith("http://127.0.0.1:")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    body = None
    if file is not None:
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                 .encode() for k, v in (fields or {}).items()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                     f'filename="answers.gz"\r\nContent-Type: application/gzip\r\n\r\n'
                     .encode() + file + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, text, hdrs = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        status, text, hdrs = exc.code, exc.read(), dict(exc.headers)
    except OSError as exc:
        return 0, repr(exc)[:200], {}
    try:
        return status, json.loads(text), hdrs
    except ValueError:
        return status, text[:200].decode(errors="replace"), hdrs


def said(doc: dict[str, Any] | str) -> str:
    """A short account of an answer: the error, or the report's first error or warning."""
    if not isinstance(doc, dict):
        return str(doc)[:160]
    if "error" in doc:
        return f'{doc["error"]["code"]}: {doc["error"]["message"]}'[:200]
    for kind in ("errors", "warnings"):
        items = doc.get(kind) or []
        if items:
            first = items[0]
            text = (f'{first.get("code")}: {first.get("message")}' if isinstance(first, dict)
                    else str(first))
            more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
            return f'ok={doc.get("ok")}; {kind[:-1]} {text}'[:200] + more
    if "status" in doc:
        return f'status {doc["status"]}'
    return f'ok={doc.get("ok")}'


class Reader(threading.Thread):
    """Loops ``GET /about`` (10 s timeout, 50 ms apart) until stopped, at most ``limit``
    requests or ``seconds``; keeps each latency, failures counted apart."""

    def __init__(self, base: str, seconds: float, limit: int = 20_000):
        super().__init__(daemon=True)
        self.base, self.seconds, self.limit = base, seconds, limit
        self.stop = threading.Event()
        self.latencies: list[float] = []
        self.failed = 0

    def run(self) -> None:
        deadline = time.monotonic() + self.seconds
        for _ in range(self.limit):
            if self.stop.is_set() or time.monotonic() > deadline:
                return
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(self.base + "/about", timeout=10) as response:
                    response.read()
                    ok = response.status == 200
            except OSError:
                ok = False
            took = time.perf_counter() - start
            if ok:
                self.latencies.append(took)
            else:
                self.failed += 1
            self.stop.wait(0.05)

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        if not ordered:
            return {"requests": self.failed, "failed": self.failed}
        return {"requests": len(ordered) + self.failed, "failed": self.failed,
                "p50_ms": round(1000 * statistics.median(ordered), 1),
                "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
                "max_ms": round(1000 * ordered[-1], 1)}


# --- processes -------------------------------------------------------------------------------

def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def processes(serve_pid: int) -> dict[str, Any]:
    """pids of the RQ worker(s), the gunicorn master and its workers under ``serve``."""
    out: dict[str, Any] = {"worker": [], "gunicorn_workers": [], "ranker": []}
    for pid in children(serve_pid):
        args = cmdline(pid)
        if any(a.endswith("gunicorn") for a in args[:2]):
            out["gunicorn_master"] = pid
            out["gunicorn_workers"] = sorted(children(pid))
        elif "worker" in args[1:3]:
            out["worker"].append(pid)
        elif "ranker" in args[1:3]:
            out["ranker"].append(pid)
    return out


def cpu_seconds(pid: int) -> float:
    """utime + stime + cutime + cstime: the process and its waited-for children."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Site:
    """``leaderboard serve`` on a fresh instance folder, its log, its host commands."""

    def __init__(self, tmp: str, source: Path):
        self.tmp, self.source = Path(tmp), source
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")
               or k in ("LEADERBOARD_WORDNET_TABLE", "LEADERBOARD_WORDNET_DIR")}
        env.update(LEADERBOARD_INSTANCE_PATH=str(self.tmp / "instance"),
                   LEADERBOARD_LEXSUB_DIR=str(lexsub_dir()),
                   LEADERBOARD_API_RATE_LIMIT="600 per minute", PYTHONUNBUFFERED="1")
        if source != ROOT:
            env["PYTHONPATH"] = str(source)
        self.env = env
        self.log_path = self.tmp / "serve.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float) -> None:
        with open(self.log_path, "w") as out:
            self.proc = subprocess.Popen(
                [LEADERBOARD, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=self.source, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        deadline = time.monotonic() + timeout
        while "running at" not in self.log_path.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log_path.read_text(errors="replace")[-3000:]
                raise SystemExit(f"leaderboard serve did not start:\n{tail}")
            time.sleep(0.5)

    def host(self, *args: str) -> str:
        done = subprocess.run([LEADERBOARD, *args], cwd=self.source, env=self.env,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"leaderboard {' '.join(args)} failed: {done.stderr[-2000:]}")
        return done.stdout

    def worker_timeouts(self) -> int:
        return self.log_path.read_text(errors="replace").count("WORKER TIMEOUT")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def attempts_in_db(self, submission_id: int) -> dict[str, Any]:
        with sqlite3.connect(f"file:{self.tmp / 'instance' / 'leaderboard.db'}?mode=ro",
                             uri=True, timeout=10) as db:
            row = db.execute("SELECT status, attempts, failure_reason FROM submission "
                             "WHERE id = ?", (submission_id,)).fetchone()
        return dict(zip(("status", "attempts", "failure_reason"), row or (None,) * 3,
                        strict=True))


# --- measurements ----------------------------------------------------------------------------

def dry_run(base: str, token: str, raw: bytes, wait: float, out: dict[str, Any]) -> None:
    """One dry run until its final answer (polling a 202's check_url), at most ``wait`` s."""
    start = time.perf_counter()
    status, doc, headers = call(base, "POST", "/api/v1/validate", token=token,
                                fields={"leaderboard": BOARD}, file=raw,
                                timeout=min(wait, 90))
    out.update(first_status=status, first_s=round(time.perf_counter() - start, 2))
    polls = 0
    while status == 202 and time.perf_counter() - start < wait and polls < 600:
        url = headers.get("Location") or (doc.get("check_url") if isinstance(doc, dict)
                                          else None) or ""
        path = re.sub(r"^https?://[^/]+", "", url)
        time.sleep(1.0)
        status, doc, headers = call(base, "GET", path, token=token, timeout=30)
        polls += 1
    answered = status not in (0, 202)
    out.update(status=status if answered else None, answered=answered,
               seconds=round(time.perf_counter() - start, 2) if answered else None,
               polls=polls, said=said(doc))


def phase(site: Site, token: str, label: str, raw: bytes, clients: int, wait: float,
          rounds: int) -> dict[str, Any]:
    """``rounds`` bursts of ``clients`` dry runs of ``raw`` at once (a burst starts when the
    last one's answers are in), /about read beside them."""
    log(f"dry runs: {label} ({len(raw)} bytes gzipped) x {clients}, {rounds} round(s)")
    before = processes(site.proc.pid)
    cpu = sum(cpu_seconds(p) for p in before["worker"])
    timeouts = site.worker_timeouts()
    reader = Reader(site.base, seconds=rounds * (wait + 60))
    reader.start()
    time.sleep(1.0)   # a few idle readings first
    answers: list[dict[str, Any]] = []
    start = time.perf_counter()
    for number in range(rounds):
        burst: list[dict[str, Any]] = [{"round": number + 1} for _ in range(clients)]
        threads = [threading.Thread(target=dry_run, args=(site.base, token, raw, wait, out),
                                    daemon=True) for out in burst]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=wait + 120)
        answers += burst
    wall = time.perf_counter() - start
    time.sleep(0.5)
    reader.stop.set()
    reader.join(timeout=15)
    after = processes(site.proc.pid)
    answered = [a["seconds"] for a in answers if a.get("answered")]
    result = {
        "file": label, "gzip_bytes": len(raw), "concurrent": clients, "rounds": rounds,
        "wall_s": round(wall, 2),
        "answered": len(answered), "slowest_answer_s": max(answered) if answered else None,
        "statuses": sorted({str(a.get("status")) for a in answers}),
        "dry_runs": answers, "about": reader.summary(),
        "worker_cpu_s": round(sum(cpu_seconds(p) for p in after["worker"]) - cpu, 2)
        if after["worker"] == before["worker"] else None,
        "gunicorn_workers_kept": before["gunicorn_workers"] == after["gunicorn_workers"],
        "rq_worker_kept": before["worker"] == after["worker"],
        "worker_timeout_lines": site.worker_timeouts() - timeouts,
    }
    log(f"  answered {len(answered)}/{len(answers)} ({result['statuses']}), slowest "
        f"{result['slowest_answer_s']} s, /about {result['about']}, worker CPU "
        f"{result['worker_cpu_s']} s")
    return result


def settle(site: Site, seconds: float) -> float:
    """Wait (at most ``seconds``) until the worker is idle: nothing queued or started on the
    scoring and checks queues (a check whose client gave up may still run). Returns seconds."""
    from redis import Redis
    from rq import Queue
    from rq.registry import StartedJobRegistry

    registry = json.loads((site.tmp / "instance" / "redis.db.settings").read_text())
    redis = Redis(unix_socket_path=registry["unixsocket"])
    start = time.monotonic()
    try:
        while time.monotonic() - start < seconds:
            busy = 0
            for name in ("scoring", "scoring-checks"):
                busy += Queue(name, connection=redis).count
                busy += len(StartedJobRegistry(name, connection=redis).get_job_ids())
            if not busy:
                break
            time.sleep(1.0)
    finally:
        redis.close()
    return round(time.monotonic() - start, 1)


def upload(site: Site, token: str, raw: bytes, wait: float) -> dict[str, Any]:
    """The upload, polled (every 0.25 s for 10 s, then every 2 s; at most ``wait`` s) until
    its status is final."""
    log(f"upload: {len(raw)} bytes gzipped")
    before = processes(site.proc.pid)
    cpu = sum(cpu_seconds(p) for p in before["worker"])
    timeouts = site.worker_timeouts()
    reader = Reader(site.base, seconds=wait + 60)
    reader.start()
    start = time.perf_counter()
    status, doc, _h = call(site.base, "POST", "/api/v1/submissions", token=token,
                           fields={"leaderboard": BOARD, "system_name": "long lines"},
                           file=raw, timeout=60)
    result: dict[str, Any] = {"gzip_bytes": len(raw), "post_status": status,
                              "post_s": round(time.perf_counter() - start, 2)}
    if status != 202 or not isinstance(doc, dict):
        reader.stop.set()
        reader.join(timeout=15)
        result.update(said=said(doc), about=reader.summary())
        return result
    sid, body, final_s, polls = doc["id"], doc, None, 0
    while time.perf_counter() - start < wait and polls < 1000:
        time.sleep(0.25 if time.perf_counter() - start < 10 else 2.0)
        code, body, _h = call(site.base, "GET", f"/api/v1/submissions/{sid}", token=token)
        polls += 1
        if code == 200 and isinstance(body, dict) and body.get("status") in FINAL:
            final_s = round(time.perf_counter() - start, 2)
            break
    reader.stop.set()
    reader.join(timeout=15)
    after = processes(site.proc.pid)
    body = body if isinstance(body, dict) else {}
    result.update({
        "submission_id": sid, "final_s": final_s, "status": body.get("status"),
        "attempts": body.get("attempts"), "database": site.attempts_in_db(sid),
        "failure_reason": body.get("failure_reason"),
        "errors": [f'{e.get("code")}: {e.get("message")}'[:200] for e in
                   (body.get("errors") or [])[:3] if isinstance(e, dict)],
        "warnings": len(body.get("warnings") or []), "polls": polls,
        "about": reader.summary(),
        "worker_cpu_s": round(sum(cpu_seconds(p) for p in after["worker"]) - cpu, 2)
        if after["worker"] == before["worker"] else None,
        "gunicorn_workers_kept": before["gunicorn_workers"] == after["gunicorn_workers"],
        "rq_worker_kept": before["worker"] == after["worker"],
        "worker_timeout_lines": site.worker_timeouts() - timeouts,
    })
    log(f"  {result['status']} after {final_s} s, attempts {result['attempts']} "
        f"(database {result['database']}), worker CPU {result['worker_cpu_s']} s")
    return result


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def export_commit(rev: str, into: Path) -> str:
    """``git archive rev`` of this repository unpacked into ``into``; its short id."""
    commit = git(ROOT, "rev-parse", "--short", f"{rev}^{{commit}}")
    if not commit:
        raise SystemExit(f"no commit {rev!r} in {ROOT}")
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    archive.stdout.close()
    if archive.wait() != 0:
        raise SystemExit(f"git archive {commit} failed")
    return commit


def git_state(source: Path) -> dict[str, Any]:
    head = git(source, "rev-parse", "--short", "HEAD")
    dirty = git(source, "status", "--porcelain", "--untracked-files=no")
    return {"source": str(source), "commit": head or None,
            "uncommitted_changes": bool(dirty) if head else None}


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", help="Run this commit of the repository (git archive).")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="Checkout to run (default: this one, work tree as it is).")
    parser.add_argument("--wait", type=float, default=120,
                        help="Seconds a dry run is waited for before it counts as unanswered.")
    parser.add_argument("--upload-wait", type=float, default=400,
                        help="Seconds the upload is polled for a final status.")
    parser.add_argument("--rounds", type=int, default=1,
                        help="Bursts of concurrent dry runs per file and concurrency.")
    parser.add_argument("--start-timeout", type=float, default=900)
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if not (lexsub_dir() / "lst_all.gold").is_file():
        print(f"SKIPPED: no LS07 files at {lexsub_dir()} (../shared/data/lexsub): the "
              f"{BOARD} board is not set up")
        return 0
    report: dict[str, Any] = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
                              "nproc": os.cpu_count(), "loadavg_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="bench-untrusted-") as tmp:
        if args.commit:
            source = Path(tmp) / "source"
            report.update(source=f"git archive {args.commit}",
                          commit=export_commit(args.commit, source), uncommitted_changes=False)
        else:
            source = args.source.resolve()
            report.update(git_state(source))
        site = Site(tmp, source)
        try:
            log(f"starting leaderboard serve from {source} on {site.base}")
            started = time.perf_counter()
            site.start(args.start_timeout)
            report["serve_start_s"] = round(time.perf_counter() - started, 1)
            if not _measure(site, args, report):
                return 0
        finally:
            site.stop()
    print(json.dumps(report, indent=1))
    return 0


def _measure(site: Site, args: argparse.Namespace, report: dict[str, Any]) -> bool:
    """Idle page reads, then bursts of dry runs of each file, then one upload, into
    ``report``; False (nothing measured) when the board is absent."""
    files = [
        ("100,000 x 'a'", gz(b"a" * 100_000), [2, 8]),
        ("'....' x 5,000 (20,000 chars)", gz(b"...." * 5_000), [2]),
        ("20,000 x 'a'", gz(b"a" * 20_000), [2]),
    ]
    upload_raw = gz(b"side.n 301 :: team\n" + b"c" * 60_000 + b"\n" + b"c" * 60_000 + b"\n")
    site.host("team", "create", TEAM, "--email", EMAIL, "--password", PASSWORD)
    token = site.host("token", "create", "--team", TEAM, "--name", "bench"
                      ).strip().splitlines()[-1]
    _s, boards, _h = call(site.base, "GET", "/api/v1/leaderboards")
    slugs = [b.get("slug") for b in (boards or {}).get("leaderboards", [])] \
        if isinstance(boards, dict) else []
    if BOARD not in slugs:
        print(f"SKIPPED: board {BOARD} is absent (boards: {slugs})")
        return False
    idle = Reader(site.base, seconds=30, limit=40)
    idle.run()
    report["about_idle"] = idle.summary()
    report["processes_start"] = processes(site.proc.pid)
    report["dry_run_phases"] = []
    for label, raw, counts in files:
        for clients in counts:
            report["dry_run_phases"].append(
                phase(site, token, label, raw, clients, args.wait,
                      max(1, min(args.rounds, 50))))
            report["dry_run_phases"][-1]["settle_s"] = settle(site, 900)
    report["upload"] = upload(site, token, upload_raw, args.upload_wait)
    report["processes_end"] = processes(site.proc.pid)
    report["worker_timeout_lines_total"] = site.worker_timeouts()
    report["loadavg_end"] = os.getloadavg()
    return True


if __name__ == "__main__":
    sys.exit(main())
