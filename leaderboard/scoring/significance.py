"""The one significance rule of the leaderboard (paired bootstrap on the shared resamples).

For two systems A and B scored on the same bootstrap resamples of targets:

- ``P`` = the fraction of resamples in which A scores higher than B (a tie counts half);
- the two-sided p-value is ``2 · min(P, 1 − P)`` (capped at 1);
- the difference is significant when ``p < ALPHA`` (0.05);
- "A is significantly better than B" (the Ladder's release) when ``1 − P < ALPHA``.

Every place that says "tied", "different" or "significantly better" (tie marks, the compare
page and API, exports, the pairwise view, conservative ranks in
:mod:`leaderboard.scoring.rank_state`) goes through this module, so they cannot disagree.
Pure numpy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

ALPHA = 0.05


def p_beats(a: np.ndarray, b: np.ndarray) -> float:
    """P(A beats B): fraction of paired resamples where ``a > b``, ties counting half."""
    return float(np.mean(a > b) + 0.5 * np.mean(a == b))


def p_beats_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise :func:`p_beats` of two (k, B) arrays (equal to it value for value)."""
    n = a.shape[-1] if a.ndim else 1
    wins = np.count_nonzero(a > b, axis=-1)
    ties = np.count_nonzero(a == b, axis=-1)
    return (wins + 0.5 * ties) / n


def p_value(p_beat: float | None) -> float | None:
    """Two-sided p-value ``2 · min(P, 1 − P)`` of a beat probability (None stays None)."""
    if p_beat is None:
        return None
    return min(1.0, 2.0 * min(p_beat, 1.0 - p_beat))


def p_one_sided(p_beat: float) -> float:
    """One-sided p-value of "A is better than B": ``1 − P``, the fraction of resamples in
    which A does not beat B (ties half). The Ladder releases A when it is below ALPHA."""
    return 1.0 - p_beat


def significant(p: float | None) -> bool:
    """Whether a two-sided p-value is below :data:`ALPHA` (None: not comparable, False)."""
    return p is not None and p < ALPHA


def format_p(p: float | None) -> str:
    """p with three decimals, rounded so the printed value never crosses the threshold.

    Truncating (not rounding) keeps the sign of ``p − ALPHA``: 0.0495 prints 0.049
    (significant) and 0.0504 prints 0.050 (not significant). Below 0.001: "< 0.001".
    """
    if p is None:
        return "–"
    if p < 0.001:
        return "< 0.001"
    shown = math.floor(p * 1000 + 1e-9) / 1000
    if (shown < ALPHA) != (p < ALPHA):  # float noise at the threshold itself
        shown = math.floor(p * 1000) / 1000
    return f"{shown:.3f}"


def p_phrase(p: float | None) -> str:
    """``p = 0.023`` or ``p < 0.001``: :func:`format_p` in a sentence."""
    shown = format_p(p)
    return f"p {shown}" if shown.startswith("<") else f"p = {shown}"


def holm_rejections(p_values: Sequence[float]) -> int:
    """How many hypotheses Holm's step-down procedure rejects at :data:`ALPHA`.

    Sorted ascending, the k-th smallest (k from 0) is rejected while
    ``p < ALPHA / (n − k)``; the first failure stops the procedure.
    """
    ordered = sorted(p_values)
    n = len(ordered)
    for k, p in enumerate(ordered):
        if not p < ALPHA / (n - k):
            return k
    return n


def diff_interval(a: np.ndarray, b: np.ndarray) -> list[float]:
    """95% percentile interval of the paired difference ``a − b`` over the resamples."""
    lo, hi = np.percentile(a - b, (2.5, 97.5))
    return [float(lo), float(hi)]


def beat_q(rows: np.ndarray, own: np.ndarray) -> np.ndarray:
    """For each row j of ``rows`` against ``own`` (paired resamples): ``B · p`` as an integer
    when j beats ``own`` in more than half of the resamples, else -1.

    With P = (wins + ties / 2) / B, the two-sided p-value 2 · min(P, 1 − P) of a j with
    P > 1/2 is (B − wins + losses) / B. Keeping the integer numerator lets Holm's test and
    the incremental ranking state agree exactly (no float noise at a threshold).
    """
    b = own.shape[-1]
    wins, losses = _trues(rows > own), _trues(rows < own)
    return np.where(wins > losses, b - wins + losses, -1)


def _trues(mask: np.ndarray) -> np.ndarray:
    """How many of ``mask`` are true along its last axis, counted as packed bits: numpy's
    ``count_nonzero`` with an axis sums an integer copy, which made these counts half of a
    full refresh's CPU (1.6 times slower at B = 1000)."""
    return np.bitwise_count(np.packbits(mask, axis=-1)).sum(axis=-1, dtype=np.intp)


#: Resample counts after which :func:`beats_everywhere` drops the rows that already lost once.
SCREEN_STOPS = (16, 64, 256)


def beats_everywhere(values: np.ndarray, rows: np.ndarray, own: np.ndarray) -> int:
    """How many of ``values``' ``rows`` beat ``own`` in every resample (:func:`beat_q` 0).

    The rows are checked on a few resamples first, then on more: a row that loses once is
    dropped, and most rows that are not at p = 0 lose early. Comparing every row on every
    resample copied and compared four times as much (a full refresh's largest cost)."""
    b = values.shape[1]
    if b == 0:
        return 0
    start = 0
    for stop in (*(s for s in SCREEN_STOPS if s < b), b):
        if rows.size == 0:
            break
        rows = rows[(values[rows, start:stop] > own[start:stop]).all(axis=1)]
        start = stop
    return int(rows.size)


def holm_count(family: int, zeros: int, nears: Sequence[int] | np.ndarray, b: int) -> int:
    """:func:`holm_rejections` of a family of ``family`` p-values: ``zeros`` of them 0, the
    sorted ``nears`` equal to q / ``b`` (each below :data:`ALPHA`), the rest at least ALPHA
    (never rejected: every Holm threshold is at most ALPHA)."""
    passed = zeros
    for k, q in enumerate(nears):
        if not q / b < ALPHA / (family - zeros - k):
            break
        passed += 1
    return passed


def tracks_nears(family: np.ndarray, zeros: np.ndarray, b: int) -> np.ndarray:
    """Whether a system with ``family`` systems above it, ``zeros`` of them at p = 0, can
    reject a p-value above 0 (then it keeps its nears). Two more than the bound, so that
    float rounding at the threshold itself never matters."""
    return family - zeros < ALPHA * b + 2


def kept_nears(q: np.ndarray, b: int) -> np.ndarray:
    """The sorted q of a family's p-values that are above 0 and below ALPHA."""
    return np.sort(q[(q > 0) & (q / b < ALPHA)])


def compact_letters(significant_pairs: np.ndarray) -> list[str]:
    """Compact letter display for systems listed best first.

    ``significant_pairs[i, j]`` is True when i and j differ significantly. Each maximal run
    of consecutive systems with no significant difference among them gets a letter; two
    systems sharing a letter are not significantly different.
    """
    m = significant_pairs.shape[0]
    runs: list[tuple[int, int]] = []
    for start in range(m):
        end = start
        while end + 1 < m and not significant_pairs[start:end + 2, start:end + 2].any():
            end += 1
        if not runs or end > runs[-1][1]:
            runs.append((start, end))
    letters = [""] * m
    for n, (start, end) in enumerate(runs):
        letter = _letter(n)
        for i in range(start, end + 1):
            letters[i] += letter
    return letters


def _letter(n: int) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    return alphabet[n] if n < 26 else alphabet[n // 26 - 1] + alphabet[n % 26]
