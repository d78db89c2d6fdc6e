"""leaderboard submit: the CI-friendly upload client (plain HTTP; needs no app or database)."""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import click

from leaderboard.commands.metric_table import echo_metrics

EXIT_INVALID = 2
EXIT_FAILED = 3
TERMINAL = ("scored", "invalid", "failed")
#: Answers worth retrying: the site is restarting, overloaded or its backends are down.
RETRY_STATUSES = (502, 503, 504)
FIRST_PAUSE = 1.0
MAX_PAUSE = 30.0


def _request_with_retry(method: str, url: str, *, retry_for: float, **kwargs):
    """``requests.request`` retried on connection errors and 502/503/504.

    Pauses double from 1 s up to 30 s, or follow the server's Retry-After (at most 60 s);
    after ``retry_for`` seconds of failures the last error stands. Uploads are safe to
    repeat: they carry an Idempotency-Key.
    """
    import requests

    give_up = time.monotonic() + retry_for
    pause = FIRST_PAUSE
    while True:
        try:
            response = requests.request(method, url, **kwargs)
        except (requests.ConnectionError, requests.Timeout) as exc:
            problem, response = f"cannot reach the server ({type(exc).__name__})", None
            if time.monotonic() + pause > give_up:
                raise click.ClickException(f"cannot reach {url}: {exc}") from exc
        else:
            if response.status_code not in RETRY_STATUSES:
                return response
            problem = f"HTTP {response.status_code}"
            if time.monotonic() + pause > give_up:
                return response
        wait = pause
        if response is not None and response.headers.get("Retry-After", "").isdigit():
            wait = min(max(float(response.headers["Retry-After"]), pause), 60.0)
        wait = max(0.0, min(wait, give_up - time.monotonic()))
        click.echo(f"{problem}; retrying in {wait:.0f} s", err=True)
        time.sleep(wait)
        pause = min(pause * 2, MAX_PAUSE)


def _fail(response) -> None:
    try:
        message = response.json()["error"]["message"]
    except Exception:
        message = response.text[:300]
    raise click.ClickException(f"HTTP {response.status_code}: {message}")


def _print_result(data: dict) -> None:
    result = data["result"]
    # The board's order, headline first (the API says which); older servers: as sent.
    order = result.get("metric_order") or list(result["metrics"])
    order += [k for k in result["metrics"] if k not in order]
    echo_metrics(((k, result["metrics"][k], result["intervals"].get(k)) for k in order
                  if k in result["metrics"]), result.get("headline") or order[0])
    sig = result["signature"]
    click.echo(f"\nscorer {sig['scorer_version']}, split {sig['split_checksum'][:12]}, "
               f"bootstrap B={sig['bootstrap']}, seed {sig['seed']}")


def _visibility(is_public: bool, base: str, submission_id: int) -> str:
    """One line saying who will see the submission, so nobody is surprised either way."""
    if is_public:
        return (f"public: it appears on the ranking once scored ({base}/systems/"
                f"{submission_id})")
    return ("private: only your team sees it; publish it from your submissions page, or "
            "submit with --public")


@click.command("submit")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--url", required=True, envvar=["LEADERBOARD_URL", "LEADERBOARD_SUBMIT_URL"],
              show_envvar=True,
              help="Base URL of the leaderboard, e.g. https://leaderboard.example.org")
@click.option("--token", required=True, envvar="LEADERBOARD_TOKEN", show_envvar=True,
              help="API token.")
@click.option("--leaderboard", "leaderboard", default=None, envvar="LEADERBOARD_SLUG",
              show_envvar=True,
              help="Slug of the leaderboard (default: the site's default one); "
              "GET /api/v1/leaderboards lists them.")
@click.option("--system", "--name", "name", default=None,
              help="The team's system this result is of, made when new (default: the file "
              "name); one system has results on several leaderboards.")
@click.option("--description", default="", help="Short description of the system.")
@click.option("--paper-url", default="", help="Link to the paper (http:// or https://).")
@click.option("--code-url", default="", help="Link to the code (http:// or https://).")
@click.option("--public", is_flag=True, help="Publish on the ranking once scored.")
@click.option("--anonymous", is_flag=True,
              help="Make the system anonymous for double-blind review: the public sees "
              "'Anonymous <id>', not the team, links or description, until it is revealed.")
@click.option("--reveal-on", default="", metavar="YYYY-MM-DD",
              help="With --anonymous: the day the name appears by itself (default: when the "
              "team reveals it).")
@click.option("--wait", is_flag=True, help="Poll until scored; exit non-zero if not.")
@click.option("--timeout", default=1800.0, show_default=True, help="Seconds to wait at most.")
@click.option("--retry-for", default=300.0, show_default=True,
              help="Keep retrying connection errors and 502/503/504 for this many seconds.")
def submit_command(file: Path, url: str, token: str, leaderboard: str | None,
                   name: str | None, description: str, paper_url: str, code_url: str,
                   public: bool, anonymous: bool, reveal_on: str, wait: bool,
                   timeout: float, retry_for: float) -> None:
    """Upload FILE to the leaderboard API: a result JSON, or on LS07/CoInCo boards RANKED
    lines, .best/.oot lines or both (cat run.best run.oot), on TSAR-2022 boards the task's
    TSV; plain or gzipped.

    Exit status with --wait: 0 scored, 2 invalid (problems printed), 3 failed on the
    server, 1 for any other error. Retrying the same file is safe: the upload carries an
    Idempotency-Key derived from the file's content. Connection errors and 502/503/504
    answers (the site restarting, its database down) are retried with backoff for
    ``--retry-for`` seconds.
    """
    raw = file.read_bytes()
    base = url.rstrip("/")
    # The same file sent to two leaderboards is two submissions: the key names the board.
    digest = hashlib.sha256((leaderboard or "").encode() + b"\0" + raw).hexdigest()
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "submit-" + digest[:32]}
    form = {"system": name or file.name, "description": description,
            "paper_url": paper_url, "code_url": code_url,
            "public": "true" if public else "false"}
    if reveal_on and not anonymous:
        raise click.UsageError("--reveal-on needs --anonymous")
    if anonymous:
        form.update(anonymous="true", reveal_on=reveal_on)
    if leaderboard:
        form["leaderboard"] = leaderboard
    response = _request_with_retry("POST", f"{base}/api/v1/submissions", retry_for=retry_for,
                                   headers=headers, data=form,
                                   files={"file": (file.name, raw)}, timeout=120)
    if response.status_code not in (200, 202):
        _fail(response)
    body = response.json()
    click.echo(f"submission {body['id']} to {body.get('leaderboard', 'the default leaderboard')}"
               f": {body['status']}  {body['status_url']}")
    if body.get("system"):
        shown = body["system"]
        click.echo(f"system {shown['name']!r}: {base}/systems/{shown['id']}")
        if shown.get("anonymous"):
            click.echo(f"anonymous: the public sees {shown['public_name']!r}"
                       + (f" until {shown['reveal_on']}" if shown.get("reveal_on") else
                          " until you reveal it"))
    click.echo(_visibility(body.get("is_public", public), base, body["id"]))
    if wait:
        _report_outcome(_wait_for_outcome(body["status_url"], headers, timeout, retry_for))


def _wait_for_outcome(status_url: str, headers: dict[str, str], timeout: float,
                      retry_for: float) -> dict:
    """Poll the submission until it is scored, invalid or failed; its last status answer."""
    deadline = time.monotonic() + timeout
    while True:
        poll = _request_with_retry("GET", status_url, retry_for=retry_for,
                                   headers=headers, timeout=60)
        if poll.status_code != 200:
            _fail(poll)
        data = poll.json()
        status = data["status"]
        if status in TERMINAL:
            return data
        if time.monotonic() > deadline:
            raise click.ClickException(f"still {status} after {timeout:.0f} s")
        time.sleep(1.0)


def _report_outcome(data: dict) -> None:
    """Print the outcome as `leaderboard score` would, and exit with its status."""
    status = data["status"]
    click.echo(f"submission {data['id']}: {status}")
    # What `leaderboard score` prints for the same file: its warnings, then its counts.
    for warning in data.get("warnings") or []:
        click.echo(f"  warning: {warning}", err=True)
    counts = (data.get("result") or {}).get("counts") or {}
    if counts:
        click.echo("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()
                                          if isinstance(v, int | float)))
    release = data.get("release") or {}
    if status == "scored" and release.get("state") == "held":
        # The ladder release policy: no number of a held submission exists for the team.
        click.echo(release["message"])
        return
    if status == "scored":
        if release.get("policy") == "ladder":
            click.echo("released")
        _print_result(data)
        return
    if status == "invalid":
        for problem in data["errors"]:
            click.echo(f"  [{problem['code']}] {problem['message']}", err=True)
        sys.exit(EXIT_INVALID)
    click.echo(f"  {data['failure_reason']}", err=True)
    sys.exit(EXIT_FAILED)
