"""What ``leaderboard serve`` set up last time, by checksum, so that a restart with nothing
changed skips the import steps (importing boards that already exist was most of a second
``make run``).

The checksum covers every input of the set-up: the benchmark file and its dev sibling, the
shared reference systems, the LS07/CoInCo files, and the package itself (code, shipped
reported rows, demo data; any change to it runs the set-up again). It is stored in the
instance folder only after every step succeeded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

STAMP_FILE = "setup.sha256"


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def setup_checksum(inputs: Iterable[Path], label: str = "") -> str:
    """SHA-256 over the names and contents of every file under ``inputs`` (files or
    folders; a missing one counts as absent) and ``label`` (the steps' arguments)."""
    digest = hashlib.sha256(label.encode())
    for root in inputs:
        digest.update(f"\0{root}\0".encode())
        for path in _files(root):
            digest.update(f"{path.relative_to(root) if root.is_dir() else path.name}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def unchanged(instance: Path, checksum: str) -> bool:
    """Whether the last complete set-up in ``instance`` had this checksum."""
    try:
        stored = (instance / STAMP_FILE).read_text().strip()
    except OSError:
        return False
    return stored == checksum


def record(instance: Path, checksum: str) -> None:
    """Remember a complete set-up."""
    (instance / STAMP_FILE).write_text(checksum + "\n")


def forget(instance: Path) -> None:
    """Before a set-up runs: a set-up cut short must run again next time."""
    (instance / STAMP_FILE).unlink(missing_ok=True)
