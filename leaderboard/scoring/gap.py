"""Generalized average precision (Kishida 2005; Thater et al. 2010), spec section 4.

Per target: walk the system list in rank order; x_i is the gold weight of the i-th item
(0 for a non-candidate); the numerator sums (x_1 + ... + x_i) / i over the i with x_i > 0;
the denominator is the same sum for the ideal ranking of the positive gold weights. ``gap``
weighs candidates by their number of positive labels, ``gap_rat`` by their score. A target
with no positive gold weight is left out (upstream returns -1 for it).
"""

from __future__ import annotations

from leaderboard.scoring.generative import safe_div

#: Per-target columns this module contributes to the statistics matrix.
COLUMNS = ("gap", "gap_valid", "gap_rat", "gap_rat_valid")


def gap_numerators(ranked: list[str], weights: dict[str, tuple[float, float]]
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


def gap_row(ranked: list[str], weights: dict[str, tuple[float, float]], denominator: float,
            rat_denominator: float) -> tuple[float, ...]:
    """Per-target values of :data:`COLUMNS`; a 0 denominator marks the target invalid."""
    num_v, num_r = gap_numerators(ranked, weights) if denominator > 0 else (0.0, 0.0)
    return (
        num_v / denominator if denominator > 0 else 0.0, float(denominator > 0),
        num_r / rat_denominator if rat_denominator > 0 else 0.0, float(rat_denominator > 0),
    )


def gap_metrics(s: dict) -> dict[str, object]:
    """Mean GAP over valid targets (fractions) from summed columns; arrays broadcast."""
    return {
        "gap": safe_div(s["gap"], s["gap_valid"]),
        "gap_rat": safe_div(s["gap_rat"], s["gap_rat_valid"]),
    }
