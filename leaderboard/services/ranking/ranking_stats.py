"""Point ranks and best-first orders of a snapshot's systems (rank intervals and
conservative ranks: :mod:`leaderboard.scoring.rank_state`)."""

from __future__ import annotations

import numpy as np


def point_ranks(points: np.ndarray) -> np.ndarray:
    """1 + the number of systems with a strictly higher point estimate (ties share)."""
    ordered = np.sort(points)
    return 1 + (len(points) - np.searchsorted(ordered, points, side="right"))


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
