"""Results' metric values on their split's shared bootstrap resamples, for the ranking.

Every value the ranking compares comes from :func:`system_values` (one result at a time, so
a value does not depend on which other results were computed with it), or from
:func:`some_values`, the same numbers of a few metrics only. The board's headline
metrics are also kept per result and POS in :class:`~leaderboard.models.ResultResamples`,
written when the result is scored, so an incremental refresh reads them instead of
recomputing them from the target statistics.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from sqlmodel import Session, col, select

from leaderboard.models import Result, ResultResamples
from leaderboard.scoring import TargetStats, resample_counts
from leaderboard.scoring.bootstrap import pos_stream
from leaderboard.scoring.swords.stats import (
    COLUMNS,
    FAMILIES,
    METRIC_KEYS,
    metrics_from_sums,
    resampled_sums,
)

log = logging.getLogger(__name__)
#: Rows per query: keeps IN lists and the blobs of one round trip small.
BATCH = 400


def pos_name(pos: str | None) -> str:
    return pos or "all"


def system_values(stats: TargetStats, pos: str | None,
                  counts: FloatCounts | None = None) -> dict[str, np.ndarray]:
    """Every metric of one result on each of its split's resamples of ``pos`` (None: all).

    ``counts``: float64 copies of the resample matrices kept by the caller (the same numbers
    as converting each block of :func:`resample_counts` on every call, which was most of the
    time of a result's values)."""
    rows = stats.rows if pos is None else stats.rows[stats.pos == pos]
    if counts is None:
        matrix = resample_counts(rows.shape[0], stats.bootstrap, stats.seed, pos_stream(pos))
    else:
        matrix = counts.of(rows.shape[0], stats.bootstrap, stats.seed, pos_stream(pos))
    return metrics_from_sums(resampled_sums(matrix, rows))


#: Past this many metrics a result's values are computed whole (a full refresh, or a
#: result neighbouring changes on most metrics).
SUBSET_MAX_KEYS = 12


@lru_cache(maxsize=1)
def _metric_plan() -> tuple[dict[str, tuple[int, ...]], dict[str, int]] | None:
    """Per metric: the columns its value is computed from, and its family (index in
    :data:`leaderboard.scoring.swords.stats.FAMILIES`); found by changing one column sum at a time
    (random sums, three ways each). None when the families do not give
    ``metrics_from_sums``'s numbers."""
    rng = np.random.default_rng(0)
    uses: dict[str, set[int]] = {k: set() for k in METRIC_KEYS}
    family: dict[str, int] = {}
    with np.errstate(all="ignore"):
        for _ in range(3):
            base = rng.uniform(1.0, 100.0, size=(2, len(COLUMNS)))
            before = metrics_from_sums(base)
            sums = {name: base[:, i] for i, name in enumerate(COLUMNS)}
            for f, compute in enumerate(FAMILIES):
                for key, value in compute(sums).items():
                    family[key] = f
                    if key in before and not np.array_equal(np.asarray(value) * 100.0,
                                                             before[key]):
                        return None
            for c in range(len(COLUMNS)):
                for changed in (0.0, base[0, c] * 1.37 + 1.0, -2.0 * base[0, c]):
                    other = base.copy()
                    other[:, c] = changed
                    after = metrics_from_sums(other)
                    for key in METRIC_KEYS:
                        if not np.array_equal(after[key], before[key], equal_nan=True):
                            uses[key].add(c)
    if not set(METRIC_KEYS) <= set(family):
        return None
    return {k: tuple(sorted(v)) for k, v in uses.items()}, family


def by_subset(keys: Iterable[str]) -> bool:
    """Whether :func:`some_values` computes ``keys`` alone (else: every metric)."""
    keys = list(keys)
    plan = _metric_plan()
    return (plan is not None and 0 < len(keys) <= SUBSET_MAX_KEYS
            and all(k in plan[0] for k in keys))


def some_values(stats: TargetStats, pos: str | None, keys: list[str],
                counts: FloatCounts | None = None) -> dict[str, np.ndarray]:
    """The values of ``keys`` only, the same to the last bit as :func:`system_values`'s: the
    same product of every column, then only the formulas of ``keys``' families, on the sums
    of the columns they read (the other columns 0). Computing every metric of every family
    from the (B, 52) sums is most of a result's time, and a refresh after a burst needs only
    a few metrics of most results (the pairs the new ones split)."""
    if not by_subset(keys):
        whole = system_values(stats, pos, counts)
        return {k: whole[k] for k in keys}
    plan = _metric_plan()
    assert plan is not None
    rows = stats.rows if pos is None else stats.rows[stats.pos == pos]
    if counts is None:
        matrix = resample_counts(rows.shape[0], stats.bootstrap, stats.seed, pos_stream(pos))
    else:
        matrix = counts.of(rows.shape[0], stats.bootstrap, stats.seed, pos_stream(pos))
    sums = resampled_sums(matrix, rows)
    zero = np.float64(0.0)
    named: dict[str, object] = {name: zero for name in COLUMNS}
    named.update((COLUMNS[c], sums[:, c]) for c in {c for k in keys for c in plan[0][k]})
    fractions: dict[str, object] = {}
    with np.errstate(all="ignore"):
        for f in sorted({plan[1][k] for k in keys}):
            fractions.update(FAMILIES[f](named))
    return {k: np.asarray(fractions[k]) * 100.0 for k in keys}


class FloatCounts:
    """Resample matrices as float64, converted once (``resampled_sums`` converts the uint16
    ones block by block, which is most of a result's time otherwise). 8 bytes per target and
    resample, eight times the uint16 ones: kept for one refresh, not by the process."""

    def __init__(self) -> None:
        self._matrices: dict[tuple[int, int, int, int], np.ndarray] = {}

    def of(self, n: int, bootstrap: int, seed: int, stream: int) -> np.ndarray:
        key = (n, bootstrap, seed, stream)
        if key not in self._matrices:
            self._matrices[key] = np.asarray(resample_counts(n, bootstrap, seed, stream),
                                             dtype=np.float64)
        return self._matrices[key]


def store_for_result(session: Session, result_id: int, stats: TargetStats,
                     keys: Iterable[str], positions: Iterable[str | None]) -> None:
    """Write a result's cached values of ``keys`` for each POS (the caller commits)."""
    keys = list(keys)
    for pos in positions:
        values = system_values(stats, pos)
        if not values or next(iter(values.values())).size == 0:
            continue
        block = np.vstack([values[k] for k in keys]).astype(np.float64)
        session.add(ResultResamples(result_id=result_id, pos=pos_name(pos), keys=",".join(keys),
                                    values=block.tobytes()))


#: Decompressed target statistics a ranker keeps between refreshes (:func:`keep_statistics`),
#: by a digest of their stored bytes (a result's bytes never change; the digest also tells
#: apart two databases' results of one id). A refresh after a burst reads nearly every
#: result's statistics, and decompressing them again each time would be most of its work.
#: At most this many bytes of them, the least recently read dropped first.
KEPT_STATS_BYTES = 512 * 2**20
_kept_stats: OrderedDict[bytes, tuple[TargetStats, int]] = OrderedDict()
_kept_size = [0]
_kept_lock = threading.Lock()
_keeping = [False]


def keep_statistics(enabled: bool = True) -> None:
    """Keep decompressed statistics between refreshes (a ranker, at start); off also forgets
    them."""
    _keeping[0] = enabled
    if not enabled:
        forget_statistics()


def forget_statistics() -> None:
    with _kept_lock:
        _kept_stats.clear()
        _kept_size[0] = 0


def load_statistics(blob: bytes) -> TargetStats:
    """``TargetStats.from_bytes(blob)``, from what this process keeps when it can."""
    if not _keeping[0]:
        return TargetStats.from_bytes(blob)
    key = hashlib.blake2b(blob, digest_size=16).digest()
    with _kept_lock:
        found = _kept_stats.get(key)
        if found is not None:
            _kept_stats.move_to_end(key)
            return found[0]
    stats = TargetStats.from_bytes(blob)
    size = stats.rows.nbytes + 8 * len(stats.pos)
    with _kept_lock:
        if key not in _kept_stats:
            _kept_stats[key] = (stats, size)
            _kept_size[0] += size
        while _kept_size[0] > KEPT_STATS_BYTES and _kept_stats:
            _kept_size[0] -= _kept_stats.popitem(last=False)[1][1]
    return stats


class Resamples:
    """Values of results on one POS at a time, read from the cache or computed, memoized.

    ``cached_keys`` are the board's headline metrics (the ones kept per result)."""

    def __init__(self, session: Session, cached_keys: Iterable[str],
                 kept_keys: Iterable[str], *, keep_stats: bool = True) -> None:
        """``keep_stats``: keep the decompressed statistics of the results computed (an
        incremental refresh computes a few, on several POS; a full one computes them all,
        one POS at a time, and must not hold them all: a board's worth would not fit)."""
        self.session = session
        self.keep_stats = keep_stats
        # Rank states of several metrics are computed in threads; the session is not
        # thread-safe, so every read goes through this lock (the numpy work does not).
        self._lock = threading.RLock()
        self.cached_keys = list(cached_keys)
        self.kept_keys = set(kept_keys) | set(self.cached_keys)
        self._values: dict[tuple[int, str], dict[str, np.ndarray]] = {}
        self._stats: dict[int, TargetStats] = {}
        self._counts = FloatCounts()
        self.reads = 0
        self.computed = 0

    def readable(self, rids: list[int]) -> set[int]:
        """The results among ``rids`` whose values can be had (cached, or target statistics
        that load): an unreadable blob leaves its row on the ranking without intervals."""
        found: set[int] = set()
        for start in range(0, len(rids), BATCH):
            chunk = rids[start:start + BATCH]
            found |= set(self.session.exec(
                select(ResultResamples.result_id).where(
                    col(ResultResamples.result_id).in_(chunk),
                    ResultResamples.pos == "all")).all())
            for rid, blob in self.session.exec(select(Result.id, Result.target_stats)
                                               .where(col(Result.id).in_(
                                                   [r for r in chunk if r not in found]))):
                try:
                    load_statistics(blob)
                    found.add(rid)
                except Exception:
                    log.exception("unreadable target statistics for result %s", rid)
        return found

    def pos_targets(self, rids: list[int]) -> dict[str, int]:
        """Scored targets per POS (the matrix's column heads) from the first of ``rids``:
        every result of a board has one row per scored target of its split."""
        for rid in rids:
            blob = self.session.exec(select(Result.target_stats)
                                     .where(Result.id == rid)).first()
            names, counts = np.unique(load_statistics(blob).pos, return_counts=True)
            return {str(n): int(c) for n, c in zip(names, counts, strict=True)}
        return {}

    def forget(self) -> None:
        """Drop memoized values and statistics (between POS blocks of a full refresh: bounded
        memory; an incremental one keeps its few)."""
        self._values.clear()
        self._stats.clear()

    def prefetch(self, needs: dict[int, set[str]], pos: str | None) -> None:
        """The metrics ``needs`` names per result, on ``pos``, read or computed now in a few
        queries: cached ones read; of the others only those (:func:`some_values`) unless they
        are many, then every kept metric."""
        with self._lock:
            name = pos_name(pos)
            cached = set(self.cached_keys)
            self._read_cache([rid for rid, keys in needs.items() if keys & cached and not
                              cached <= set(self._values.get((rid, name), {}))], name)
            wanted = {}
            for rid, keys in needs.items():
                have = self._values.get((rid, name), {})
                missing = {k for k in keys if k not in have}
                if missing:
                    wanted[rid] = missing
            if wanted:
                self._compute(list(wanted), pos, wanted)

    def rows(self, rids: list[int], pos: str | None, key: str) -> np.ndarray:
        """(len(rids), B) values of ``key``, in the order of ``rids``."""
        with self._lock:
            return self._rows(rids, pos, key)

    def _rows(self, rids: list[int], pos: str | None, key: str) -> np.ndarray:
        name = pos_name(pos)
        if key in self.cached_keys:
            self._read_cache([r for r in rids if key not in self._values.get((r, name), {})],
                             name)
        missing = [r for r in rids if key not in self._values.get((r, name), {})]
        if missing:
            self._compute(missing, pos, {r: {key} for r in missing})
        return np.vstack([self._values[(r, name)][key] for r in rids]) if rids else \
            np.zeros((0, 0))

    def _read_cache(self, rids: list[int], name: str) -> None:
        for start in range(0, len(rids), BATCH):
            chunk = rids[start:start + BATCH]
            for rid, keys, blob in self.session.exec(
                    select(ResultResamples.result_id, ResultResamples.keys,
                           ResultResamples.values)
                    .where(col(ResultResamples.result_id).in_(chunk),
                           ResultResamples.pos == name)).all():
                keys = keys.split(",")
                if not set(self.cached_keys) <= set(keys):
                    continue  # written for other headlines: computed again below
                block = np.frombuffer(blob, dtype=np.float64).reshape(len(keys), -1)
                self._values.setdefault((rid, name), {}).update(zip(keys, block, strict=True))
                self.reads += 1

    def _compute(self, rids: list[int], pos: str | None,
                 wanted: dict[int, set[str]] | None = None) -> None:
        """From the target statistics; a result without cached values gets them stored.
        ``wanted``: the metrics needed per result; when none is cached, only those are
        computed (:func:`some_values`) if they are a few columns, else every kept one."""
        name = pos_name(pos)
        cached = set(self.cached_keys)
        for start in range(0, len(rids), BATCH):
            chunk = rids[start:start + BATCH]
            unread = [r for r in chunk if r not in self._stats]
            if unread:
                for rid, blob in self.session.exec(select(Result.id, Result.target_stats)
                                                   .where(col(Result.id).in_(unread))).all():
                    self._stats[rid] = load_statistics(blob)
            have = set(self.session.exec(select(ResultResamples.result_id)
                                         .where(col(ResultResamples.result_id).in_(chunk),
                                                ResultResamples.pos == name)).all())
            for rid in chunk:
                stats = self._stats[rid] if self.keep_stats else self._stats.pop(rid)
                keys = sorted(wanted[rid]) if wanted is not None else None
                # A result without cached values is computed whole: they are stored below.
                if (keys and not cached & set(keys) and by_subset(keys)
                        and (rid in have or not cached)):
                    self._values.setdefault((rid, name), {}).update(
                        some_values(stats, pos, keys, self._counts))
                    self.computed += 1
                    continue
                values = system_values(stats, pos, self._counts)
                self._values.setdefault((rid, name), {}).update(
                    (k, v) for k, v in values.items() if k in self.kept_keys)
                self.computed += 1
                if rid not in have and self.cached_keys:
                    block = np.vstack([values[k] for k in self.cached_keys])
                    self.session.add(ResultResamples(result_id=rid, pos=name,
                                                     keys=",".join(self.cached_keys),
                                                     values=block.tobytes()))
            self.session.flush()
