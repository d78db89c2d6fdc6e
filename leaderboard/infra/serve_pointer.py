"""Which instance folder a running ``leaderboard serve`` uses, for host commands to follow.

``make run BENCHMARK=F`` keeps its data in ``instance/<F's stem>/``; a host command run in
another terminal without ``LEADERBOARD_INSTANCE_PATH`` would otherwise open ``instance/``
(another database: its tokens are refused with 401, its teams never appear). ``serve``
writes ``instance/current`` naming its folder and pid, removes it on a clean stop, and a
pointer whose pid is no longer that serve (killed, recycled) is ignored.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: In the default instance folder while ``leaderboard serve`` runs: its folder and pid.
POINTER_FILE = "current"
#: In the instance folder a ``serve`` claimed: its pid.
SERVE_PID_FILE = "serve.pid"


def alive(pid: int | None) -> bool:
    """Whether a process ``pid`` exists."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_serve(pid: int) -> bool:
    """Whether ``pid`` still runs ``leaderboard serve`` (a recycled pid is someone else)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc: trust the pid
    return any(part.endswith(b"leaderboard") for part in cmdline) and b"serve" in cmdline


def read_pid(path: Path) -> int | None:
    """The pid written in ``path``, or None."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def write_pointer(base: Path, instance: Path, pid: int) -> Path:
    """Record in ``base/current`` that ``pid`` serves ``instance``; returns the file."""
    pointer = base / POINTER_FILE
    base.mkdir(parents=True, exist_ok=True)
    temporary = pointer.with_name(f".{POINTER_FILE}.{pid}")
    temporary.write_text(json.dumps({"instance": str(Path(instance).resolve()), "pid": pid}))
    temporary.replace(pointer)
    return pointer


def remove_pointer(base: Path, pid: int) -> None:
    """Remove ``base/current`` if it still names ``pid`` (a later serve may have replaced it)."""
    pointer = base / POINTER_FILE
    try:
        if json.loads(pointer.read_text()).get("pid") == pid:
            pointer.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def running_instance(base: Path) -> tuple[Path, int] | None:
    """The instance folder and pid of the live ``serve`` that ``base/current`` names, or None
    (no pointer, or its serve is gone: the pid is dead, not a serve, or not the one whose
    ``serve.pid`` claims that folder)."""
    try:
        record = json.loads((base / POINTER_FILE).read_text())
        instance, pid = Path(record["instance"]), int(record["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if read_pid(instance / SERVE_PID_FILE) != pid or not alive(pid) or not is_serve(pid):
        return None
    return instance, pid
