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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import Reader, get, summary_ms  # noqa: E402
from ops_harness import free_port, start_serve, stop  # noqa: E402


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


async def _attack(port: int, clients: int, seconds: float) -> dict:
    stop_clients, opened = asyncio.Event(), [0]
    tasks = [asyncio.create_task(_slow_client(port, i % 2 == 1, stop_clients, opened))
             for i in range(clients)]
    await asyncio.sleep(3)            # every slow client connected and started trickling
    reader = Reader(f"http://127.0.0.1:{port}", seconds, paths=("/", "/about"))
    await asyncio.to_thread(reader.run)
    stop_clients.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"slow_clients": clients, "slow_clients_connected": opened[0],
            **summary_ms(reader.latencies)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("LEADERBOARD_") or k == "LEADERBOARD_LEXSUB_DIR"}
        env.update(LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance",
                   LEADERBOARD_LEXSUB_DIR=f"{tmp}/no-lexsub")
        server = start_serve(env, port, Path(tmp) / "serve.log", timeout=180)
        try:
            idle = [get(f"http://127.0.0.1:{port}/")[1] for _ in range(10)]
            result = asyncio.run(_attack(port, args.clients, args.seconds))
            result["worker_class"] = os.environ.get("GUNICORN_WORKER_CLASS", "default")
            result["idle_median_ms"] = summary_ms(idle)["p50_ms"]
        finally:
            stop(server)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<24} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
