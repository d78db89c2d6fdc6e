"""Rank intervals, conservative ranks and neighbour ties from shared bootstrap resamples.

Pure numpy. Equivalent to :func:`leaderboard.scoring.rank_intervals` and
:func:`leaderboard.scoring.compare`, but in O(m·B·log m) memory-light form so a snapshot of
1,000 systems stays fast (the pairwise (m, m, B) form needs gigabytes there).
"""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.bootstrap import INTERVAL_PERCENTILES


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


def conservative_ranks(values: np.ndarray) -> np.ndarray:
    """1 + the number of systems whose 95% interval lies entirely above this one's.

    As in Chatbot Arena: system j counts when its lower bound exceeds this upper bound.
    """
    lo, hi = np.percentile(values, INTERVAL_PERCENTILES, axis=1)
    ordered = np.sort(lo)
    return 1 + (len(lo) - np.searchsorted(ordered, hi, side="right"))


def order_by_points(points: np.ndarray, tiebreak: list) -> list[int]:
    """Indices best first: descending point estimate, then ``tiebreak`` ascending."""
    return sorted(range(len(points)), key=lambda i: (-points[i], tiebreak[i]))


def neighbour_p_values(values: np.ndarray, order: list[int],
                       local: dict[int, int]) -> list[float | None]:
    """For each system, p = 1 - P(next-better system beats it) over the paired resamples.

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
    beats = np.mean(a > b, axis=1) + 0.5 * np.mean(a == b, axis=1)
    for (_, below), value in zip(pairs, beats, strict=True):
        p[below] = round(1.0 - float(value), 4)
    return p
