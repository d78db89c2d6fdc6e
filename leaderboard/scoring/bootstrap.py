"""Paired bootstrap over targets (spec section 6).

Resamples are drawn once per split from (number of targets, B, seed) with numpy's
``default_rng``, so every submission on a split sees the same resamples; per part of speech
they are drawn the same way within that POS, from a stream of their own. A resample is kept
as a (B, n) matrix of row multiplicities, so all metrics on all resamples are one product
``counts @ rows`` away.
"""

from __future__ import annotations

import os
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from leaderboard.scoring.swords.stats import TargetStats

INTERVAL_PERCENTILES = (2.5, 97.5)
_POS_STREAMS = {None: 0, "NOUN": 1, "VERB": 2, "ADJ": 3, "ADV": 4}
_DRAW_ROWS = 64
#: Where drawn resample matrices are kept between processes as ``.npy`` (None: not kept).
#: The one-off ``leaderboard score`` sets it (a worker keeps its draws in memory); a file is
#: named by all that draws it, numpy's version included.
DISK_CACHE: Path | None = None


def pos_stream(pos: str | None) -> int:
    """Stable random-stream number of a POS (0 for all targets)."""
    if pos in _POS_STREAMS:
        return _POS_STREAMS[pos]
    return 5 + sum(pos.encode())  # an unexpected POS still gets a fixed stream


@lru_cache(maxsize=32)
def resample_counts(n: int, bootstrap: int, seed: int, stream: int = 0) -> np.ndarray:
    """(B, n) matrix: how often each of n targets is drawn in each of B resamples.

    A count never exceeds n, so up to 65,535 targets it is kept as uint16 (a quarter of
    float64's memory in a long-lived worker); ``counts @ rows`` computes in float64 exactly.
    """
    if n == 0 or bootstrap <= 0:
        return np.zeros((max(bootstrap, 0), n))
    path = None if DISK_CACHE is None else DISK_CACHE / (
        f"resamples-{n}-{bootstrap}-{seed}-{stream}-numpy{np.__version__}.npy")
    if path is not None and path.is_file():
        try:
            counts = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            counts = None  # a truncated or foreign file: draw again
        if counts is not None and counts.shape == (bootstrap, n):
            counts.flags.writeable = False
            return counts
    counts = _draw(n, bootstrap, seed, stream)
    if path is not None:
        _save(path, counts)
    counts.flags.writeable = False  # shared between callers through the cache
    return counts


def _save(path: Path, counts: np.ndarray) -> None:
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".resamples-", suffix=".npy", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, counts, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs the next process a draw
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _draw(n: int, bootstrap: int, seed: int, stream: int) -> np.ndarray:
    rng = np.random.default_rng([seed, stream])
    counts = np.empty((bootstrap, n),
                      dtype=np.uint16 if n <= np.iinfo(np.uint16).max else np.float64)
    # Drawn in blocks of rows (an even number, so numpy's buffered 32-bit draws stay aligned:
    # the same indices as one (B, n) draw) to keep the transient int64 arrays small.
    for start in range(0, bootstrap, _DRAW_ROWS):
        rows = min(_DRAW_ROWS, bootstrap - start)
        idx = rng.integers(0, n, size=(rows, n))
        flat = (idx + (np.arange(rows) * n)[:, None]).ravel()
        counts[start:start + rows] = np.bincount(flat, minlength=rows * n).reshape(rows, n)
    return counts


def percentile_interval(values: np.ndarray) -> list[float]:
    """The 95% percentile interval [2.5th, 97.5th] of resampled metric values."""
    lo, hi = np.percentile(values, INTERVAL_PERCENTILES)
    return [float(lo), float(hi)]


def percentile_intervals(resampled: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """:func:`percentile_interval` of every metric at once (one sort of a (k, B) matrix)."""
    if not resampled:
        return {}
    keys = list(resampled)
    bounds = linear_percentiles(np.stack([resampled[k] for k in keys]))
    return {k: [float(bounds[0, i]), float(bounds[1, i])] for i, k in enumerate(keys)}


def linear_percentiles(values: np.ndarray) -> np.ndarray:
    """``np.percentile(values, INTERVAL_PERCENTILES, axis=1)`` of a (k, B) matrix, computed
    with the operations numpy's default ("linear") method uses, in its order: the virtual
    index ``(B - 1) * q``, its floor and the next index (both -1 at or past the last value),
    ``gamma`` the difference, numpy's ``_lerp`` (``a + (b - a) * g``, or ``b - (b - a) *
    (1 - g)`` where ``g >= 0.5``), NaN for a row holding one. np.percentile's first call
    imports ``numpy.ma`` (through ``np.unique``), which a one-off ``leaderboard score``
    should not pay for.
    ``tests/scoring/test_bootstrap.py`` holds the two equal bit for bit."""
    n = values.shape[1]
    virtual = (n - 1) * np.true_divide(np.asarray(INTERVAL_PERCENTILES, dtype=float), 100)
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n - 1
    previous[above], following[above] = -1, -1
    below = virtual < 0
    previous[below], following[below] = 0, 0
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    ordered = np.sort(values, axis=1)
    a, b = ordered[:, previous].T, ordered[:, following].T
    gamma = np.asarray(virtual - previous, dtype=virtual.dtype).reshape(-1, 1)
    diff = b - a
    out = np.add(a, diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    out[:, np.isnan(ordered[:, -1])] = np.nan
    return out


def _shared_counts(stats: list[TargetStats], pos: str | None) -> np.ndarray:
    first = stats[0]
    for other in stats[1:]:
        if (other.split_checksum, other.seed, other.bootstrap, other.rows.shape) != (
            first.split_checksum, first.seed, first.bootstrap, first.rows.shape
        ):
            raise ValueError("statistics come from different splits or resampling settings")
    n = first.rows.shape[0] if pos is None else int(np.sum(first.pos == pos))
    return resample_counts(n, first.bootstrap, first.seed, pos_stream(pos))


def shared_counts(stats: list[TargetStats], pos: str | None = None) -> np.ndarray:
    """The (B, n) resample matrix shared by ``stats``; ValueError when they were scored on
    different splits or resampling settings."""
    return _shared_counts(stats, pos)


def compare(stats_a: TargetStats, stats_b: TargetStats, metric: str, *,
            pos: str | None = None) -> float:
    """Paired-bootstrap probability that A beats B on ``metric``.

    The fraction of shared resamples in which A's value is higher than B's; a tie counts
    half, so compare(a, b) + compare(b, a) == 1.
    """
    counts = _shared_counts([stats_a, stats_b], pos)
    if counts.shape[0] == 0:
        raise ValueError("no resamples: bootstrap is 0")
    a = stats_a.resampled(counts, pos)[metric]
    b = stats_b.resampled(counts, pos)[metric]
    return float(np.mean(a > b) + 0.5 * np.mean(a == b))


def rank_intervals(stats: list[TargetStats], metric: str, *,
                   pos: str | None = None) -> list[tuple[int, int]]:
    """95% rank interval of each submission across the shared resamples (1 = best).

    In each resample a submission's rank is 1 + the number of submissions strictly better
    (ties share the better rank); the interval runs from the 2.5th to the 97.5th percentile
    of those ranks, taking the nearest observed ranks outward.
    """
    if not stats:
        return []
    counts = _shared_counts(stats, pos)
    if counts.shape[0] == 0:
        raise ValueError("no resamples: bootstrap is 0")
    values = np.stack([s.resampled(counts, pos)[metric] for s in stats])  # (m, B)
    better = (values[None, :, :] > values[:, None, :]).sum(axis=1)  # (m, B)
    ranks = 1 + better
    lo = np.percentile(ranks, INTERVAL_PERCENTILES[0], axis=1, method="lower")
    hi = np.percentile(ranks, INTERVAL_PERCENTILES[1], axis=1, method="higher")
    return [(int(a), int(b)) for a, b in zip(lo, hi, strict=True)]
