"""LS07 and CoInCo files as the field distributes them, and the prepared split built from them.

Files are read as bytes and decoded as latin-1: one character per byte, as Perl and Python 2
read them (CoInCo holds a few non-UTF-8 bytes). A split's *source* is one deterministic
gzipped JSON document holding its gold lines verbatim, the candidate pools of its lemmas and
its inputs, so that every protocol parses the gold lines its own way.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from leaderboard.scoring.lexsub.split import (
    FILES,
    POS_NAMES,
    LexsubGold,
    LexsubTarget,
    SplitFiles,
    gold_key,
    pos_of,
    targets_of,
)
from leaderboard.scoring.swords.gold import PreparedSplit
from leaderboard.scoring.swords.sources import read_source, source_checksum

__all__ = ["FILES", "POS_NAMES", "SOURCE_FORMAT", "LexsubSplit", "LexsubTarget", "SplitFiles",
           "build_source", "gold_key", "pos_of", "prepare_files", "prepare_source",
           "read_candidates", "read_inputs", "read_text", "source_doc"]

SOURCE_FORMAT = "lexsub-1"
#: The largest float64 resample matrix :attr:`LexsubSplit.float_resamples` keeps (LS07 all:
#: fits; CoInCo's, many times larger, is converted per product instead).
FLOAT_RESAMPLES_BYTES = 64 << 20


def read_text(path: Path) -> str:
    """A data file (gzipped or not) as latin-1 text."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("latin-1")


def read_candidates(text: str) -> dict[str, list[str]]:
    """``lemma.pos::a;b;...`` lines -> lemma.pos -> pool, in file order."""
    pools: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "::" in line:
            head, _, rest = line.partition("::")
            pools[head.strip()] = [c for c in rest.strip().split(";") if c]
    return pools


def read_inputs(text: str) -> list[list]:
    """Preprocessed lines -> [key, lemma.pos, token index, sentence]."""
    rows = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 4:
            rows.append([f"{parts[0]} {parts[1]}", parts[0], int(parts[2]), parts[3]])
    return rows


def build_source(family: str, split: str, data_dir: Path) -> bytes:
    """The gzipped JSON source of ``family``'s ``split`` (deterministic bytes)."""
    return gzip.compress(_source_text(family, split, data_dir).encode("utf-8"), 6, mtime=0)


def prepare_files(family: str, split: str, data_dir: Path, *, name: str | None = None,
                  bootstrap: int = 1000, seed: int = 0) -> LexsubSplit:
    """:func:`prepare_source` of :func:`build_source`, without compressing (one-off scoring:
    the same split, checksum included)."""
    text = _source_text(family, split, data_dir)
    return _from_doc(json.loads(text), name or f"{family}-{split}",
                     hashlib.sha256(text.encode("utf-8")).hexdigest(), bootstrap, seed)


def _source_text(family: str, split: str, data_dir: Path) -> str:
    files = FILES[family][split]
    gold = [line for line in read_text(data_dir / files.gold).splitlines() if "::" in line]
    inputs = read_inputs(read_text(data_dir / files.inputs))
    if files.filter_by_inputs:
        wanted = {row[0] for row in inputs}
        gold = [line for line in gold if gold_key(line) in wanted]
    lemmas = {gold_key(line).rpartition(" ")[0] for line in gold}
    pools = read_candidates(read_text(data_dir / files.candidates))
    doc = {"format": SOURCE_FORMAT, "family": family, "split": split, "gold": gold,
           "candidates": {k: pools[k] for k in sorted(lemmas) if k in pools},
           "inputs": inputs}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def source_doc(source: bytes) -> dict:
    """Decode what :func:`build_source` wrote."""
    return read_source(source, SOURCE_FORMAT, "lexsub")


@dataclass
class LexsubSplit(PreparedSplit, LexsubGold):
    """A prepared LS07 or CoInCo split; resamples and POS work as for a SWORDS split (the
    readings of its gold: :class:`.split.LexsubGold`)."""

    family: str = ""
    split: str = ""
    pools: dict[str, list[str]] = field(default_factory=dict)
    inputs: list[list] = field(default_factory=list)
    #: True: :meth:`resamples` gives float64 matrices, converted once and kept (up to
    #: :data:`FLOAT_RESAMPLES_BYTES` each), so that scoring many files in one process does
    #: not convert the uint16 counts for every product (the same values: the same sums).
    float_resamples: bool = field(default=False, repr=False, compare=False)

    def resamples(self, pos: str | None = None, *, bootstrap: int | None = None,
                  seed: int | None = None) -> np.ndarray:
        counts = super().resamples(pos, bootstrap=bootstrap, seed=seed)
        if not self.float_resamples or counts.dtype == np.float64 or (
                counts.size * 8 > FLOAT_RESAMPLES_BYTES):
            return counts
        key = ("float64", pos, bootstrap, seed)
        found = self._cache.get(key)
        if found is None or found.shape != counts.shape:
            found = self._cache[key] = counts.astype(np.float64)
            found.flags.writeable = False
        return found

    def to_bytes(self) -> bytes:
        doc = {"format": SOURCE_FORMAT, "family": self.family, "split": self.split,
               "name": self.name, "checksum": self.checksum, "bootstrap": self.bootstrap,
               "seed": self.seed, "gold": [t.line for t in self.targets],
               "candidates": self.pools, "inputs": self.inputs}
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        return gzip.compress(text.encode("utf-8"), 6, mtime=0)

    @classmethod
    def from_bytes(cls, data: bytes) -> LexsubSplit:
        doc = source_doc(data)
        return _from_doc(doc, doc["name"], doc["checksum"], doc["bootstrap"], doc["seed"])


def _from_doc(doc: dict, name: str, checksum: str, bootstrap: int, seed: int) -> LexsubSplit:
    targets = targets_of(doc["gold"])
    return LexsubSplit(name, checksum, targets, bootstrap, seed, family=doc["family"],
                       split=doc["split"], pools=doc["candidates"], inputs=doc["inputs"])


def prepare_source(source: bytes, *, name: str | None = None, bootstrap: int = 1000,
                   seed: int = 0) -> LexsubSplit:
    """The prepared split of a source written by :func:`build_source`."""
    doc = source_doc(source)
    return _from_doc(doc, name or f"{doc['family']}-{doc['split']}", source_checksum(source),
                     bootstrap, seed)
