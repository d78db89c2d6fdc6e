"""TSAR-2022 files and the prepared split built from them.

The files are UTF-8 TSV: ``sentence<TAB>complex word`` (inputs, ``*_none.tsv``) and the same
followed by every annotator's substitute (gold, ``*_gold.tsv``). A line is stripped of
surrounding white space and split at tabs, as the official scorer reads it; an instance's
key is its sentence and complex word (each stripped), joined by ``__`` as the scorer joins
them. A split's *source* is one deterministic gzipped JSON document holding its gold lines
and its inputs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from leaderboard.scoring.swords.gold import PreparedSplit
from leaderboard.scoring.swords.sources import read_source, source_checksum
from leaderboard.scoring.tsar.metrics import gold_counts, top_gold

SOURCE_FORMAT = "tsar2022-1"
LANGUAGES = ("en", "es", "pt")
SPLITS = tuple(f"{lang}-{phase}" for lang in LANGUAGES for phase in ("trial", "test"))


def data_dir() -> Path:
    """``$LEADERBOARD_TSAR_DIR``, else ``../shared/data/tsar2022`` beside the project."""
    env = os.environ.get("LEADERBOARD_TSAR_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[4] / "shared" / "data" / "tsar2022"


def split_paths(split: str, root: Path) -> tuple[Path, Path]:
    """The gold and input files of ``en-test`` (etc.) under ``root``."""
    if split not in SPLITS:
        raise ValueError(f"TSAR-2022 has the splits {', '.join(SPLITS)}, not {split!r}")
    lang, phase = split.split("-")
    folder = root / "datasets" / phase
    return (folder / f"tsar2022_{lang}_{phase}_gold.tsv",
            folder / f"tsar2022_{lang}_{phase}_none.tsv")


def instance_key(sentence: str, word: str) -> str:
    """The key of an instance: ``sentence__word``, each stripped."""
    return f"{sentence.strip()}__{word.strip()}"


def fields(line: str) -> list[str]:
    """A line as the scorer splits it: stripped as a whole, then cut at tabs."""
    return line.strip().split("\t")


def _lines(path: Path) -> list[str]:
    # universal newlines, as Python's text mode reads the files for the scorer
    text = path.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return [line.strip() for line in text.split("\n") if line.strip()]


def _source_text(split: str, root: Path) -> str:
    gold, inputs = split_paths(split, root)
    doc = {"format": SOURCE_FORMAT, "family": "tsar2022", "split": split,
           "gold": _lines(gold), "inputs": [fields(line)[:2] for line in _lines(inputs)]}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def build_source(split: str, root: Path) -> bytes:
    """The gzipped JSON source of ``split`` (deterministic bytes)."""
    return gzip.compress(_source_text(split, root).encode("utf-8"), 6, mtime=0)


def source_doc(source: bytes) -> dict:
    """Decode what :func:`build_source` wrote."""
    return read_source(source, SOURCE_FORMAT, "TSAR-2022")


@dataclass(frozen=True)
class TsarTarget:
    """One gold instance: its key, sentence, complex word (as written: the scorer compares
    annotations with it unstripped) and its annotations."""

    target_id: str
    sentence: str
    word: str
    annotations: tuple[str, ...]
    pos: str = ""

    @property
    def scored(self) -> bool:
        return True

    @property
    def lemma(self) -> str:
        return self.word.strip()

    @cached_property
    def counts(self) -> dict[str, int]:
        """Each annotation and how many annotators gave it, the complex word left out."""
        return gold_counts(self.annotations, self.word)

    def answer_counts(self) -> dict[str, int]:
        """:attr:`counts`, by the name per-instance diagnostics read."""
        return dict(self.counts)

    @cached_property
    def top(self) -> set[str]:
        return top_gold(self.counts)

    def line(self) -> str:
        return "\t".join((self.sentence, self.word, *self.annotations))


def target_of(line: str) -> TsarTarget:
    """The instance of a gold line (at least sentence and complex word)."""
    parts = fields(line)
    if len(parts) < 2:
        raise ValueError(f"a gold line needs a sentence and a complex word: {line[:80]!r}")
    return TsarTarget(instance_key(parts[0], parts[1]), parts[0], parts[1], tuple(parts[2:]))


@dataclass
class TsarSplit(PreparedSplit):
    """A prepared TSAR-2022 split; no POS (every instance's is empty)."""

    family: str = "tsar2022"
    split: str = ""
    inputs: list[list[str]] = field(default_factory=list)

    @cached_property
    def by_word(self) -> dict[str, list[TsarTarget]]:
        """Complex word (stripped) -> its instances, to say which one a sentence misses."""
        found: dict[str, list[TsarTarget]] = {}
        for t in self.targets:
            found.setdefault(t.lemma, []).append(t)
        return found

    def to_bytes(self) -> bytes:
        doc = {"format": SOURCE_FORMAT, "family": self.family, "split": self.split,
               "name": self.name, "checksum": self.checksum, "bootstrap": self.bootstrap,
               "seed": self.seed, "gold": [t.line() for t in self.targets],
               "inputs": self.inputs}
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        return gzip.compress(text.encode("utf-8"), 6, mtime=0)

    @classmethod
    def from_bytes(cls, data: bytes) -> TsarSplit:
        doc = source_doc(data)
        return _from_doc(doc, doc["name"], doc["checksum"], doc["bootstrap"], doc["seed"])


def _from_doc(doc: dict, name: str, checksum: str, bootstrap: int, seed: int) -> TsarSplit:
    # the scorer keeps the last gold line of a key; no distributed file repeats one
    by_key = {t.target_id: t for t in map(target_of, doc["gold"])}
    return TsarSplit(name, checksum, list(by_key.values()), bootstrap, seed,
                     family=doc["family"], split=doc["split"], inputs=doc["inputs"])


def prepare_source(source: bytes, *, name: str | None = None, bootstrap: int = 1000,
                   seed: int = 0) -> TsarSplit:
    """The prepared split of a source written by :func:`build_source`."""
    doc = source_doc(source)
    return _from_doc(doc, name or f"tsar2022-{doc['split']}", source_checksum(source),
                     bootstrap, seed)


def prepare_files(split: str, root: Path, *, name: str | None = None, bootstrap: int = 1000,
                  seed: int = 0) -> TsarSplit:
    """The prepared split straight from the files (one-off scoring; same checksum)."""
    text = _source_text(split, root)
    return _from_doc(json.loads(text), name or f"tsar2022-{split}",
                     hashlib.sha256(text.encode("utf-8")).hexdigest(), bootstrap, seed)
