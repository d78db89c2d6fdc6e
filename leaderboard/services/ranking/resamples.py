"""Results' metric values on their split's shared bootstrap resamples, for the ranking.

Every value the ranking compares comes from :func:`system_values` (one result at a time, so
a value does not depend on which other results were computed with it). The board's headline
metrics are also kept per result and POS in :class:`~leaderboard.models.ResultResamples`,
written when the result is scored, so an incremental refresh reads them instead of
recomputing them from the target statistics.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

import numpy as np
from sqlmodel import Session, col, select

from leaderboard.models import Result, ResultResamples
from leaderboard.scoring import TargetStats, resample_counts
from leaderboard.scoring.bootstrap import pos_stream
from leaderboard.scoring.stats import metrics_from_sums, resampled_sums

log = logging.getLogger(__name__)
#: Rows per query: keeps IN lists and the blobs of one round trip small.
BATCH = 400


def pos_name(pos: str | None) -> str:
    return pos or "all"


def system_values(stats: TargetStats, pos: str | None) -> dict[str, np.ndarray]:
    """Every metric of one result on each of its split's resamples of ``pos`` (None: all)."""
    rows = stats.rows if pos is None else stats.rows[stats.pos == pos]
    counts = resample_counts(rows.shape[0], stats.bootstrap, stats.seed, pos_stream(pos))
    return metrics_from_sums(resampled_sums(counts, rows))


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


class Resamples:
    """Values of results on one POS at a time, read from the cache or computed, memoized.

    ``cached_keys`` are the board's headline metrics (the ones kept per result)."""

    def __init__(self, session: Session, cached_keys: Iterable[str],
                 kept_keys: Iterable[str], *, keep_stats: bool = True) -> None:
        """``keep_stats``: keep the decompressed statistics of the results computed (an
        incremental refresh computes a few, on several POS; a full one computes them all,
        one POS at a time, and must not hold them all: 0.4 MB each)."""
        self.session = session
        self.keep_stats = keep_stats
        # Rank states of several metrics are computed in threads; the session is not
        # thread-safe, so every read goes through this lock (the numpy work does not).
        self._lock = threading.RLock()
        self.cached_keys = list(cached_keys)
        self.kept_keys = set(kept_keys) | set(self.cached_keys)
        self._values: dict[tuple[int, str], dict[str, np.ndarray]] = {}
        self._stats: dict[int, TargetStats] = {}
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
                    TargetStats.from_bytes(blob)
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
            names, counts = np.unique(TargetStats.from_bytes(blob).pos, return_counts=True)
            return {str(n): int(c) for n, c in zip(names, counts, strict=True)}
        return {}

    def forget(self) -> None:
        """Drop memoized values and statistics (between POS blocks of a full refresh: bounded
        memory; an incremental one keeps its few)."""
        self._values.clear()
        self._stats.clear()

    def prefetch(self, rids: list[int], pos: str | None) -> None:
        """Every kept metric of ``rids`` on ``pos``, computed now in a few queries."""
        with self._lock:
            self._prefetch(rids, pos)

    def _prefetch(self, rids: list[int], pos: str | None) -> None:
        name = pos_name(pos)
        missing = [r for r in rids if not self.kept_keys <= set(self._values.get((r, name), {}))]
        if missing:
            self._compute(missing, pos)

    def rows(self, rids: list[int], pos: str | None, key: str) -> np.ndarray:
        """(len(rids), B) values of ``key``, in the order of ``rids``."""
        with self._lock:
            return self._rows(rids, pos, key)

    def _rows(self, rids: list[int], pos: str | None, key: str) -> np.ndarray:
        name = pos_name(pos)
        if key in self.cached_keys:
            self._read_cache([r for r in rids if (r, name) not in self._values], name)
        missing = [r for r in rids if key not in self._values.get((r, name), {})]
        if missing:
            self._compute(missing, pos)
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
                self._values[(rid, name)] = dict(zip(keys, block, strict=True))
                self.reads += 1

    def _compute(self, rids: list[int], pos: str | None) -> None:
        """From the target statistics; a result without cached values gets them stored."""
        name = pos_name(pos)
        for start in range(0, len(rids), BATCH):
            chunk = rids[start:start + BATCH]
            unread = [r for r in chunk if r not in self._stats]
            if unread:
                for rid, blob in self.session.exec(select(Result.id, Result.target_stats)
                                                   .where(col(Result.id).in_(unread))).all():
                    self._stats[rid] = TargetStats.from_bytes(blob)
            have = set(self.session.exec(select(ResultResamples.result_id)
                                         .where(col(ResultResamples.result_id).in_(chunk),
                                                ResultResamples.pos == name)).all())
            for rid in chunk:
                stats = self._stats[rid] if self.keep_stats else self._stats.pop(rid)
                values = system_values(stats, pos)
                self._values[(rid, name)] = {k: v for k, v in values.items()
                                             if k in self.kept_keys}
                self.computed += 1
                if rid not in have and self.cached_keys:
                    block = np.vstack([values[k] for k in self.cached_keys])
                    self.session.add(ResultResamples(result_id=rid, pos=name,
                                                     keys=",".join(self.cached_keys),
                                                     values=block.tobytes()))
            self.session.flush()
