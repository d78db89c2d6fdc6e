"""Run untrusted work in a forked child (a "work horse") under hard limits kept from outside.

The parent keeps its threads (heartbeats) running while the child works: whatever the child
does, even a regular expression holding the GIL for minutes, cannot starve them. The child
inherits the parent's warm caches (WordNet, prepared splits) by copy-on-write, gets an
address-space limit of its own, and is SIGKILLed by the parent at its wall-clock limit.
What it returns comes back pickled through a pipe; it was made by our code in the child, so
unpickling it in the parent trusts no user bytes.
"""

from __future__ import annotations

import logging
import os
import pickle
import resource
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass
from typing import Any

from leaderboard.infra.processes import set_parent_death_signal
from leaderboard.services.intake.isolation import LimitExceeded

log = logging.getLogger(__name__)

#: Exit code of a child whose work ran out of memory (it could still report that).
_EXIT_MEMORY = 3
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Limits:
    """Wall-clock seconds and memory (bytes on top of what the parent already maps)."""

    seconds: float
    memory_bytes: int


class HorseDied(Exception):
    """The child died without reporting (a signal, an interpreter crash)."""


class HorseError(Exception):
    """The work raised in the child; ``detail`` is its formatted exception."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def time_limit_message(seconds: float) -> str:
    """What a team reads when its file took too long."""
    return f"took longer than {seconds:g} s"


def memory_limit_message(memory_bytes: int) -> str:
    """What a team reads when its file needed too much memory."""
    return f"needed more than {memory_bytes // (1 << 20)} MB of memory"


def _mapped_bytes() -> int:
    """This process's address space now (VmSize), from /proc; 0 where unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _child(fn: Callable[..., Any], args: tuple, limits: Limits, write_fd: int,
           on_fork: Callable[[], None] | None, parent: int) -> None:
    """Body of the forked child: never returns (``os._exit``)."""
    code = 0
    try:
        # A worker killed outright takes its child along: no orphan goes on working.
        set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(71)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        if on_fork is not None:
            on_fork()
        base = _mapped_bytes()
        if base:
            cap = base + limits.memory_bytes
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        try:
            outcome = ("ok", fn(*args))
        except MemoryError:
            outcome, code = ("memory", None), _EXIT_MEMORY
        except BaseException as exc:  # reported to the parent, which decides
            outcome = ("error", "".join(traceback.format_exception(exc))[-4000:])
        try:
            payload = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            payload, code = pickle.dumps(("memory", None)), _EXIT_MEMORY
        view = memoryview(payload)
        while view:
            view = view[os.write(write_fd, view):]
    except BaseException:  # nothing can be reported: the parent sees a silent death
        traceback.print_exc()
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def run_in_horse(fn: Callable[..., Any], *args: Any, limits: Limits,
                 on_fork: Callable[[], None] | None = None,
                 while_running: AbstractContextManager | None = None) -> Any:
    """Run ``fn(*args)`` in a forked child under ``limits``; return what it returned.

    ``on_fork`` runs first in the child (e.g. dropping inherited database connections);
    ``while_running`` is entered in the parent once the child exists (a heartbeat thread
    started after the fork cannot hold a lock the child inherits). Raises
    :class:`LimitExceeded` (time: the child was SIGKILLed at ``limits.seconds``; memory: an
    allocation failed under the address-space limit, or the kernel killed it),
    :class:`HorseError` when ``fn`` raised, :class:`HorseDied` when the child died silently.
    Whatever interrupts the parent (a cold shutdown) kills the child first.
    """
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        os.close(read_fd)
        _child(fn, args, limits, write_fd, on_fork, parent)
    os.close(write_fd)
    try:
        with while_running or nullcontext():
            payload = _read_until(read_fd, time.monotonic() + limits.seconds)
    except BaseException:
        _kill(pid)
        os.waitpid(pid, 0)
        raise
    finally:
        os.close(read_fd)
    if payload is None:
        _kill(pid)
    _, status = os.waitpid(pid, 0)
    if payload is None:
        raise LimitExceeded("time", time_limit_message(limits.seconds))
    return _outcome(payload, status, limits)


def _read_until(read_fd: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None at the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([read_fd], [], [], min(left, 1.0))
        if not ready:
            continue
        chunk = os.read(read_fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _kill(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _outcome(payload: bytes, status: int, limits: Limits) -> Any:
    if not payload:
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            # Not ours (we kill only at the deadline): the kernel's OOM killer, most likely.
            raise LimitExceeded("memory", memory_limit_message(limits.memory_bytes))
        raise HorseDied(f"the work process died ({_describe(status)})")
    kind, value = pickle.loads(payload)
    if kind == "ok":
        return value
    if kind == "memory":
        raise LimitExceeded("memory", memory_limit_message(limits.memory_bytes))
    raise HorseError(value)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit code {os.WEXITSTATUS(status)}"
