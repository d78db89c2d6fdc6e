"""Bad inputs: every malformed request we could think of, sent over HTTP to gunicorn, and the
answer given (status, error code, message), printed as a Markdown table.

A throw-away SQLite instance with the demo split (WordNet is needed once to prepare it), one
team with an API token, gunicorn on a free loopback port. Upload limit 1 MB and API rate
limit 60/minute so the limits are reached quickly.

    .venv/bin/python perf/bench_bad_inputs.py
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from bench_load import free_port, start_gunicorn, stop

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LIMIT = 1024 * 1024


def request(base: str, method: str, path: str, *, token: str | None = None,
            fields: dict | None = None, file: bytes | None = None, raw_body: bytes | None = None,
            headers: dict | None = None) -> tuple[int, str]:
    """One HTTP request (multipart when fields/file given); returns (status, short answer)."""
    hdrs = dict(headers or {})
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    body = raw_body
    if fields is not None or file is not None:
        boundary = uuid.uuid4().hex
        parts = []
        for key, value in (fields or {}).items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n'
                         f"{value}\r\n".encode())
        if file is not None:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                         f'filename="result.json"\r\nContent-Type: application/octet-stream'
                         f"\r\n\r\n".encode() + file + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        hdrs["Content-Type"] = f"multipart/form-data; boundary={boundary}"
    req = urllib.request.Request(base + path, data=body, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode(errors="replace")
    return status, summarize(text)


def summarize(text: str) -> str:
    try:
        doc = json.loads(text)
    except ValueError:
        return text[:80].replace("\n", " ")
    if "error" in doc:
        return f'{doc["error"]["code"]}: {doc["error"]["message"]}'
    if "errors" in doc and doc["errors"]:
        first = doc["errors"][0]
        more = len(doc["errors"]) - 1
        return (f'ok={doc.get("ok")}; {first["code"]}: {first["message"]}'
                + (f" (+{more} more)" if more else ""))
    if doc.get("warnings"):
        first = doc["warnings"][0]
        text = first["message"] if isinstance(first, dict) else str(first)
        return f'ok={doc.get("ok")}; warning: {text}'
    if "status" in doc:
        return f'status {doc["status"]}'
    return text[:100]


def seed(url: str, instance: str) -> tuple[str, str, list[str]]:
    """Demo split as default, two teams with tokens; returns (token A, token B, target ids)."""
    from sqlmodel import Session

    from leaderboard import create_app
    from leaderboard.db import create_all
    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token
    from leaderboard.services.catalog.benchmarks import import_benchmark

    app = create_app({"INSTANCE_PATH": instance, "DATABASE_URL": url, "SECRET_KEY": "bench",
                      "LOG_REQUESTS": False})
    engine = app.extensions["db_engine"]
    create_all(engine)
    split = (ROOT / "leaderboard" / "demo" / "demo_split.json").read_bytes()
    with Session(engine, expire_on_commit=False) as session:
        import_benchmark(session=session, raw=split, name="swords-demo", version="1",
                         split="test", make_default=True)
        tokens = []
        for name in ("Team A", "Team B"):
            team, _user = create_team(session=session, name=name,
                                      email=f"{name[-1].lower()}@example.org",
                                      password="correct horse battery", verified=True)
            tokens.append(issue_token(session=session, team=team, name="ci")[1])
        session.commit()
    engine.dispose()
    return tokens[0], tokens[1], list(json.loads(split)["targets"])


def cases(tids: list[str]) -> list[tuple[str, dict]]:
    """(description, request kwargs) for every bad input; 'path' defaults to validate."""
    good = {"substitutes_lemmatized": False, "substitutes": {tids[0]: [["fast", 1.0]]}}

    def doc(substitutes, **top) -> bytes:
        return json.dumps({"substitutes_lemmatized": False, "substitutes": substitutes,
                           **top}).encode()

    bomb = gzip.compress(b'{"substitutes": {"' + b" " * (300 * 1024 * 1024) + b'"}}',
                         compresslevel=9)
    return [
        ("no Authorization header", {"token": None, "file": json.dumps(good).encode()}),
        ("unknown token", {"token": "swl_" + "x" * 40, "file": json.dumps(good).encode()}),
        ("Authorization not Bearer", {"token": None, "headers": {"Authorization": "Basic Zm9v"},
                                      "file": json.dumps(good).encode()}),
        ("upload without a file field", {"path": "/api/v1/submissions",
                                         "fields": {"name": "x"}}),
        ("upload without a system name", {"path": "/api/v1/submissions",
                                          "file": json.dumps(good).encode()}),
        ("upload over 1 MB (limit)", {"path": "/api/v1/submissions", "fields": {"name": "big"},
                                      "file": b" " * (LIMIT + 10)}),
        ("empty file", {"file": b""}),
        ("not JSON", {"file": b"hello world"}),
        ("invalid UTF-8", {"file": b'{"substitutes": {"\xff": []}}'}),
        ("broken gzip", {"file": b"\x1f\x8b\x08\x00garbage"}),
        ("gzip bomb (300 MB inflated, 300 kB sent)", {"file": bomb}),
        ("JSON array at top level", {"file": b"[1, 2, 3]"}),
        ("no 'substitutes' key", {"file": b'{"substitutes_lemmatized": true}'}),
        ("'substitutes' is a list", {"file": doc([])}),
        ("unknown target id", {"file": doc({"t:" + "0" * 40: ["fast"]})}),
        ("target id twice", {"file": (b'{"substitutes": {"%s": ["a"], "%s": ["b"]}}'
                                      % (tids[0].encode(), tids[0].encode()))}),
        ("target's list is a string", {"file": doc({tids[0]: "fast"})}),
        ("substitute is a number", {"file": doc({tids[0]: [42]})}),
        ("score is a string", {"file": doc({tids[0]: [["fast", "high"]]})}),
        ("score is NaN", {"file": doc({tids[0]: [["fast", float("nan")]]})}),
        ("score is Infinity", {"file": b'{"substitutes": {"%s": [["fast", Infinity]]}}'
                               % tids[0].encode()}),
        ("pair with three items", {"file": doc({tids[0]: [["fast", 1.0, 2]]})}),
        ("empty substitute string", {"file": doc({tids[0]: [["", 1.0], ["fast", 0.5]]})}),
        ("6,000 substitutes for one target (limit 5,000)",
         {"file": doc({tids[0]: [f"w{i}" for i in range(6000)]})}),
        ("unknown top-level key", {"file": doc({tids[0]: ["fast"]}, extra=1)}),
        ("substitutes_lemmatized is a string", {"file": doc({tids[0]: ["fast"]})
                                                .replace(b"false", b'"no"', 1)}),
        ("every target missing", {"file": doc({})}),
        ("status of a submission that does not exist", {"method": "GET",
                                                        "path": "/api/v1/submissions/999999"}),
        ("status of another team's submission", {"method": "GET", "other": True}),
        ("unknown API path", {"method": "GET", "path": "/api/v1/nothing-here"}),
        ("wrong method on the upload URL", {"method": "PUT", "path": "/api/v1/submissions"}),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        url, instance = f"sqlite:///{tmp}/bench.db", f"{tmp}/instance"
        token, other_token, tids = seed(url, instance)
        port = free_port()
        env = dict(os.environ, LEADERBOARD_DATABASE_URL=url, LEADERBOARD_INSTANCE_PATH=instance,
                   LEADERBOARD_SECRET_KEY="bench", LEADERBOARD_REDIS_URL="",
                   LEADERBOARD_LOG_REQUESTS="0", LEADERBOARD_MAX_UPLOAD_BYTES=str(LIMIT),
                   LEADERBOARD_API_RATE_LIMIT="60 per minute", WEB_CONCURRENCY="1")
        proc = start_gunicorn(env, port)
        base = f"http://127.0.0.1:{port}"
        try:
            # One real upload by the other team, to ask for it with our token.
            _s, other = request(base, "POST", "/api/v1/submissions", token=other_token,
                                fields={"name": "B's system"},
                                file=json.dumps({"substitutes": {tids[0]: ["fast"]}}).encode())
            print("| bad input | request | HTTP | answer |\n|---|---|---:|---|")
            sent = 1
            for label, kw in cases(tids):
                method, path = kw.pop("method", "POST"), kw.pop("path", "/api/v1/validate")
                if kw.pop("other", False):
                    path = "/api/v1/submissions/1"
                kw.setdefault("token", token)
                if path == "/api/v1/submissions" and "fields" not in kw and method == "POST":
                    kw["fields"] = {}
                status, answer = request(base, method, path, **kw)
                sent += 1
                print(f"| {label} | {method} {path} | {status} | {answer.replace('|', '/')} |")
            # The per-token limit: 60 per minute, counted across everything above.
            status = 0
            while status != 429 and sent < 200:
                status, answer = request(base, "GET", "/api/v1/submissions", token=token)
                sent += 1
            print(f"| request {sent} of the run (limit 60 per fixed clock minute) | "
                  "GET /api/v1/submissions | "
                  f"{status} | {answer} |")
        finally:
            stop(proc)


if __name__ == "__main__":
    main()
