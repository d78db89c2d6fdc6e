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
from functools import cached_property
from pathlib import Path
from typing import TypeVar

from leaderboard.scoring.gold import PreparedSplit
from leaderboard.scoring.jabbari import BLANKS
from leaderboard.scoring.lexsub.gap import gap_denominator, gold_weights, split_last_space
from leaderboard.scoring.lexsub.scorepl import item_of
from leaderboard.scoring.sources import read_source, source_checksum

SOURCE_FORMAT = "lexsub-1"
V = TypeVar("V")
POS_NAMES = {"n": "NOUN", "v": "VERB", "a": "ADJ", "j": "ADJ", "r": "ADV"}


@dataclass(frozen=True)
class SplitFiles:
    """Where one split's gold and inputs are, and which pool file goes with them."""

    gold: str
    inputs: str
    candidates: str
    #: CoInCo's dev/test gold is its `all` gold restricted to the ids of these inputs.
    filter_by_inputs: bool = False


FILES: dict[str, dict[str, SplitFiles]] = {
    "semeval07": {
        split: SplitFiles(f"lst_{split}.gold", f"lst_{split}.preprocessed.gz",
                          "lst.gold.candidates")
        for split in ("trial", "test", "all")
    },
    "coinco": {
        split: SplitFiles("coinco_all.no_problematic.gold.gz",
                          f"coinco_{split}.no_problematic.preprocessed.gz",
                          "coinco.no_problematic.candidates", filter_by_inputs=split != "all")
        for split in ("all", "dev", "test")
    },
}


def read_text(path: Path) -> str:
    """A data file (gzipped or not) as latin-1 text."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("latin-1")


def pos_of(lemma_pos: str) -> str:
    """NOUN/VERB/ADJ/ADV from ``lemma.pos`` (LS07 n/v/a/r, CoInCo N/V/J/R); OTHER otherwise."""
    return POS_NAMES.get(lemma_pos.rpartition(".")[2].lower(), "OTHER")


def gold_key(line: str) -> str:
    """The instance key of a gold line as ``lst_gap.py`` takes it: the text before ``::``."""
    return line.split("::", 1)[0].strip()


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


@dataclass(frozen=True)
class LexsubTarget:
    """One gold instance: its key (``lemma.pos ID``), score.pl's item id and its gold line."""

    target_id: str
    item_id: str
    lemma: str
    pos: str
    line: str

    @property
    def scored(self) -> bool:
        return True

    def answer_counts(self) -> dict[str, int]:
        """Each gold answer and how many annotators gave it, as Jabbari et al.'s metrics read
        the line: answers trimmed of blanks at both ends, and entries that are then equal
        merged, their counts added (``garden 2;...;garden  1`` of ``yard.n 801``: garden 3).
        score.pl keys the two apart (``garden`` and ``garden ``), and best/oot keep that."""
        counts: dict[str, int] = {}
        for entry in self.line.split("::", 1)[1].strip().split(";"):
            if entry:
                answer, count = split_last_space(entry)
                answer = answer.strip(BLANKS)
                counts[answer] = counts.get(answer, 0) + int(count)
        return counts


@dataclass
class LexsubSplit(PreparedSplit):
    """A prepared LS07 or CoInCo split; resamples and POS work as for a SWORDS split."""

    family: str = ""
    split: str = ""
    pools: dict[str, list[str]] = field(default_factory=dict)
    inputs: list[list] = field(default_factory=list)

    @cached_property
    def items(self) -> dict[str, LexsubTarget]:
        """score.pl's item id -> the first instance with it (score.pl keys items by id)."""
        found: dict[str, LexsubTarget] = {}
        for t in self.targets:
            found.setdefault(t.item_id, t)
        return found

    @cached_property
    def gap_gold(self) -> list[tuple[dict[str, int], float]]:
        """Per instance (split order): its no-mwe gold map and GAP denominator, parsed once
        per split rather than once per scored file."""
        out = []
        for t in self.targets:
            weights = gold_weights(t.line)
            out.append((dict(weights), gap_denominator(weights)))
        return out

    @cached_property
    def jabbari_counts(self) -> list[dict[str, int]]:
        """Per instance (split order): :meth:`LexsubTarget.answer_counts`, read once per split."""
        return [t.answer_counts() for t in self.targets]

    @cached_property
    def pool_sets(self) -> dict[str, frozenset[str]]:
        """Instance key -> its pool as a set, built once per split (checked for every file)."""
        return {t.target_id: frozenset(self.pool(t)) for t in self.targets}

    @cached_property
    def no_candidates(self) -> frozenset[str]:
        """Instances whose candidate pool is empty (9 on LS07: ``bar.n.v 48``, ``stand.n.v
        131``...; the pool file has no entry for their lemma.pos): no ranking answers them."""
        return frozenset(t.target_id for t in self.targets if not self.pool(t))

    def instance_key(self, key: str) -> str:
        """The split's key of an answer line's ``lemma.pos ID``, matched as score.pl matches
        lines, by the id alone: the trial XML writes ``bar.n 48`` for the gold's ``bar.n.v
        48``. A key of the split is its own; one whose id is not in the split stays as is."""
        if key in self.target_index:
            return key
        target = self.items.get(key.rpartition(" ")[2])
        return key if target is None else target.target_id

    def by_instance(self, entries: dict[str, V]) -> dict[str, V]:
        """Answer-line entries re-keyed by :meth:`instance_key` (the first one of an id)."""
        out: dict[str, V] = {}
        for key, value in entries.items():
            out.setdefault(self.instance_key(key), value)
        return out

    def pool(self, target: LexsubTarget) -> list[str]:
        """The candidates a ranking system scores for ``target``."""
        return self.pools.get(target.target_id.rpartition(" ")[0], [])

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


def _target(line: str) -> LexsubTarget:
    key = gold_key(line)
    lemma_pos, _, item = key.rpartition(" ")
    return LexsubTarget(key, item_of(line) or item, lemma_pos.rpartition(".")[0],
                        pos_of(lemma_pos), line)


def _from_doc(doc: dict, name: str, checksum: str, bootstrap: int, seed: int) -> LexsubSplit:
    # lst_gap.py keeps the last gold line of a key; no distributed file repeats one.
    by_key = {gold_key(line): line for line in doc["gold"]}
    targets = [_target(line) for line in by_key.values()]
    return LexsubSplit(name, checksum, targets, bootstrap, seed, family=doc["family"],
                       split=doc["split"], pools=doc["candidates"], inputs=doc["inputs"])


def prepare_source(source: bytes, *, name: str | None = None, bootstrap: int = 1000,
                   seed: int = 0) -> LexsubSplit:
    """The prepared split of a source written by :func:`build_source`."""
    doc = source_doc(source)
    return _from_doc(doc, name or f"{doc['family']}-{doc['split']}", source_checksum(source),
                     bootstrap, seed)
