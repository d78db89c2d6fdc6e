"""Stopping child processes the way a supervisor should: ask, wait, then insist."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterable


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
