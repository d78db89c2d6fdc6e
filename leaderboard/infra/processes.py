"""Stopping child processes the way a supervisor should: ask, wait, then insist; and the
CPU priority of background work."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Iterable

PR_SET_PDEATHSIG = 1


def set_parent_death_signal(sig: int = signal.SIGTERM) -> None:
    """Ask Linux to send ``sig`` to this process when its parent dies (no-op elsewhere)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def lower_priority(niceness: int) -> int:
    """Run this process (and the children it makes from now on) at CPU niceness ``niceness``
    at least: never raised back (an unprivileged process cannot), never lowered twice.
    Returns the niceness it runs at."""
    current = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness > current:
        os.setpriority(os.PRIO_PROCESS, 0, min(niceness, 19))
    return os.getpriority(os.PRIO_PROCESS, 0)


def stop_processes(processes: Iterable[subprocess.Popen], *, timeout: float = 20) -> None:
    """SIGTERM every live process, wait up to ``timeout`` s for each, SIGKILL the stragglers.

    All are signalled before any is waited on, so they shut down in parallel.
    """
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def group_cpu_seconds(pgid: int) -> float:
    """CPU seconds used so far by the live processes of group ``pgid`` (a gunicorn master and
    the workers it forked), read from ``/proc``; 0 where there is no ``/proc``."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii") as f:
                # after the parenthesised name: state ppid pgrp ... utime(14) stime(15)
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total
