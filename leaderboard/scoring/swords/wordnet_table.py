"""The compiled WordNet 3.0 table the lemmatizer reads: index lemmas and exception lists.

WordNet's morphy needs only two things per part of speech: the set of lemmas in
``index.<pos>`` and the exception list ``<pos>.exc``. :func:`compile_table` reads them once
(from Debian's ``wordnet-base`` in ``/usr/share/wordnet``, or any directory holding the same
files, such as an NLTK data directory's ``corpora/wordnet``) into one small gzipped JSON
file; :func:`load_table` turns it back into frozensets and dicts in tens of milliseconds.
No pickle, no NLTK.

Settings (environment): ``LEADERBOARD_WORDNET_DIR`` names the WordNet source directory,
``LEADERBOARD_WORDNET_TABLE`` the compiled table's path.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
TABLE_FORMAT = 1
#: WordNet's file suffix of each POS letter (NLTK's ``_FILEMAP``).
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}

INSTALL_HINT = (
    "Run `leaderboard wordnet install` (it reads Debian's wordnet-base: "
    "`apt-get install wordnet-base`, or the directory named by LEADERBOARD_WORDNET_DIR)."
)


class WordNetMissing(RuntimeError):
    """The compiled WordNet table (or WordNet itself) is missing; the message says the fix."""


@dataclass(frozen=True)
class WordNetTable:
    """Per POS letter: the lemmas of ``index.<pos>`` and the exception map of ``<pos>.exc``."""

    index: dict[str, frozenset[str]]
    exceptions: dict[str, dict[str, tuple[str, ...]]]
    max_length: int
    source: str
    sha256: str = ""


def source_dir() -> Path:
    """The WordNet directory to compile from: ``$LEADERBOARD_WORDNET_DIR`` or Debian's."""
    env = os.environ.get("LEADERBOARD_WORDNET_DIR")
    return Path(env) if env else DEBIAN_WORDNET_DIR


def table_path() -> Path:
    """Where the compiled table lives: ``$LEADERBOARD_WORDNET_TABLE`` or under the venv."""
    env = os.environ.get("LEADERBOARD_WORDNET_TABLE")
    if env:
        return Path(env)
    return Path(sys.prefix) / "share" / "swords-leaderboard" / "wordnet-3.0-morphy.json.gz"


def _resolve_source(source: Path) -> Path:
    if not (source / "index.noun").is_file() and (source / "corpora" / "wordnet").is_dir():
        return source / "corpora" / "wordnet"  # an NLTK data directory
    return source


def read_wordnet(source: Path) -> dict:
    """The table's JSON document from a WordNet 3.0 directory (raises :class:`WordNetMissing`).

    Lemmas are read as NLTK 3.5's ``_load_lemma_pos_offset_map`` does (first token of each
    line not starting with a space); exceptions as its ``_load_exception_map`` (first token
    -> the rest, a later line for the same word replacing an earlier one).
    """
    source = _resolve_source(source)
    names = [f"index.{s}" for s in POS_FILES.values()] + [f"{s}.exc" for s in POS_FILES.values()]
    missing = [n for n in names if not (source / n).is_file()]
    if missing:
        raise WordNetMissing(f"WordNet 3.0 not found: {source} lacks {', '.join(missing)}. "
                             f"{INSTALL_HINT}")
    header = (source / "index.noun").read_text(encoding="utf-8")[:4000]
    if "WordNet 3.0" not in header:
        raise WordNetMissing(f"{source}/index.noun is not WordNet 3.0; the scorer needs 3.0")
    index: dict[str, str] = {}
    exceptions: dict[str, dict[str, list[str]]] = {}
    digest = hashlib.sha256()
    for letter, suffix in POS_FILES.items():
        lemmas = []
        with open(source / f"index.{suffix}", encoding="utf-8") as fh:
            for line in fh:
                digest.update(line.encode())
                if not line.startswith(" "):
                    lemmas.append(line.split(None, 1)[0])
        index[letter] = "\n".join(lemmas)
        exc: dict[str, list[str]] = {}
        with open(source / f"{suffix}.exc", encoding="utf-8") as fh:
            for line in fh:
                digest.update(line.encode())
                terms = line.split()
                if terms:
                    exc[terms[0]] = terms[1:]
        exceptions[letter] = exc
    max_length = max(len(w) for text in index.values() for w in text.split("\n"))
    return {"format": TABLE_FORMAT, "source": str(source), "sha256": digest.hexdigest(),
            "max_length": max_length, "index": index, "exceptions": exceptions}


def compile_table(source: Path | None = None, target: Path | None = None) -> Path:
    """Compile WordNet's index and exception files into the table; atomic; returns its path."""
    doc = read_wordnet(source or source_dir())
    target = target or table_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    data = gzip.compress(json.dumps(doc, separators=(",", ":")).encode(), mtime=0)
    fd, tmp = tempfile.mkstemp(prefix=".wordnet-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; workers of other users read it
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def load_table(path: Path | None = None) -> WordNetTable:
    """Load the compiled table, or raise :class:`WordNetMissing` naming the fix."""
    path = path or table_path()
    try:
        doc = json.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        raise WordNetMissing(f"the compiled WordNet table {path} is missing. "
                             f"{INSTALL_HINT}") from None
    except (OSError, EOFError, ValueError) as exc:
        raise WordNetMissing(f"the compiled WordNet table {path} is unreadable ({exc}). "
                             f"{INSTALL_HINT}") from None
    if doc.get("format") != TABLE_FORMAT:
        raise WordNetMissing(f"the compiled WordNet table {path} has an old format. "
                             f"{INSTALL_HINT}")
    index = {letter: frozenset(text.split("\n")) for letter, text in doc["index"].items()}
    exceptions = {letter: {k: tuple(v) for k, v in exc.items()}
                  for letter, exc in doc["exceptions"].items()}
    return WordNetTable(index, exceptions, int(doc["max_length"]), doc.get("source", ""),
                        doc.get("sha256", ""))
