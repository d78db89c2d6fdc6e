"""Rank intervals and neighbour ties from shared bootstrap resamples (conservative ranks:
:func:`leaderboard.scoring.significance.conservative_ranks`).

Pure numpy. Equivalent to :func:`leaderboard.scoring.rank_intervals` and
:func:`leaderboard.scoring.compare`, but in O(m·B·log m) memory-light form so a snapshot of
1,000 systems stays fast (the pairwise (m, m, B) form needs gigabytes there).
"""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.bootstrap import INTERVAL_PERCENTILES
from leaderboard.scoring.significance import p_beats_rows, p_value


def point_ranks(points: np.ndarray) -> np.ndarray:
    """1 + the number of systems with a strictly higher point estimate (ties share)."""
    ordered = np.sort(points)
    return 1 + (len(points) - np.searchsorted(ordered, points, side="right"))


def rank_interval_bounds(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """95% rank interval per system from ``values`` of shape (m, B), 1 = best."""
    m, b = values.shape
    ranks = np.empty((m, b), dtype=np.int32)
    for j in range(b):
        column = values[:, j]
        ordered = np.sort(column)
        ranks[:, j] = 1 + (m - np.searchsorted(ordered, column, side="right"))
    lo = np.percentile(ranks, INTERVAL_PERCENTILES[0], axis=1, method="lower")
    hi = np.percentile(ranks, INTERVAL_PERCENTILES[1], axis=1, method="higher")
    return lo.astype(int), hi.astype(int)


def order_by_points(points: np.ndarray, tiebreak: list | np.ndarray) -> list[int]:
    """Indices best first: descending point estimate, then ``tiebreak`` ascending (values,
    or their ranks as an integer array: :func:`tiebreak_ranks`)."""
    if not isinstance(tiebreak, np.ndarray):
        tiebreak = tiebreak_ranks(tiebreak)
    return np.lexsort((tiebreak, -np.asarray(points, dtype=float))).tolist()


def tiebreak_ranks(tiebreak: list) -> np.ndarray:
    """Position of each value of ``tiebreak`` in ascending order (ties keep list order)."""
    ranks = np.empty(len(tiebreak), dtype=np.int64)
    ranks[sorted(range(len(tiebreak)), key=tiebreak.__getitem__)] = np.arange(len(tiebreak))
    return ranks


def neighbour_p_values(values: np.ndarray, order: list[int],
                       local: dict[int, int]) -> list[float | None]:
    """For each system, the two-sided p-value of the difference with the next-better system
    (:mod:`leaderboard.scoring.significance`: ``2 · min(P, 1 − P)``, P = P(it beats this one)).

    ``order`` lists all systems best first; ``local`` maps a system to its row of ``values``
    (systems missing from it have no comparable resamples). The best system, and any whose
    neighbour is not comparable, gets None. A tie within a resample counts half, as in
    :func:`leaderboard.scoring.compare`.
    """
    p: list[float | None] = [None] * len(order)
    pairs = [(above, below) for above, below in zip(order, order[1:], strict=False)
             if above in local and below in local]
    if not pairs:
        return p
    a = values[[local[above] for above, _ in pairs]]
    b = values[[local[below] for _, below in pairs]]
    beats = p_beats_rows(a, b)
    for (_, below), value in zip(pairs, beats, strict=True):
        # Six decimals: stored p must keep its side of the threshold (B is at most 10^5).
        p[below] = round(float(p_value(float(value))), 6)
    return p
