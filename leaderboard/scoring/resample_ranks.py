"""Per-resample values and ranks as the ranking compares them (rank intervals:
:mod:`leaderboard.scoring.rank_state`)."""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.bootstrap import INTERVAL_PERCENTILES


def ranking_values(values: np.ndarray) -> np.ndarray:
    """Resampled values as the ranking compares them: a missing value (NaN) ranks last.
    Without one, ``values`` itself (every caller only reads it: no copy per comparison)."""
    values = np.asarray(values, dtype=float)
    missing = np.isnan(values)
    return np.where(missing, -np.inf, values) if missing.any() else values


def residual_bounds(values: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of each row of ``values - shift``; a row with a non-finite value gets
    (-inf, inf): it is always compared resample by resample."""
    residual = values - shift
    finite = np.isfinite(residual).all(axis=-1)
    low = np.where(finite, residual.min(axis=-1, initial=np.inf), -np.inf)
    high = np.where(finite, residual.max(axis=-1, initial=-np.inf), np.inf)
    return low, high


def rank_bounds(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% interval of each row of per-resample ranks (lower and higher order statistics)."""
    lo = np.percentile(ranks, INTERVAL_PERCENTILES[0], axis=1, method="lower")
    hi = np.percentile(ranks, INTERVAL_PERCENTILES[1], axis=1, method="higher")
    return lo.astype(int), hi.astype(int)


def resample_ranks(values: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """Per-resample rank (1 + rows strictly higher) of the ``rows`` (all by default) of
    ``values`` among all of them: (len(rows), B)."""
    m, b = values.shape
    if rows is None and not np.isnan(values).any():
        return _all_ranks(values)
    own = values if rows is None else values[rows]
    # Resamples as contiguous rows: searchsorted on a strided column would copy it.
    ordered, queries = np.sort(values.T, axis=1), np.ascontiguousarray(own.T)
    ranks = np.empty(queries.shape, dtype=np.int32)
    for j in range(b):
        ranks[j] = 1 + (m - np.searchsorted(ordered[j], queries[j], side="right"))
    return ranks.T


def _all_ranks(values: np.ndarray) -> np.ndarray:
    """:func:`resample_ranks` of every row, from one sort of all resamples at once: each
    value's rank is 1 + the values after the end of its run of equal ones in its sorted
    resample (faster than a search per resample on a large board)."""
    m, b = values.shape
    by_resample = np.ascontiguousarray(values.T)
    order = np.argsort(by_resample, axis=1)
    ordered = np.take_along_axis(by_resample, order, axis=1)
    del by_resample
    run_ends = np.full((b, m), m + 1, dtype=np.int32)
    last = np.ones((b, m), dtype=bool)
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=last[:, :-1])
    del ordered
    np.copyto(run_ends, np.arange(1, m + 1, dtype=np.int32), where=last)
    run_ends = np.minimum.accumulate(run_ends[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((b, m), dtype=np.int32)
    np.put_along_axis(ranks, order, (m + 1 - run_ends).astype(np.int32), axis=1)
    return ranks.T


def rank_dtype(m: int) -> type:
    """Per-resample ranks in two bytes while they fit (half the memory at 10,000 systems)."""
    return np.int16 if m < 32000 else np.int32
