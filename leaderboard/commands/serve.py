"""leaderboard serve: everything `make run` starts, supervised in one foreground process.

Starts the embedded Redis when no LEADERBOARD_REDIS_URL is set, migrates, loads the demo (or
the benchmark given), then runs gunicorn and one RQ worker as child processes. Ctrl-C stops
the children, then Redis.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import click

from leaderboard.config import PROJECT_ROOT, load_settings
from leaderboard.processes import stop_processes


@click.command("serve")
@click.option("--host", default=None, help="Interface to listen on (default 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default $PORT or 8000).")
@click.option("--benchmark", "benchmark_path", type=click.Path(exists=True, dir_okay=False),
              help="Load this SWORDS split as the hidden test split instead of the demo.")
@click.option("--workers", default=1, show_default=True, help="RQ worker processes.")
def serve_command(host: str | None, port: int | None, benchmark_path: str | None, workers: int):
    """Run web + worker + (embedded) Redis for development and demos."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    settings = load_settings()
    host = host or settings["HOST"]
    port = port or int(os.environ.get("PORT", settings["PORT"]))
    env = dict(os.environ)
    redis_server = None
    if not settings["REDIS_URL"]:
        from leaderboard.redis_conn import connect_redis

        redis_server = connect_redis("", settings["INSTANCE_PATH"])
        env["LEADERBOARD_REDIS_URL"] = f"unix://{redis_server.socket_file}?db=0"
        click.echo(f"Embedded Redis on {redis_server.socket_file}")

    leaderboard_bin = str(Path(sys.executable).with_name("leaderboard"))
    _run_step([leaderboard_bin, "db", "upgrade"], env)
    if benchmark_path:
        _run_step([leaderboard_bin, "benchmark", "import", benchmark_path, "--name", "swords",
                   "--version", "1.1", "--split", "test", "--hidden", "--default"], env)
        shared = Path(benchmark_path).resolve().parent.parent / "reference-systems"
        if shared.is_dir():
            _run_step([leaderboard_bin, "reference", "import-shared", str(shared.parent)], env)
    else:
        _run_step([leaderboard_bin, "benchmark", "load-demo"], env)

    children = [subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "-c", "gunicorn.conf.py",
         "--bind", f"{host}:{port}", "wsgi:app"], cwd=PROJECT_ROOT, env=env)]
    children += [subprocess.Popen([leaderboard_bin, "worker"], cwd=PROJECT_ROOT, env=env)
                 for _ in range(workers)]
    url = f"http://{host}:{port}/"
    try:
        _wait_for(url, children)
        click.secho(f"\nSWORDS leaderboard running at {url}  (Ctrl-C stops everything)\n",
                    fg="green", bold=True)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        click.echo("A child process exited; stopping the others.", err=True)
    except KeyboardInterrupt:
        click.echo("\nStopping...")
    finally:
        # A second Ctrl-C or SIGTERM must not cut the shutdown short and orphan Redis.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_processes(children)
        if redis_server is not None:
            redis_server.shutdown(nosave=False)
    sys.exit(0)


def _raise_interrupt(_signum, _frame) -> None:
    # SIGTERM (from a process manager or a test) stops everything like Ctrl-C does.
    raise KeyboardInterrupt


def _run_step(args: list[str], env: dict[str, str]) -> None:
    click.echo("$ leaderboard " + " ".join(args[1:]))
    completed = subprocess.run(args, env=env, cwd=PROJECT_ROOT)
    if completed.returncode != 0:
        raise click.ClickException(f"step failed: {' '.join(args[1:])}")


def _wait_for(url: str, children: list[subprocess.Popen], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(child.poll() is not None for child in children):
            raise click.ClickException("the web server or worker exited during start-up")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise click.ClickException(f"{url} did not answer within {timeout:.0f} s")

