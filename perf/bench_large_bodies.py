"""Large request bodies beside ``/about`` on one web process: does it keep answering?

gunicorn (the project's config: gevent, ``WEB_CONCURRENCY=1``) on a throw-away SQLite
instance and its embedded Redis; a timer GETs ``/about`` one after another while two client
processes send, as fast as the server takes them, each one body of a case:

- ``100MB-length``: ``Content-Length: 100 MB`` (over the 50 MiB limit), then 100 MB;
- ``100MB-chunked``: chunked, 100 MB, no length (the limit is only met while reading);
- ``45MB-upload``: a legal 45 MB multipart body (read whole, then refused: no token).

Prints, per case, /about's median, p95 and maximum latency while the bodies were sent (and
alone before), each body's answer and how long its client took. ``--root`` runs another
checkout's code with its own ``.venv`` (an A/B of before and after).

    .venv/bin/python perf/bench_large_bodies.py [--root ../main] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import Reader, summary_ms  # noqa: E402
from ops_harness import ROOT, bin_dir, free_port, start_gunicorn, stop  # noqa: E402

BOUNDARY = "b0undary"
CHUNK = b"x" * (64 * 1024)
PART_HEAD = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; "
             "filename=\"r.json\"\r\n\r\n").encode()
MB = 1000 * 1000


def start_site(root: Path, tmp: str) -> tuple[subprocess.Popen, int]:
    """Migrate a fresh SQLite file with ``root``'s code, then its gunicorn; (process, port)."""
    port = free_port()
    env = dict(os.environ, WEB_CONCURRENCY="1", LEADERBOARD_LOG_REQUESTS="0",
               LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance",
               LEADERBOARD_DATABASE_URL=f"sqlite:///{tmp}/bench.db", LEADERBOARD_REDIS_URL="")
    subprocess.run([str(bin_dir(root) / "leaderboard"), "db", "upgrade"], cwd=root, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return start_gunicorn(env, port, root, "/about"), port


def _pieces(case: str):
    """(request head lines, body pieces) of a case."""
    if case == "100MB-length":
        return [f"Content-Length: {100 * MB}"], (CHUNK for _ in range(100 * MB // len(CHUNK)))
    if case == "100MB-chunked":
        def chunks():
            yield b"%x\r\n%s\r\n" % (len(PART_HEAD), PART_HEAD)
            for _ in range(100 * MB // len(CHUNK)):
                yield b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK)
            yield b"0\r\n\r\n"
        return ["Transfer-Encoding: chunked"], chunks()
    body = PART_HEAD + b"x" * (45 * MB) + f"\r\n--{BOUNDARY}--\r\n".encode()
    return ([f"Content-Length: {len(body)}"],
            (body[i:i + len(CHUNK)] for i in range(0, len(body), len(CHUNK))))


def send_body(port: int, case: str, results) -> None:
    """One client: the case's body as fast as the server reads it; puts (case, status line,
    seconds, MB sent) on ``results``."""
    headers, body = _pieces(case)
    path = "/api/v1/validate" if case != "100MB-length" else "/api/v1/submissions"
    head = "\r\n".join([f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}",
                        f"Content-Type: multipart/form-data; boundary={BOUNDARY}", *headers])
    start, sent = time.monotonic(), 0
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    try:
        sock.sendall((head + "\r\n\r\n").encode())
        for piece in body:
            sock.sendall(piece)
            sent += len(piece)
    except OSError:
        pass
    answer = b""
    try:
        sock.settimeout(10)
        answer = sock.recv(4096)
    except OSError:
        pass
    sock.close()
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "(no answer)"
    results.put((case, status, time.monotonic() - start, sent / MB))


def about_beside(port: int, seconds: float = 0) -> Reader:
    """A reader of ``/about``, one request after another, started."""
    reader = Reader(f"http://127.0.0.1:{port}", pause=0, timeout=60)
    reader.start()
    time.sleep(seconds)
    return reader


def run_case(port: int, case: str, clients: int = 2) -> dict:
    reader = about_beside(port, 0.5)
    reader.latencies.clear()   # from here on: while the bodies are sent
    results = multiprocessing.Queue()
    senders = [multiprocessing.Process(target=send_body, args=(port, case, results))
               for _ in range(clients)]
    for sender in senders:
        sender.start()
    answers = [results.get(timeout=300) for _ in senders]
    for sender in senders:
        sender.join()
    return {"case": case, "about": reader.finish(),
            "bodies": [{"answer": a[1], "seconds": round(a[2], 2), "sent_MB": round(a[3], 1)}
                       for a in answers]}


def baseline(port: int, seconds: float = 3.0) -> dict:
    reader = about_beside(port, seconds)
    reader.finish()
    return {"case": "alone", "about": summary_ms(reader.latencies[3:])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout to run")
    parser.add_argument("--cases", default="100MB-length,100MB-chunked,45MB-upload")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_site(args.root.resolve(), tmp)
        try:
            rows = [baseline(port)]
            rows += [run_case(port, case) for case in args.cases.split(",")]
        finally:
            stop(proc)
    load = os.getloadavg()
    for row in rows:
        print(json.dumps({"root": str(args.root), "load1": round(load[0], 2), **row}))


if __name__ == "__main__":
    main()
