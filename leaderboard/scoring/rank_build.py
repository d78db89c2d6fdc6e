"""A whole board's :class:`~leaderboard.scoring.rank_state.RankState` at once, and the
conservative ranks it gives; the state then follows the board one change at a time."""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.rank_state import RankState
from leaderboard.scoring.resample_ranks import (
    rank_bounds,
    rank_dtype,
    ranking_values,
    resample_ranks,
    residual_bounds,
)
from leaderboard.scoring.significance import beat_q, beats_everywhere, kept_nears, tracks_nears


def build(values: np.ndarray, points: np.ndarray, ids: list[int] | None = None) -> RankState:
    """The state of a whole board at once: ``values`` (m, B) on the shared resamples."""
    values = ranking_values(values)
    m, b = values.shape
    finite = np.isfinite(values).all(axis=0)
    shift = np.where(finite, values.mean(axis=0) if m else 0.0, 0.0) if m else np.zeros(b)
    low, high = residual_bounds(values, shift)
    zeros = np.zeros(m, dtype=int)
    nears: list[np.ndarray | None] = [np.zeros(0, dtype=int) for _ in range(m)]
    for i in range(m):
        family = np.flatnonzero(points > points[i])
        if family.size == 0:
            continue
        sure = low[family] > high[i]
        zeros[i] = int(sure.sum())
        unsure = family[~sure]
        zeros[i] += beats_everywhere(values, unsure, values[i])
        if not tracks_nears(np.array(family.size), np.array(zeros[i]), b):
            nears[i] = None
        elif unsure.size:  # p-values above 0 matter only to the few systems that keep them
            nears[i] = kept_nears(beat_q(values[unsure], values[i]), b)
    ranks = resample_ranks(values).astype(rank_dtype(m))
    rank_lo, rank_hi = rank_bounds(ranks) if m else (np.zeros(0, int),) * 2
    return RankState(b=b, shift=shift, ids=list(ids if ids is not None else range(m)),
                     points=np.asarray(points, dtype=float), low=low, high=high, zeros=zeros,
                     nears=nears, rank_lo=rank_lo, rank_hi=rank_hi, ranks=ranks,
                     known=np.ones(m, dtype=bool))


def conservative_ranks(values: np.ndarray, points: np.ndarray) -> np.ndarray:
    """1 + the number of systems significantly better than each one, Holm-adjusted.

    ``values`` is (m, B) on the shared resamples, ``points`` the point estimates. For system
    i the family is every system with a higher point estimate; system j counts when it beats
    i in more than half of the resamples and survives Holm's procedure over that family.
    """
    return build(values, points).conservative()
