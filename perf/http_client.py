"""HTTP for the measurements against a running site: one request with its answer, a reader
that times a page beside the load, latency percentiles, and a throw-away database with a
split and teams holding API tokens."""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Answer = tuple[int, Any, dict[str, str]]


def request(base: str, method: str, path: str, *, token: str | None = None,
            fields: dict | None = None, file: bytes | None = None,
            headers: dict | None = None, timeout: float = 60) -> Answer:
    """One request (multipart when ``fields`` or ``file``); (status, JSON or text, headers).
    Status 0: no answer (refused, reset or timed out)."""
    hdrs = dict(headers or {})
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    body = None
    if fields is not None or file is not None:
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                 .encode() for k, v in (fields or {}).items()]
        if file is not None:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                         f'filename="result.gz"\r\nContent-Type: application/octet-stream'
                         f"\r\n\r\n".encode() + file + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        hdrs["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    req = urllib.request.Request(base + path, data=body, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            status, text, got = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        status, text, got = exc.code, exc.read(), dict(exc.headers)
    except OSError as exc:
        return 0, repr(exc)[:200], {}
    try:
        return status, json.loads(text), got
    except ValueError:
        return status, text[:200].decode(errors="replace"), got


def said(doc: Any) -> str:
    """A short account of an answer: the error, or the report's first error or warning."""
    if not isinstance(doc, dict):
        return str(doc)[:160]
    if "error" in doc:
        return f'{doc["error"]["code"]}: {doc["error"]["message"]}'[:200]
    for kind in ("errors", "warnings"):
        if items := doc.get(kind):
            first = items[0]
            text = (f'{first.get("code")}: {first.get("message")}' if isinstance(first, dict)
                    else str(first))
            more = f" (+{len(items) - 1} more)" if len(items) > 1 else ""
            return f'ok={doc.get("ok")}; {kind[:-1]} {text}'[:200] + more
    return f'status {doc["status"]}' if "status" in doc else f'ok={doc.get("ok")}'


def get(url: str, headers: dict[str, str] | None = None, timeout: float = 30
        ) -> tuple[int, float]:
    """(status, seconds) of one GET; status 0 when the connection failed or timed out."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=timeout) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        exc.read()
        status = exc.code
    except OSError:
        status = 0
    return status, time.perf_counter() - start


def summary_ms(latencies: list[float]) -> dict[str, Any]:
    """Count, failures, median, p95 and maximum in ms; a failure (``inf``) counts as slowest,
    and a percentile it decides is None."""
    ordered = sorted(latencies)
    if not ordered:
        return {"requests": 0}
    ms = lambda s: None if s == float("inf") else round(1000 * s, 1)  # noqa: E731
    return {"requests": len(ordered), "failed": ordered.count(float("inf")),
            "p50_ms": ms(statistics.median(ordered)),
            "p95_ms": ms(ordered[int(0.95 * (len(ordered) - 1))]), "max_ms": ms(ordered[-1])}


class Reader(threading.Thread):
    """GETs ``paths`` in turn, ``pause`` s apart, until stopped or ``seconds`` pass; keeps each
    latency (``inf`` for a failure or a status other than 200)."""

    def __init__(self, base: str, seconds: float = 3600, pause: float = 0.2,
                 paths: tuple[str, ...] = ("/about",), timeout: float = 10):
        super().__init__(daemon=True)
        self.base, self.seconds, self.pause, self.paths = base, seconds, pause, paths
        self.timeout = timeout
        self.halt = threading.Event()
        self.latencies: list[float] = []

    def run(self) -> None:
        deadline, n = time.monotonic() + self.seconds, 0
        while not self.halt.is_set() and time.monotonic() < deadline:
            status, took = get(self.base + self.paths[n % len(self.paths)],
                               timeout=self.timeout)
            self.latencies.append(took if status == 200 else float("inf"))
            n += 1
            self.halt.wait(self.pause)

    def finish(self) -> dict[str, Any]:
        """Stop, and the summary of what was read (:func:`summary_ms`)."""
        self.halt.set()
        if self.ident is not None:  # started as a thread, not run here
            self.join(timeout=30)
        return summary_ms(self.latencies)


def seed(url: str, instance: str, split: bytes | None = None, tokens: tuple[int, ...] = (1, 1),
         hidden: bool = False, **settings: Any) -> tuple[list[list[str]], list[str]]:
    """``split`` (default the demo split) as the default board, a team with ``tokens[i]``
    API tokens for each ``i``; returns (each team's tokens, the target ids)."""
    import gzip

    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token
    from leaderboard.services.catalog.benchmarks import import_benchmark

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False, **settings})
    engine = app.extensions["db_engine"]
    create_all(engine)
    raw = split or (ROOT / "leaderboard" / "demo" / "demo_split.json").read_bytes()
    name = ("swords", "1.1") if split else ("swords-demo", "1")
    with Session(engine, expire_on_commit=False) as session:
        import_benchmark(session=session, raw=raw, name=name[0], version=name[1], split="test",
                         hidden=hidden, make_default=True)
        teams = []
        for i, n in enumerate(tokens):
            team, _user = create_team(session=session, name=f"Team {'ABCDEFGH'[i]}",
                                      email=f"{'abcdefgh'[i]}@example.org",
                                      password="correct horse battery", verified=True)
            teams.append([issue_token(session=session, team=team, name=f"t{k}")[1]
                          for k in range(n)])
        session.commit()
    engine.dispose()
    doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    return teams, list(doc["targets"])
