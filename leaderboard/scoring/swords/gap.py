"""Generalized average precision (Kishida 2005; Thater et al. 2010), spec section 4.

Per target: walk the system list in rank order; x_i is the gold weight of the i-th item
(0 for a non-candidate); the numerator sums (x_1 + ... + x_i) / i over the i with x_i > 0;
the denominator is the same sum for the ideal ranking of the positive gold weights. ``gap``
weighs candidates by their number of positive labels, ``gap_rat`` by their score.

A target with no positive gold weight scores -1, what the original's GAP script returns, and
counts in the mean as it does there. Where the mean is negative the original has no number
(it stops on an assertion): the mean is reported as 0 (the engine says why in a warning).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from leaderboard.scoring.swords.generative import safe_div

#: GAP of a target whose gold has no positive weight (the original GAP script's answer).
NO_POSITIVE_WEIGHT = -1.0

#: Per-target columns this module contributes to the statistics matrix.
COLUMNS = ("gap", "gap_valid", "gap_rat", "gap_rat_valid")


def gap_numerators(ranked: list[str], weights: Mapping[str, tuple[float, float]]
                   ) -> tuple[float, float]:
    """Both numerators in one pass; ``weights`` maps a candidate to (votes, score).

    Each is the sum over ranks i with a positive weight of (cumulative weight to i) / i.
    """
    num_v = num_r = acc_v = acc_r = 0.0
    for i, sub in enumerate(ranked, start=1):
        w = weights.get(sub)
        if w is None:  # not a candidate: weight 0, but it still takes rank i
            continue
        acc_v += w[0]
        acc_r += w[1]
        if w[0] > 0:  # votes > 0 exactly when score > 0
            num_v += acc_v / i
            num_r += acc_r / i
    return num_v, num_r


def gap_row(ranked: list[str], weights: Mapping[str, tuple[float, float]], denominator: float,
            rat_denominator: float) -> tuple[float, ...]:
    """Per-target values of :data:`COLUMNS`: -1 when no gold weight is positive."""
    if denominator <= 0 or rat_denominator <= 0:  # both or neither: votes > 0 iff score > 0
        return (NO_POSITIVE_WEIGHT, 1.0, NO_POSITIVE_WEIGHT, 1.0)
    num_v, num_r = gap_numerators(ranked, weights)
    return (num_v / denominator, 1.0, num_r / rat_denominator, 1.0)


def gap_metrics(s: dict) -> dict[str, object]:
    """Mean GAP over targets (fractions) from summed columns, a negative mean reported as 0.

    Arrays broadcast, so every bootstrap resample follows the same rule.
    """
    return {
        "gap": np.maximum(safe_div(s["gap"], s["gap_valid"]), 0.0),
        "gap_rat": np.maximum(safe_div(s["gap_rat"], s["gap_rat_valid"]), 0.0),
    }
