"""`leaderboard serve` under interrupts and crashing children, checked in the process table.

Every process serve starts inherits its environment, so one made-up instance path marks
them all: after serve exits, no process in /proc may carry it (gunicorn workers re-parented
to PID 1 and a daemonized Redis included), and the port must be free.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from leaderboard.config import PROJECT_ROOT
from tests.faults import free_port, port_open


def marked_processes(marker: str) -> dict[int, str]:
    """pid -> command line of every process whose environment contains ``marker``."""
    found = {}
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            if needle in environ:
                found[int(entry)] = Path(f"/proc/{entry}/cmdline").read_bytes() \
                    .replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Serve:
    """One `leaderboard serve` in a session of its own, as a terminal would run it."""

    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.instance = tmp_path / "instance"
        self.log_path = tmp_path / "serve.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
        env["LEADERBOARD_INSTANCE_PATH"] = str(self.instance)
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [str(Path(sys.executable).with_name("leaderboard")), "serve", "--port",
                 str(self.port)], cwd=PROJECT_ROOT, env=env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True,
                # a terminal's job takes Ctrl-C; a suite run as a script's background job
                # would hand down SIGINT ignored
                preexec_fn=_sigint_default)

    @property
    def log(self) -> str:
        return self.log_path.read_text()

    def wait_log(self, text: str, timeout: float = 120, after: int = 0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log[after:]:
            assert self.process.poll() is None, self.log
            assert time.monotonic() < deadline, f"no {text!r} in:\n{self.log}"
            time.sleep(0.05)

    def interrupt(self, sig: int = signal.SIGINT) -> int:
        """What Ctrl-C does: the signal to serve's foreground process group."""
        os.killpg(self.process.pid, sig)
        return self.process.wait(timeout=90)

    def children(self) -> dict[int, str]:
        return marked_processes(str(self.instance))

    def assert_nothing_left(self) -> None:
        deadline = time.monotonic() + 5
        while self.children() and time.monotonic() < deadline:
            time.sleep(0.1)  # a SIGKILLed process may take a moment to leave the table
        assert self.children() == {}, f"left behind: {self.children()}\n{self.log}"
        assert not port_open(self.port), "something still listens on the port"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", self.port))


def get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status


@pytest.fixture
def serve(tmp_path):
    started = Serve(tmp_path)
    yield started
    if started.process.poll() is None:
        started.interrupt(signal.SIGTERM)
    for pid in started.children():  # never leave a failed test's processes running
        os.kill(pid, signal.SIGKILL)


def _niceness(pid: int) -> int:
    """A process's CPU niceness (field 19 of /proc/PID/stat)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


@pytest.mark.slow
@pytest.mark.parametrize("point", ["starting", "redis started", "migrating", "loading demo"])
def test_interrupt_during_set_up_leaves_nothing(serve, point):
    if point == "starting":
        time.sleep(0.3)  # still importing: nothing started yet
    elif point == "redis started":
        serve.wait_log("Embedded Redis on")
    elif point == "migrating":
        serve.wait_log("$ leaderboard db upgrade")
        time.sleep(0.2)
    else:
        serve.wait_log("$ leaderboard benchmark load-demo")
        time.sleep(0.5)
    code = serve.interrupt()
    assert code in (0, 1, 130, -signal.SIGINT), serve.log
    serve.assert_nothing_left()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_just_after_start_leaves_nothing(serve, sig):
    serve.wait_log("running at")
    assert len(serve.children()) >= 4  # redis, gunicorn master and workers, the worker
    assert serve.interrupt(sig) == 0, serve.log
    serve.assert_nothing_left()


@pytest.mark.slow
def test_a_child_that_exits_is_restarted_then_ctrl_c_leaves_nothing(serve):
    serve.wait_log("running at")
    url = f"http://127.0.0.1:{serve.port}/"
    assert get(url) == 200
    children = serve.children()
    worker = next(pid for pid, cmd in children.items() if cmd.endswith("leaderboard worker "))
    masters = [pid for pid, cmd in children.items() if "gunicorn" in cmd
               and Path(f"/proc/{pid}/stat").read_text().split()[3] == str(serve.process.pid)]
    assert len(masters) == 1, children
    # Background work runs niced, the web does not: a reader's page never waits behind a
    # scoring job or a snapshot being prepared.
    base = _niceness(serve.process.pid)
    rankers = [pid for pid, cmd in children.items() if cmd.endswith("leaderboard ranker ")]
    assert rankers and {_niceness(pid) for pid in (worker, *rankers)} == {max(base, 10)}
    assert {_niceness(pid) for pid, cmd in children.items() if "gunicorn" in cmd} == {base}

    mark = len(serve.log)
    os.kill(worker, signal.SIGKILL)
    serve.wait_log("worker 1 exited with code -9; restarting in 1 s", after=mark)
    serve.wait_log("worker 1 restarted (restart 1)", after=mark)
    assert serve.process.poll() is None
    again = next(pid for pid, cmd in serve.children().items()
                 if cmd.endswith("leaderboard worker ") and pid != worker)
    for _ in range(100):  # niced once it has read its settings
        if _niceness(again) == max(base, 10):
            break
        time.sleep(0.1)
    assert _niceness(again) == max(base, 10)

    # The web server's master killed outright: its workers go with it, and it comes back.
    mark = len(serve.log)
    os.kill(masters[0], signal.SIGKILL)
    serve.wait_log("web exited with code -9", after=mark)
    serve.wait_log("web restarted (restart 1)", after=mark)
    deadline = time.monotonic() + 60
    while True:
        try:
            assert get(url) == 200
            break
        except OSError:
            assert time.monotonic() < deadline, serve.log
            time.sleep(0.3)
    assert serve.process.poll() is None
    assert serve.interrupt() == 0, serve.log
    serve.assert_nothing_left()


@pytest.mark.slow
def test_serve_killed_outright_takes_its_children_with_it(serve):
    """SIGKILL cannot be caught: the parent-death signal is what stops the children."""
    serve.wait_log("running at")
    assert len(serve.children()) >= 4
    serve.process.send_signal(signal.SIGKILL)
    serve.process.wait(timeout=10)
    deadline = time.monotonic() + 40
    while serve.children() and time.monotonic() < deadline:
        time.sleep(0.2)
    serve.assert_nothing_left()


def test_serve_takes_ctrl_c_while_importing_even_when_started_with_sigint_ignored():
    """A script's background job starts serve with SIGINT ignored, so Python installs no
    handler: the console script installs it for serve before the imports a Ctrl-C may land
    in (other commands keep what they were given)."""
    def handler_when_the_command_runs(command: str) -> str:
        probe = ("import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                 "from leaderboard import cli\n"
                 "cli._main = lambda args: print(signal.getsignal(signal.SIGINT))\n"
                 f"cli.main([{command!r}])\n")
        return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              timeout=60, cwd=PROJECT_ROOT, check=True).stdout.strip()

    assert handler_when_the_command_runs("serve") == "<built-in function default_int_handler>"
    assert handler_when_the_command_runs("score") == str(signal.SIG_IGN.value)
