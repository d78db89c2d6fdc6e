"""Security headers on every kind of response; request logs; proxy awareness."""

from __future__ import annotations

import json

import pytest

from leaderboard.web.security import CONTENT_SECURITY_POLICY


def _csp(response) -> dict[str, str]:
    policy = response.headers["Content-Security-Policy"]
    return {part.split(" ", 1)[0]: part.split(" ", 1)[1] for part in policy.split("; ")}


@pytest.mark.parametrize("path", ["/", "/api/v1/leaderboard", "/no-such-page",
                                  "/api/v1/no-such-endpoint", "/account/login"])
def test_security_headers_on_html_and_api_responses(client, path):
    response = client.get(path)
    assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    # Plain HTTP: no HSTS (it would pin a scheme the site is not served over).
    assert "Strict-Transport-Security" not in response.headers


def test_csp_allows_only_our_own_scripts_and_styles(client):
    csp = _csp(client.get("/"))
    assert csp["script-src"] == "'self'"
    assert csp["style-src"] == "'self'"
    assert "'unsafe-inline'" not in CONTENT_SECURITY_POLICY
    assert "'unsafe-eval'" not in CONTENT_SECURITY_POLICY
    assert csp["object-src"] == "'none'"
    assert csp["frame-ancestors"] == "'none'"
    assert csp["img-src"] == "'self' data:"


def test_hsts_when_request_is_https(client):
    response = client.get("/", base_url="https://leaderboard.example.org")
    assert response.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


def test_forwarded_proto_is_ignored_without_proxy_fix(client):
    response = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in response.headers


def test_forwarded_proto_trusted_with_proxy_fix(app_overrides):
    from leaderboard import create_app
    from leaderboard.db import create_all

    app_overrides["PROXY_FIX_HOPS"] = 1
    app = create_app(app_overrides)
    create_all(app.extensions["db_engine"])
    response = app.test_client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert response.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    app.extensions["db_engine"].dispose()


def test_one_json_log_line_per_request(client, capsys):
    client.get("/no-such-page?x=1")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()
             if line.startswith("{")]
    requests = [line for line in lines if line["event"] == "request"]
    assert len(requests) == 1
    entry = requests[0]
    assert entry["method"] == "GET" and entry["path"] == "/no-such-page"
    assert entry["status"] == 404 and entry["logger"] == "leaderboard.access"
    assert isinstance(entry["ms"], float)


def test_log_job_writes_one_line(capsys):
    from leaderboard.infra.logs import log_job

    log_job(submission_id=42, outcome="scored", ms=1234.56, attempt=1)
    entry = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert entry == entry | {"event": "job", "submission_id": 42, "outcome": "scored",
                             "ms": 1234.6, "attempt": 1, "logger": "leaderboard.jobs"}
