"""Upload-to-scored latency over HTTP, and sustained throughput with 1 and 2 workers.

Real SWORDS v1.1 test split in a throw-away SQLite database, embedded Redis, the app served
by werkzeug on 127.0.0.1 (threaded), real ``leaderboard worker`` processes. Each upload is a
distinct full test-split submission (all 762 targets, 20 substitutes each, ~0.3 MB) posted
to ``POST /api/v1/submissions`` with a token; latency runs from just before the POST until
``GET /api/v1/submissions/<id>`` (polled every 20 ms) says ``scored``.

    .venv/bin/python perf/bench_pipeline.py [--latency 20] [--throughput 30]
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
import threading
import time

import numpy as np
import requests
from ops_harness import FILLER, Instance, require_split
from sqlmodel import Session


def make_files(raw_split: bytes, n: int, offset: int) -> list[bytes]:
    """``n`` distinct full-split submissions (seeded by index)."""
    split = json.loads(gzip.decompress(raw_split))
    by_target: dict[str, list[str]] = {tid: [] for tid in split["targets"]}
    for sub in split["substitutes"].values():
        by_target[sub["target_id"]].append(sub["substitute"])
    files = []
    for i in range(offset, offset + n):
        rng = np.random.default_rng(i)
        subs = {tid: [[w, float(20 - j)] for j, w in enumerate(
            list(rng.permutation(c)[:15]) + list(rng.choice(FILLER, 5)))]
            for tid, c in by_target.items()}
        files.append(json.dumps({"substitutes_lemmatized": False, "substitutes": subs}).encode())
    return files


def upload(base: str, token: str, raw: bytes, name: str) -> str:
    response = requests.post(f"{base}/api/v1/submissions",
                             headers={"Authorization": f"Bearer {token}"},
                             data={"name": name}, files={"file": ("r.json", raw)}, timeout=60)
    response.raise_for_status()
    return response.json()["status_url"]


def wait_scored(url: str, token: str) -> None:
    while True:
        status = requests.get(url, headers={"Authorization": f"Bearer {token}"},
                              timeout=30).json()["status"]
        if status in ("scored", "invalid", "failed"):
            assert status == "scored", status
            return
        time.sleep(0.02)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=int, default=20, help="sequential uploads")
    parser.add_argument("--throughput", type=int, default=30, help="uploads per burst")
    args = parser.parse_args()
    raw_split = require_split()
    import logging

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    from werkzeug.serving import make_server

    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token

    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, DAILY_SCORED_QUOTA=10_000, TOTAL_SCORED_QUOTA=10_000,
                        DAILY_ATTEMPT_CAP=10_000, API_RATE_LIMIT="100000 per minute")
        server = make_server("127.0.0.1", 0, inst.app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_port}"
        try:
            inst.import_split(raw_split)
            with Session(inst.engine, expire_on_commit=False) as session:
                team, _ = create_team(session=session, name="Bench", email="b@example.org",
                                      password="bench-password-1", verified=True)
                _row, token = issue_token(session=session, team=team, name="bench")
                session.commit()
            files = make_files(raw_split, args.latency + 2 * args.throughput, 0)
            print(f"file size {len(files[0]) / 1e6:.2f} MB")
            inst.start_workers(1)
            upload_s, latency = [], []
            for i, raw in enumerate(files[:args.latency]):
                start = time.perf_counter()
                url = upload(base, token, raw, f"latency {i}")
                upload_s.append(time.perf_counter() - start)
                wait_scored(url, token)
                latency.append(time.perf_counter() - start)
            print(f"latency, 1 idle worker, n={len(latency)}: p50 {pct(latency, .5):.2f} s, "
                  f"p95 {pct(latency, .95):.2f} s, max {max(latency):.2f} s "
                  f"(upload request alone: p50 {pct(upload_s, .5) * 1000:.0f} ms)")
            rest = files[args.latency:]
            for n_workers, batch in ((1, rest[:args.throughput]), (2, rest[args.throughput:])):
                if n_workers == 2:
                    inst.start_workers(1)
                start = time.perf_counter()
                urls = [upload(base, token, raw, f"burst {n_workers}-{i}")
                        for i, raw in enumerate(batch)]
                for url in urls:
                    wait_scored(url, token)
                wall = time.perf_counter() - start
                print(f"throughput, {n_workers} worker(s), {len(batch)} uploads: {wall:.1f} s, "
                      f"{len(batch) / wall:.2f} submissions/s ({3600 * len(batch) / wall:.0f}"
                      "/hour)")
            print(f"statuses: {inst.statuses()}")
        finally:
            server.shutdown()
            inst.close()


if __name__ == "__main__":
    main()
