"""A split's source as the families read from the field's files store it: gzipped JSON with
its format named, identified by the sha256 of the decompressed bytes."""

from __future__ import annotations

import os
from pathlib import Path


def read_source(source: bytes, source_format: str, family: str) -> dict:
    """The JSON document of ``source``; ValueError when it is not ``source_format``."""
    import gzip  # here and below: the one-off scoring that reads only cache_dir skips them
    import json

    doc = json.loads(gzip.decompress(source).decode("utf-8"))
    if doc.get("format") != source_format:
        raise ValueError(f"not a {family} source (format {doc.get('format')!r})")
    return doc


def source_checksum(source: bytes) -> str:
    """sha256 of the decompressed source: the split's identity."""
    import gzip
    import hashlib

    return hashlib.sha256(gzip.decompress(source)).hexdigest()


def cache_dir() -> Path:
    """The directory holding cached prepared splits and drawn resamples:
    ``$LEADERBOARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/swords-leaderboard``, else
    ``~/.cache/swords-leaderboard`` (:mod:`leaderboard.scoring.swords.split_cache`)."""
    env = os.environ.get("LEADERBOARD_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "swords-leaderboard"
