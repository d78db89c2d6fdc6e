"""Private servers for fault tests: a redis-server and a PostgreSQL cluster of the test's own.

Fault tests stop and restart these, never the shared services. Each runs on a free port in
the test's temporary folder and is stopped by its own pid (or ``pg_ctl -D`` of its own data
folder) when the test ends.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts connections on ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _wait_port(port: int, up: bool, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while port_open(port) != up:
        if time.monotonic() > deadline:
            raise AssertionError(f"port {port} still {'closed' if up else 'open'} "
                                 f"after {timeout} s")
        time.sleep(0.05)


class PrivateRedis:
    """A redis-server without persistence: a restart comes back empty, like a lost cache."""

    def __init__(self, folder: Path):
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed")
        self.binary = binary
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(
                [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self.folder)],
                stdout=log, stderr=subprocess.STDOUT)
        _wait_port(self.port, up=True)

    def kill(self) -> None:
        """SIGKILL: the server vanishes at once, connections reset, data gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        _wait_port(self.port, up=False)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL server binaries folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                   key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


class PrivatePostgres:
    """A throw-away PostgreSQL cluster (initdb in a temp folder, trust auth, free port)."""

    def __init__(self):
        bindir = postgres_bin()
        if bindir is None:
            pytest.skip("PostgreSQL server binaries are not installed (/usr/lib/postgresql)")
        self.bindir = bindir
        # Not under pytest's tmp_path: the server's user must be able to reach the folder.
        self.folder = Path(tempfile.mkdtemp(prefix="leaderboard-pg-"))
        self.data = self.folder / "pgdata"
        self.port = free_port()
        self.env = dict(os.environ)
        user = None
        if os.geteuid() == 0:
            # initdb and postgres refuse to run as root: run them as an unprivileged user.
            user = "postgres" if _user_exists("postgres") else "nobody"
        self.user = user
        if user:
            shutil.chown(self.folder, user=user)
        self._run(["initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                   "--no-sync", "-E", "UTF8"])

    def _run(self, args: list[str], check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, env=self.env, cwd="/")
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(args[:2])} failed: {done.stdout}{done.stderr}")
        return done

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        self._run(["pg_ctl", "-D", str(self.data), "-w", "-t", "30", "-l",
                   str(self.data / "server.log"), "-o",
                   f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data} "
                   "-c fsync=off", "start"])
        _wait_port(self.port, up=True)

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(["pg_ctl", "-D", str(self.data), "-w", "-m", mode, "stop"], check=False)
        _wait_port(self.port, up=False)

    def remove(self) -> None:
        """Stop the server and delete its folder."""
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
