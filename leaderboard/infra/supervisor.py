"""A small process supervisor for ``leaderboard serve``: start, restart with backoff, stop all.

Every child runs in a process group of its own, so a Ctrl-C at the terminal reaches only the
supervisor, which then stops the children in order; whatever a child forked (gunicorn's
workers) is in that group and is killed with it once the child is gone. Each child also gets
a parent-death signal, so even a SIGKILLed supervisor leaves nothing running. SIGINT/SIGTERM
are blocked while a child is spawned and recorded, so an interrupt at any moment finds every
started process on the list that ``stop_all`` stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from leaderboard.infra.processes import set_parent_death_signal, stop_processes

log = logging.getLogger(__name__)
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: Restart pauses: 1 s, doubling to 30 s; a child that ran FRESH_START_SECONDS starts over.
FIRST_BACKOFF = 1.0
MAX_BACKOFF = 30.0
FRESH_START_SECONDS = 60.0


def _child_setup() -> None:
    # Runs in the child between fork and exec: undo the parent's blocked signals.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    set_parent_death_signal(signal.SIGTERM)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM for the block; one that arrived meanwhile is delivered after it."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def spawn(args: list[str], **popen_kwargs) -> subprocess.Popen:
    """Start ``args`` in a new process group with a parent-death signal."""
    return subprocess.Popen(args, process_group=0, preexec_fn=_child_setup, **popen_kwargs)


def kill_group(process: subprocess.Popen) -> None:
    """SIGKILL what is left of ``process``'s group (e.g. workers that outlived their master)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


@dataclass
class Child:
    """One supervised command and its current process."""

    name: str
    args: list[str]
    kwargs: dict
    process: subprocess.Popen | None = None
    started_at: float = 0.0
    backoff: float = FIRST_BACKOFF
    restart_at: float | None = None
    restarts: int = 0
    stop_last: bool = False


@dataclass
class Supervisor:
    """Children started in order, restarted when they exit, stopped in reverse order."""

    echo: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)
    steps: list[subprocess.Popen] = field(default_factory=list)
    #: Called after every process is stopped (temp folders, registry files).
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    def start(self, name: str, args: list[str], *, stop_last: bool = False, **kwargs) -> Child:
        """Start a long-running child and keep it running; ``stop_last``: others use it."""
        child = Child(name, args, kwargs, stop_last=stop_last)
        with signals_held():
            self.children.append(child)
            self._launch(child)
        return child

    def _launch(self, child: Child) -> None:
        child.process = spawn(child.args, **child.kwargs)
        child.started_at = time.monotonic()
        child.restart_at = None

    def run_step(self, args: list[str], **kwargs) -> int:
        """Run a set-up command to its end; an interrupt stops it like the children."""
        with signals_held():
            process = spawn(args, **kwargs)
            self.steps.append(process)
        try:
            return process.wait()
        finally:
            if process.poll() is not None:
                self.steps.remove(process)
                kill_group(process)

    def exited(self) -> list[Child]:
        """Children whose process has ended and is not yet scheduled for a restart."""
        return [c for c in self.children
                if c.restart_at is None and c.process is not None and c.process.poll() is not None]

    def tend(self) -> None:
        """Schedule restarts of exited children (with backoff) and run those that are due."""
        now = time.monotonic()
        for child in self.exited():
            kill_group(child.process)
            if now - child.started_at >= FRESH_START_SECONDS:
                child.backoff = FIRST_BACKOFF
            child.restart_at = now + child.backoff
            self.echo(f"{child.name} exited with code {child.process.returncode}; restarting "
                      f"in {child.backoff:.0f} s")
            log.warning("%s exited with code %s; restarting in %.0f s", child.name,
                        child.process.returncode, child.backoff)
            child.backoff = min(child.backoff * 2, MAX_BACKOFF)
        for child in self.children:
            if child.restart_at is not None and child.restart_at <= now:
                child.restarts += 1
                with signals_held():
                    self._launch(child)
                self.echo(f"{child.name} restarted (restart {child.restarts})")

    def stop_all(self, timeout: float = 20) -> None:
        """Stop set-up steps and children, those marked ``stop_last`` (Redis) after the rest.

        Then SIGKILL whatever is left in their process groups.
        """
        first = list(reversed(self.steps)) + [c.process for c in reversed(self.children)
                                              if c.process is not None and not c.stop_last]
        last = [c.process for c in self.children if c.process is not None and c.stop_last]
        stop_processes(first, timeout=timeout)
        for process in first:
            kill_group(process)
        stop_processes(last, timeout=timeout)
        for process in last:
            kill_group(process)
        for cleanup in self.cleanups:
            cleanup()
