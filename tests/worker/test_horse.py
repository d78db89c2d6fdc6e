"""The work horse: a child under hard limits, whose parent keeps running its threads."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from leaderboard.services.intake.isolation import LimitExceeded
from leaderboard.worker.horse import HorseError, Limits, run_in_horse

GENEROUS = Limits(seconds=30, memory_bytes=512 << 20)
# score.pl's .best pattern in a backtracking engine: quadratic on a long line without " :: ",
# in C, GIL held.
BACKTRACKING = re.compile(r"([\w.]+) (\S+) :: (.*)", re.ASCII)


def _add(a: int, b: int) -> int:
    return a + b


def _backtrack() -> None:
    BACKTRACKING.search("a" * 200_000)


def _allocate() -> int:
    return len(bytearray(2 << 30))


def _raise() -> None:
    raise ValueError("bad value in the child")


def test_the_child_returns_what_the_work_returned():
    assert run_in_horse(_add, 2, 3, limits=GENEROUS) == 5


def test_a_gil_holding_child_is_killed_at_its_time_limit_while_the_parent_beats():
    beats = []
    stop = threading.Event()

    def beat():
        while not stop.wait(0.1):
            beats.append(time.monotonic())

    class Heartbeat:
        def __enter__(self):
            threading.Thread(target=beat, daemon=True).start()

        def __exit__(self, *exc):
            stop.set()

    started = time.monotonic()
    with pytest.raises(LimitExceeded) as caught:
        run_in_horse(_backtrack, limits=Limits(seconds=1.5, memory_bytes=512 << 20),
                     while_running=Heartbeat())
    took = time.monotonic() - started
    assert caught.value.kind == "time"
    assert caught.value.message == "took longer than 1.5 s"
    assert 1.4 < took < 5
    assert len(beats) >= 10  # the parent's thread kept beating all along


def test_a_child_past_its_memory_limit_reports_it():
    with pytest.raises(LimitExceeded) as caught:
        run_in_horse(_allocate, limits=Limits(seconds=30, memory_bytes=256 << 20))
    assert caught.value.kind == "memory"
    assert caught.value.message == "needed more than 256 MB of memory"


def test_an_exception_in_the_child_comes_back_as_its_text():
    with pytest.raises(HorseError) as caught:
        run_in_horse(_raise, limits=GENEROUS)
    assert "ValueError: bad value in the child" in caught.value.detail


SCRIPT = """
import os, sys, time
from leaderboard.worker.horse import Limits, run_in_horse

def work(path):
    with open(path, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)

run_in_horse(work, sys.argv[1], limits=Limits(seconds=120, memory_bytes=256 << 20))
"""


def test_a_worker_killed_outright_takes_its_child_along(tmp_path):
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", SCRIPT, str(pid_file)],
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    deadline = time.monotonic() + 20
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and parent.poll() is None
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the child outlived its killed parent"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
