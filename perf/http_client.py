"""HTTP for the measurements against gunicorn: one request with its answer summed up in a line,
and a throw-away database with the demo split and two teams holding API tokens."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
