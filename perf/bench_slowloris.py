"""Slow clients against `make run`: do normal requests still get answered?

Starts the real ``leaderboard serve`` (web, worker, embedded Redis; demo data; a temporary
instance folder, no LS07/CoInCo import) on a free port, then opens N slow clients (default
200): half trickle their request headers one byte every 2 s, half send complete headers of
a POST with a 1 MB body and trickle the body. While they hold their connections, it times
normal ``GET /`` and ``GET /about`` requests, one after another, for 30 s, and prints the
median, p95 and maximum latency and how many failed (10 s timeout). Then it stops everything.

    .venv/bin/python perf/bench_slowloris.py [--clients 200] [--seconds 30] [--json]
    GUNICORN_WORKER_CLASS=gthread .venv/bin/python perf/bench_slowloris.py   # before
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEADERBOARD = str(Path(sys.executable).with_name("leaderboard"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _slow_client(port: int, body: bool, stop: asyncio.Event, opened: list[int]) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return
    opened[0] += 1
    try:
        if body:
            writer.write(b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/octet-stream\r\n"
                         b"Content-Length: 1000000\r\n\r\n")
        else:
            writer.write(b"GET / HTTP/1.1\r\n")
        while not stop.is_set():
            writer.write(b"x")   # one more byte of the header line, or of the body
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 2)
    except OSError:
        pass
    finally:
        writer.close()


def _timed_get(url: str) -> float | None:
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            response.read()
            if response.status != 200:
                return None
    except OSError:
        return None
    return time.perf_counter() - start


async def _attack(port: int, clients: int, seconds: float) -> dict:
    stop, opened = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_slow_client(port, i % 2 == 1, stop, opened))
             for i in range(clients)]
    await asyncio.sleep(3)            # every slow client connected and started trickling
    latencies, failed = [], 0
    deadline = time.monotonic() + seconds
    paths = ("/", "/about")
    n = 0
    while time.monotonic() < deadline:
        took = await asyncio.to_thread(_timed_get, f"http://127.0.0.1:{port}{paths[n % 2]}")
        n += 1
        if took is None:
            failed += 1
        else:
            latencies.append(took)
        await asyncio.sleep(0.2)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    ordered = sorted(latencies)
    return {"slow_clients": clients, "slow_clients_connected": opened[0],
            "requests": n, "failed": failed,
            "median_ms": round(1000 * statistics.median(ordered), 1) if ordered else None,
            "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1)
            if ordered else None,
            "max_ms": round(1000 * ordered[-1], 1) if ordered else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("LEADERBOARD_") or k == "LEADERBOARD_LEXSUB_DIR"}
        env.update(LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance",
                   LEADERBOARD_LEXSUB_DIR=f"{tmp}/no-lexsub")
        with open(f"{tmp}/serve.log", "w") as log:
            server = subprocess.Popen([LEADERBOARD, "serve", "--port", str(port)], cwd=ROOT,
                                      env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            while "running at" not in Path(f"{tmp}/serve.log").read_text():
                if server.poll() is not None or time.monotonic() > deadline:
                    print(Path(f"{tmp}/serve.log").read_text()[-2000:])
                    return 1
                time.sleep(0.5)
            baseline = [t for t in (_timed_get(f"http://127.0.0.1:{port}/")
                                    for _ in range(10)) if t is not None]
            result = asyncio.run(_attack(port, args.clients, args.seconds))
            result["worker_class"] = os.environ.get("GUNICORN_WORKER_CLASS", "default")
            result["idle_median_ms"] = round(1000 * statistics.median(baseline), 1)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<24} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
