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
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import request, seed  # noqa: E402
from ops_harness import (  # noqa: E402
    FINAL,
    ROOT,
    TEST_SPLIT,
    RedisServer,
    bin_dir,
    free_port,
    spawn,
    start_gunicorn,
    stop,
)


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


def flood_client(base: str, token: str, raw: bytes, halt: threading.Event,
                 answers: collections.Counter) -> None:
    while not halt.is_set():
        status, _doc, headers = request(base, "POST", "/api/v1/validate", token=token,
                                        file=raw, timeout=120)
        answers[status] += 1
        if status in (429, 503):
            halt.wait(float(headers.get("Retry-After", "5")))


def run(args: argparse.Namespace, tmp: str) -> dict:
    root = args.root.resolve()
    redis, port = RedisServer(tmp), free_port()
    env = dict(os.environ, LEADERBOARD_DATABASE_URL=f"sqlite:///{tmp}/bench.db",
               LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance", LEADERBOARD_SECRET_KEY="bench",
               LEADERBOARD_REDIS_URL=redis.url, LEADERBOARD_LOG_REQUESTS="0",
               WEB_CONCURRENCY="2")
    procs = [redis.proc]
    try:
        # Seeded by the checkout's own code: its models may differ from this one's.
        seeded = json.loads(subprocess.run(
            [str(bin_dir(root) / "python"), __file__, "--seed", tmp], cwd=root, env=env,
            check=True, capture_output=True).stdout.splitlines()[-1])
        procs.append(start_gunicorn(env, port, root, "/about", Path(tmp) / "web.log"))
        procs += [spawn([str(bin_dir(root) / "leaderboard"), "worker"], env, root,
                        Path(tmp) / f"worker-{i}.log") for i in range(2)]
        flood_raw, small = files(seeded["tids"], args.flood_mb)
        return measure(args, f"http://127.0.0.1:{port}", seeded, flood_raw, small)
    finally:
        stop(*procs)


def measure(args, base: str, seeded: dict, flood_raw: bytes, small: bytes) -> dict:
    halt, answers = threading.Event(), collections.Counter()
    clients = [threading.Thread(target=flood_client, args=(base, token, flood_raw, halt, answers))
               for token in seeded["a"][:args.clients]]
    began = time.monotonic()
    for client in clients:
        client.start()
    time.sleep(args.upload_after)
    status, body, _headers = request(base, "POST", "/api/v1/submissions", token=seeded["b"],
                                     fields={"system_name": "B"}, file=small)
    uploaded = time.monotonic()
    if status != 202:
        raise SystemExit(f"B's upload answered {status}")
    scored_at, flood_stopped = None, None
    while time.monotonic() - uploaded < 600:
        now = time.monotonic()
        if flood_stopped is None and (now - began > args.cap or (
                scored_at is not None and now - scored_at > 5)):
            halt.set()
            flood_stopped = now
        doc = request(base, "GET", f"/api/v1/submissions/{body['id']}", token=seeded["b"])[1]
        if scored_at is None and isinstance(doc, dict) and doc.get("status") in FINAL:
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
        (tokens, other), tids = seed(f"sqlite:///{args.seed}/bench.db", f"{args.seed}/instance",
                                     TEST_SPLIT.read_bytes(), (4, 1), hidden=True,
                                     REDIS_URL=os.environ["LEADERBOARD_REDIS_URL"])
        return print(json.dumps({"a": tokens, "b": other[0], "tids": tids}))
    if not TEST_SPLIT.exists():
        raise SystemExit(f"{TEST_SPLIT} is absent (../shared/data)")
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(args, tmp)))


if __name__ == "__main__":
    sys.exit(main())
