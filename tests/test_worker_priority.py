"""Background work (workers, rankers) runs niced: ``lower_priority`` raises a process's
niceness to the setting, never back down, and what it starts inherits it."""

from __future__ import annotations

import subprocess
import sys

from leaderboard.config import load_settings

PROBE = """
import os, subprocess, sys
from leaderboard.infra.processes import lower_priority
now = lambda: os.getpriority(os.PRIO_PROCESS, 0)
print(now(), lower_priority(int(sys.argv[1])), lower_priority(3), lower_priority(40))
ask = "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"
child = subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True, check=True)
print(child.stdout.strip())
"""


def _probe(niceness: int, start: int = 0) -> list[str]:
    done = subprocess.run(["nice", "-n", str(start), sys.executable, "-c", PROBE, str(niceness)],
                          capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.split()


def test_a_worker_is_niced_once_to_the_setting_and_its_children_inherit_it():
    assert load_settings()["WORKER_NICE"] == 10
    # from 0: 10; asking for 3 later does not raise it back; 40 is capped at 19 (the most)
    assert _probe(10) == ["0", "10", "10", "19", "19"]
    # already nicer than asked (started with nice 15): left alone
    assert _probe(10, start=15) == ["15", "15", "15", "19", "19"]
    # 0: left as it is
    assert _probe(0)[:3] == ["0", "0", "3"]


def test_the_setting_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("LEADERBOARD_WORKER_NICE", "0")
    assert load_settings()["WORKER_NICE"] == 0
