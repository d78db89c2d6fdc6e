"""How services run work on untrusted bytes: through an ``Isolate`` the caller hands them.

A worker passes one that runs the work in a child process under hard time and memory limits
(:mod:`leaderboard.worker.horse`); host commands and tests on trusted files may run it in
process. The
services only need to know the one outcome the work cannot report itself: a limit was hit.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol


class LimitExceeded(Exception):
    """Work on a file went past a hard limit; ``message`` says which, in stable words
    ("took longer than 300 s", "needed more than 2048 MB of memory")."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class Isolate(Protocol):
    """Runs ``fn(*args)`` somewhere and returns its result; ``while_running`` is entered by
    the caller's side for as long as the work runs (a heartbeat, say)."""

    def __call__(self, fn: Callable[..., Any], *args: Any,
                 while_running: AbstractContextManager | None = None) -> Any: ...


def in_process(fn: Callable[..., Any], *args: Any,
               while_running: AbstractContextManager | None = None) -> Any:
    """The trivial isolate: run here (host commands, trusted files, tests of the services)."""
    with while_running or nullcontext():
        return fn(*args)
