"""Untrusted files against `make run`: tiny gzips of long lines sent as dry runs
and as an upload, with ``GET /about`` timed beside them.

Starts the real ``leaderboard serve`` (gunicorn, one RQ worker, the ranker, embedded Redis; the
demo and the LS07/CoInCo boards from ../shared/data/lexsub, as ``make run`` does) on a free
loopback port with a throw-away instance folder, creates a team and an API token with the host
commands, then:

1. dry runs (``POST /api/v1/validate``, board ``semeval07-test-generative``) of gzipped long
   lines without `` :: ``: 100,000 ``a`` (133 bytes) 2 and then 8 at once, ``....`` x 5,000
   and 20,000 ``a`` (20,000 characters, 55 bytes each) 2 at once, and 10^6 distinct lines
   (refused at the line limit) alone; each burst ``--rounds`` times, one after the other.
   While they run, one reader loops ``GET /about``: its p50/p95/max are reported beside each
   dry run's answer (status, seconds, what it said). A dry run answered 202 is polled at its
   ``check_url``.
2. the 183-byte upload (``side.n 301 :: team`` then two lines of 60,000 ``c``, gzipped)
   through ``POST /api/v1/submissions`` on the same board: seconds until its status is final,
   its ``attempts``, final status and reason, /about beside it.

The API rate limit is raised to 600 a minute so that polling a slow check is not refused
(nothing else differs from ``make run``). Prints one JSON document on stdout (progress on
stderr). ``--source DIR`` runs another checkout (e.g. a ``git worktree`` of an older commit).

    .venv/bin/python perf/bench_untrusted.py [--source DIR] [--rounds 1] [--wait 120]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_client import Reader, request, said  # noqa: E402
from ops_harness import FINAL, ROOT, bin_dir, free_port, start_serve, stop  # noqa: E402

BOARD = "semeval07-test-generative"
TEAM, EMAIL, PASSWORD = "Untrusted Bench", "untrusted-bench@example.org", "correct horse battery"
LEXSUB = Path(os.environ.get("LEADERBOARD_LEXSUB_DIR", ROOT.parent / "shared/data/lexsub"))


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def dry_run(base: str, token: str, raw: bytes, wait: float, out: dict[str, Any]) -> None:
    """One dry run until its final answer (polling a 202's check_url), at most ``wait`` s."""
    start = time.perf_counter()
    status, doc, headers = request(base, "POST", "/api/v1/validate", token=token,
                                   fields={"leaderboard": BOARD}, file=raw,
                                   timeout=min(wait, 90))
    out.update(first_status=status, first_s=round(time.perf_counter() - start, 2))
    polls = 0
    while status == 202 and time.perf_counter() - start < wait and polls < 600:
        url = headers.get("Location") or (doc.get("check_url") if isinstance(doc, dict)
                                          else None) or ""
        time.sleep(1.0)
        status, doc, headers = request(base, "GET", re.sub(r"^https?://[^/]+", "", url),
                                       token=token, timeout=30)
        polls += 1
    answered = status not in (0, 202)
    out.update(status=status if answered else None, answered=answered,
               seconds=round(time.perf_counter() - start, 2) if answered else None,
               polls=polls, said=said(doc))


def phase(base: str, token: str, label: str, raw: bytes, clients: int, wait: float,
          rounds: int) -> dict[str, Any]:
    """``rounds`` bursts of ``clients`` dry runs of ``raw`` at once (a burst starts when the
    last one's answers are in), /about read beside them."""
    log(f"dry runs: {label} ({len(raw)} bytes gzipped) x {clients}, {rounds} round(s)")
    reader = Reader(base, seconds=rounds * (wait + 60), pause=0.05)
    reader.start()
    time.sleep(1.0)   # a few idle readings first
    answers: list[dict[str, Any]] = []
    start = time.perf_counter()
    for number in range(rounds):
        burst: list[dict[str, Any]] = [{"round": number + 1} for _ in range(clients)]
        threads = [threading.Thread(target=dry_run, args=(base, token, raw, wait, out),
                                    daemon=True) for out in burst]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=wait + 120)
        answers += burst
    wall = time.perf_counter() - start
    time.sleep(0.5)
    answered = [a["seconds"] for a in answers if a.get("answered")]
    result = {"file": label, "gzip_bytes": len(raw), "concurrent": clients, "rounds": rounds,
              "wall_s": round(wall, 2), "answered": len(answered),
              "slowest_answer_s": max(answered) if answered else None,
              "statuses": sorted({str(a.get("status")) for a in answers}),
              "dry_runs": answers, "about": reader.finish()}
    log(f"  answered {len(answered)}/{len(answers)} ({result['statuses']}), slowest "
        f"{result['slowest_answer_s']} s, /about {result['about']}")
    return result


def settle(instance: Path, seconds: float) -> float:
    """Wait (at most ``seconds``) until the worker is idle: nothing queued or started on the
    scoring and checks queues (a check whose client gave up may still run). Returns seconds."""
    from redis import Redis
    from rq import Queue
    from rq.registry import StartedJobRegistry

    registry = json.loads((instance / "redis.db.settings").read_text())
    redis = Redis(unix_socket_path=registry["unixsocket"])
    start = time.monotonic()
    try:
        while time.monotonic() - start < seconds and sum(
                Queue(name, connection=redis).count
                + len(StartedJobRegistry(name, connection=redis).get_job_ids())
                for name in ("scoring", "scoring-checks")):
            time.sleep(1.0)
    finally:
        redis.close()
    return round(time.monotonic() - start, 1)


def upload(base: str, token: str, raw: bytes, wait: float) -> dict[str, Any]:
    """The upload, polled (every 0.25 s for 10 s, then every 2 s; at most ``wait`` s) until
    its status is final."""
    log(f"upload: {len(raw)} bytes gzipped")
    reader = Reader(base, seconds=wait + 60, pause=0.05)
    reader.start()
    start = time.perf_counter()
    status, doc, _h = request(base, "POST", "/api/v1/submissions", token=token,
                              fields={"leaderboard": BOARD, "system_name": "long lines"},
                              file=raw, timeout=60)
    result: dict[str, Any] = {"gzip_bytes": len(raw), "post_status": status,
                              "post_s": round(time.perf_counter() - start, 2)}
    if status != 202 or not isinstance(doc, dict):
        return {**result, "said": said(doc), "about": reader.finish()}
    body, final_s = doc, None
    while time.perf_counter() - start < wait:
        time.sleep(0.25 if time.perf_counter() - start < 10 else 2.0)
        code, body, _h = request(base, "GET", f"/api/v1/submissions/{doc['id']}", token=token)
        if code == 200 and isinstance(body, dict) and body.get("status") in FINAL:
            final_s = round(time.perf_counter() - start, 2)
            break
    body = body if isinstance(body, dict) else {}
    result.update(submission_id=doc["id"], final_s=final_s, status=body.get("status"),
                  attempts=body.get("attempts"), failure_reason=body.get("failure_reason"),
                  said=said(body), about=reader.finish())
    log(f"  {result['status']} after {final_s} s, attempts {result['attempts']}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT, help="checkout to run")
    parser.add_argument("--wait", type=float, default=120,
                        help="seconds a dry run is waited for before it counts as unanswered")
    parser.add_argument("--upload-wait", type=float, default=400)
    parser.add_argument("--rounds", type=int, default=1,
                        help="bursts of concurrent dry runs per file and concurrency")
    args = parser.parse_args()
    if not (LEXSUB / "lst_all.gold").is_file():
        print(f"SKIPPED: no LS07 files at {LEXSUB}: the {BOARD} board is not set up")
        return 0
    source = args.source.resolve()
    report: dict[str, Any] = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
                              "nproc": os.cpu_count(), "loadavg_start": os.getloadavg(),
                              "source": str(source)}
    with tempfile.TemporaryDirectory(prefix="bench-untrusted-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")
               or k in ("LEADERBOARD_WORDNET_TABLE", "LEADERBOARD_WORDNET_DIR")}
        env.update(LEADERBOARD_INSTANCE_PATH=f"{tmp}/instance",
                   LEADERBOARD_LEXSUB_DIR=str(LEXSUB),
                   LEADERBOARD_API_RATE_LIMIT="600 per minute",
                   # every phase is one team's: its dry-run budget must not answer for the file
                   LEADERBOARD_DRY_RUN_RATE_LIMIT="600 per minute", PYTHONUNBUFFERED="1")
        port, started = free_port(), time.perf_counter()
        log(f"starting leaderboard serve from {source} on port {port}")
        serve = start_serve(env, port, Path(tmp) / "serve.log", source)
        try:
            report["serve_start_s"] = round(time.perf_counter() - started, 1)
            host = lambda *a: subprocess.run(  # noqa: E731
                [str(bin_dir(source) / "leaderboard"), *a], cwd=source, env=env, check=True,
                capture_output=True, text=True, timeout=300).stdout
            host("team", "create", TEAM, "--email", EMAIL, "--password", PASSWORD)
            token = host("token", "create", "--team", TEAM, "--name", "bench").split()[-1]
            _measure(f"http://127.0.0.1:{port}", Path(tmp) / "instance", token, args, report)
        finally:
            stop(serve)
    print(json.dumps(report, indent=1))
    return 0


def _measure(base: str, instance: Path, token: str, args: argparse.Namespace,
             report: dict[str, Any]) -> None:
    """Idle page reads, then bursts of dry runs of each file, then one upload, into
    ``report``."""
    files = [
        ("100,000 x 'a'", gz(b"a" * 100_000), [2, 8]),
        ("'....' x 5,000 (20,000 chars)", gz(b"...." * 5_000), [2]),
        ("20,000 x 'a'", gz(b"a" * 20_000), [2]),
        ("10^6 lines", gz(b"".join(b"side.n %d :: team\n" % i for i in range(10**6))), [1]),
    ]
    idle = Reader(base, seconds=2.5, pause=0.05)
    idle.run()
    report["about_idle"] = idle.finish()
    report["dry_run_phases"] = []
    for label, raw, counts in files:
        for clients in counts:
            report["dry_run_phases"].append(
                phase(base, token, label, raw, clients, args.wait, max(1, min(args.rounds, 50))))
            report["dry_run_phases"][-1]["settle_s"] = settle(instance, 900)
    upload_raw = gz(b"side.n 301 :: team\n" + b"c" * 60_000 + b"\n" + b"c" * 60_000 + b"\n")
    report["upload"] = upload(base, token, upload_raw, args.upload_wait)
    report["loadavg_end"] = os.getloadavg()


if __name__ == "__main__":
    sys.exit(main())
