"""Benchmark splits: validated import, the default split, prepared gold cached per process.

A split is stored twice: the source file (gzipped, for input export and re-preparation) and
``PreparedSplit.to_bytes()`` so a worker loads the lemmatized gold without WordNet work.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from leaderboard.models import Split
from leaderboard.scoring import SCORER_VERSION, PreparedSplit, prepare_split
from leaderboard.scoring.families import family_for, inputs_json
from leaderboard.scoring.swords.gold import GZIP_MAGIC, split_checksum
from leaderboard.services.catalog.boards import BoardError, create_board, default_board

LABELS = frozenset({"TRUE", "FALSE", "UNSURE", "TRUE_IMPLICIT", "FALSE_IMPLICIT"})
POS_VALUES = frozenset({"NOUN", "VERB", "ADJ", "ADV"})
ID_PATTERNS = {kind: re.compile(rf"^{kind}:[0-9a-f]{{40}}$") for kind in ("c", "t", "s")}
#: Problems listed in one error; a broken file would otherwise produce thousands.
MAX_PROBLEMS = 20


def base_split(split: str) -> str:
    """The split a subset belongs with: Humans on ``test-subset`` is part of ``test`` (its
    reference rows are shown on, and its reported rows go with, the ``test`` boards)."""
    return split.removesuffix("-subset")


def get_split(session: Session, split_id: int) -> Split | None:
    """The split row without its two files (read only if used, e.g. on a prepared-gold cache
    miss): reading them with every job was most of a worker's growth inside a job, and with
    every page or dry run a few megabytes of needless I/O."""
    return session.get(Split, split_id, options=Split.without_files())


class BenchmarkInvalid(ValueError):
    """The file is not a well-formed SWORDS split; ``problems`` says where."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        shown = problems[:MAX_PROBLEMS]
        more = len(problems) - len(shown)
        super().__init__("; ".join(shown) + (f"; ... and {more} more" if more else ""))


class BenchmarkConflict(ValueError):
    """Different content was offered under a name/version/split that already exists."""


def parse_split(raw: bytes) -> dict:
    """Decode a SWORDS split (plain or gzipped JSON); raises BenchmarkInvalid when unreadable."""
    try:
        data = gzip.decompress(raw) if raw[:2] == GZIP_MAGIC else raw
        split = json.loads(data.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BenchmarkInvalid([f"not a JSON or gzipped JSON file: {exc}"]) from exc
    if not isinstance(split, dict):
        raise BenchmarkInvalid(["top level must be a JSON object"])
    return split


def validate_split(split: dict) -> list[str]:
    """Every structural problem of a split: ids, references, POS and label values."""
    problems: list[str] = []
    sections = {}
    for key in ("contexts", "targets", "substitutes", "substitute_labels"):
        value = split.get(key)
        if not isinstance(value, dict):
            problems.append(f"'{key}' must be an object")
        sections[key] = value if isinstance(value, dict) else {}
    if problems:
        return problems
    contexts, targets = sections["contexts"], sections["targets"]
    substitutes, labels = sections["substitutes"], sections["substitute_labels"]
    if not targets:
        problems.append("the split has no targets")
    for kind, key, section in (("c", "contexts", contexts), ("t", "targets", targets),
                               ("s", "substitutes", substitutes)):
        for item_id, item in section.items():
            if not ID_PATTERNS[kind].match(item_id):
                problems.append(f"{key}: bad id {item_id!r} (expected '{kind}:' + 40 hex)")
            if not isinstance(item, dict):
                problems.append(f"{key}: {item_id} must be an object")
    if problems:
        return problems
    for cid, ctx in contexts.items():
        if not isinstance(ctx.get("context"), str):
            problems.append(f"context {cid} has no 'context' text")
    for tid, target in targets.items():
        if target.get("context_id") not in contexts:
            problems.append(f"target {tid} points to unknown context {target.get('context_id')!r}")
        if not isinstance(target.get("target"), str) or not target.get("target"):
            problems.append(f"target {tid} has no 'target' word")
        if target.get("pos") not in POS_VALUES:
            problems.append(f"target {tid} has POS {target.get('pos')!r} "
                            f"(expected one of {', '.join(sorted(POS_VALUES))})")
    for sid, sub in substitutes.items():
        if sub.get("target_id") not in targets:
            problems.append(f"substitute {sid} points to unknown target {sub.get('target_id')!r}")
        if not isinstance(sub.get("substitute"), str):
            problems.append(f"substitute {sid} has no 'substitute' text")
    for sid, values in labels.items():
        if sid not in substitutes:
            problems.append(f"substitute_labels: unknown substitute {sid!r}")
        if not isinstance(values, list):
            problems.append(f"substitute_labels: {sid} must be a list")
            continue
        for value in values:
            if value not in LABELS:
                problems.append(f"substitute_labels: {sid} has unknown label {value!r}")
    return problems


def import_benchmark(*, session: Session, raw: bytes, name: str, version: str, split: str,
                     hidden: bool = True, make_default: bool = False, with_board: bool = True,
                     bootstrap: int = 1000, seed: int = 0) -> Split:
    """Validate, prepare and store a split; commits.

    With ``with_board`` (not for a subset that only scores reference rows) the split gets its
    generative board (see :func:`create_board`); ``make_default`` makes that board the
    default. The same content under the same name/version/split returns the
    existing row; different content raises :class:`BenchmarkConflict`.
    Invalid files raise :class:`BenchmarkInvalid`. Preparing needs WordNet.
    """
    data = parse_split(raw)
    problems = validate_split(data)
    if problems:
        raise BenchmarkInvalid(problems)
    checksum = split_checksum(data)
    existing = session.exec(select(Split).where(
        Split.name == name, Split.version == version, Split.split == split)).first()
    if existing is not None:
        if existing.checksum != checksum:
            raise BenchmarkConflict(
                f"{name} {version} {split} already exists with different content "
                f"(checksum {existing.checksum[:12]}, offered {checksum[:12]}); "
                "import it under a new version instead")
        if with_board:
            create_board(session, existing, make_default=make_default)
            session.commit()
        return existing
    prepared = prepare_split(data, name=f"{name}-{version}-{split}", bootstrap=bootstrap,
                             seed=seed)
    source = raw if raw[:2] == GZIP_MAGIC else gzip.compress(raw, mtime=0)
    benchmark = Split(
        name=name, version=version, split=split, checksum=checksum, hidden=hidden,
        n_targets=len(data["targets"]), source_bytes=source,
        prepared_bytes=prepared.to_bytes(), scorer_version=SCORER_VERSION)
    session.add(benchmark)
    session.flush()
    if with_board:
        create_board(session, benchmark, make_default=make_default)
    session.commit()
    _CACHE[(checksum, SCORER_VERSION)] = prepared
    return benchmark


def import_family_split(session: Session, family: Any, *, version: str, split: str,
                        data_dir: Path, bootstrap: int = 1000, seed: int = 0) -> Split:
    """A split of a benchmark read from the field's own files (LS07, CoInCo, TSAR-2022): the
    stored one, else made from the files in ``data_dir`` and stored with public labels (they
    are published with the data); flushes."""
    if split not in family.splits:
        raise BoardError(f"{family.title} has the splits {', '.join(family.splits)}, "
                         f"not {split!r}")
    existing = session.exec(select(Split).where(
        Split.name == family.name, Split.version == version,
        Split.split == split)).first()
    if existing is not None:
        return existing
    source = family.build_source(split, data_dir)
    prepared = family.prepare(source, name=f"{family.name}-{split}", bootstrap=bootstrap,
                              seed=seed)
    benchmark = Split(name=family.name, version=version, split=split,
                          checksum=prepared.checksum, hidden=False,
                          n_targets=len(prepared.targets), source_bytes=source,
                          prepared_bytes=prepared.to_bytes(), scorer_version=SCORER_VERSION)
    session.add(benchmark)
    session.flush()
    return benchmark


def default_benchmark(session: Session) -> Split | None:
    """The split of the default board (what the site shows first)."""
    board = default_board(session)
    return get_split(session, board.split_id) if board is not None else None


def find_benchmark(session: Session, name: str, version: str | None = None,
                   split: str | None = None) -> Split | None:
    """The named split; without version/split, the newest matching row."""
    query = select(Split).where(Split.name == name)
    if version:
        query = query.where(Split.version == version)
    if split:
        query = query.where(Split.split == split)
    return session.exec(query.order_by(Split.id.desc())).first()


def list_benchmarks(session: Session) -> list[Split]:
    """Every stored split, oldest first."""
    return list(session.exec(select(Split).order_by(Split.id)).all())


_CACHE: dict[tuple[str, str], PreparedSplit] = {}
_CACHE_LOCK = threading.Lock()


def get_prepared(benchmark: Split) -> PreparedSplit:
    """The prepared gold of ``benchmark``, decoded once per process.

    Keyed by checksum and the scorer version that prepared it, so a re-prepared split is
    picked up by long-running workers.
    """
    key = (benchmark.checksum, benchmark.scorer_version)
    prepared = _CACHE.get(key)
    if prepared is None:
        with _CACHE_LOCK:
            prepared = _CACHE.get(key)
            if prepared is None:
                family = family_for(benchmark.name)
                prepared = family.prepared_from_bytes(benchmark.prepared_bytes)
                _CACHE[key] = prepared
    return prepared


_CANDIDATES: dict[str, dict[str, list[str]]] = {}


def get_candidates(benchmark: Split) -> dict[str, list[str]]:
    """Target id -> the candidates a ranking-track system must score (public, from the
    split's source), decoded once per process per split."""
    found = _CANDIDATES.get(benchmark.checksum)
    if found is None:
        found = _CANDIDATES[benchmark.checksum] = family_for(benchmark.name).candidates(
            benchmark.source_bytes)
    return found


def reprepare_stale(session: Session) -> list[Split]:
    """Prepare again, from the stored source, every split prepared by an older scorer
    version (the gold side can change with the rules). Flushes; the caller commits."""
    done = []
    for benchmark in list_benchmarks(session):
        if benchmark.scorer_version == SCORER_VERSION:
            continue
        family = family_for(benchmark.name)
        old = family.prepared_from_bytes(benchmark.prepared_bytes)
        prepared = family.prepare(benchmark.source_bytes, name=old.name,
                                  bootstrap=old.bootstrap, seed=old.seed)
        benchmark.prepared_bytes = prepared.to_bytes()
        benchmark.scorer_version = SCORER_VERSION
        session.add(benchmark)
        _CACHE[(benchmark.checksum, SCORER_VERSION)] = prepared
        done.append(benchmark)
    session.flush()
    return done


def split_inputs(benchmark: Split) -> dict[str, Any]:
    """What participants need to run a system, with every label removed (for SWORDS:
    contexts, targets with POS, candidate substitutes; for LS07/CoInCo: the instances with
    their sentence, token index and candidate pool)."""
    return json.loads(gzip.decompress(split_inputs_gz(benchmark)))


_INPUTS_CACHE: dict[tuple[int | None, str], bytes] = {}


def split_inputs_gz(benchmark: Split) -> bytes:
    """:func:`split_inputs` as gzipped JSON (deterministic bytes, built once per process)."""
    key = (benchmark.id, benchmark.checksum)
    data = _INPUTS_CACHE.get(key)
    if data is None:
        header = {"name": benchmark.name, "version": benchmark.version,
                  "split": benchmark.split, "checksum": benchmark.checksum}
        data = _INPUTS_CACHE[key] = inputs_json(family_for(benchmark.name),
                                                benchmark.source_bytes, header)
    return data
