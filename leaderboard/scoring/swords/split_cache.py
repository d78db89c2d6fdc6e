"""On-disk cache of prepared splits, so a second ``leaderboard score`` skips the gold work.

Preparing a split lemmatizes every gold substitute; loading its prepared form takes a
fraction of that. Entries are the gzipped JSON of
:meth:`PreparedSplit.to_bytes` (never pickle), named by the sha256 of the split file's bytes,
the scorer version, the prepared-split format and the WordNet table's checksum, so a new
scorer or WordNet never reads an old entry.

Where: ``$LEADERBOARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/swords-leaderboard``, else
``~/.cache/swords-leaderboard``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from leaderboard.scoring.swords.gold import FORMAT_VERSION, PreparedSplit, load_split, prepare_split
from leaderboard.scoring.swords.lemmatize import ensure_wordnet
from leaderboard.scoring.swords.sources import cache_dir
from leaderboard.scoring.version import SCORER_VERSION

__all__ = ["cache_dir", "cache_key", "prepared_split_cached"]


def cache_key(raw: bytes) -> str:
    """File name of a split's cache entry: what it was read from and what prepared it."""
    table = ensure_wordnet()
    parts = f"{hashlib.sha256(raw).hexdigest()}|{SCORER_VERSION}|{FORMAT_VERSION}|{table.sha256}"
    return f"prepared-{hashlib.sha256(parts.encode()).hexdigest()[:40]}.json.gz"


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".prepared-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def prepared_split_cached(path: Path, *, bootstrap: int = 1000, seed: int = 0,
                          use_cache: bool = True) -> tuple[PreparedSplit, str]:
    """The prepared split of the split file at ``path``, from the cache when possible.

    Returns the split and where it came from: ``"cache"``, ``"prepared"`` (and cached) or
    ``"prepared (not cached: why)"``. An unreadable entry is prepared again and replaced.
    """
    raw = Path(path).read_bytes()
    entry = cache_dir() / cache_key(raw) if use_cache else None
    if entry is not None and entry.is_file():
        try:
            prepared = PreparedSplit.from_bytes(entry.read_bytes())
        except (OSError, EOFError, ValueError, KeyError, TypeError):
            prepared = None  # truncated or foreign: prepare again below
        if prepared is not None:
            prepared.name, prepared.bootstrap, prepared.seed = Path(path).name, bootstrap, seed
            return prepared, "cache"
    prepared = prepare_split(load_split(raw), name=Path(path).name, bootstrap=bootstrap,
                             seed=seed)
    if entry is None:
        return prepared, "prepared (cache disabled)"
    try:
        _write_atomic(entry, prepared.to_bytes())
    except OSError as exc:
        return prepared, f"prepared (not cached: {exc})"
    return prepared, "prepared"
