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


def gap_numerator(ranked: list[str], weights: dict[str, float]) -> float:
    """Sum over ranks i with a positive weight of (cumulative weight up to i) / i."""
    total = 0.0
    acc = 0.0
    for i, sub in enumerate(ranked, start=1):
        x = weights.get(sub, 0)
        acc += x
        if x > 0:
            total += acc / i
    return total


def gap_row(ranked: list[str], votes: dict[str, int], ratios: dict[str, float],
            denominator: float, rat_denominator: float) -> tuple[float, ...]:
    """Per-target values of :data:`COLUMNS`; a 0 denominator marks the target invalid."""
    row = []
    for weights, den in ((votes, denominator), (ratios, rat_denominator)):
        if den > 0:
            row += [gap_numerator(ranked, weights) / den, 1.0]
        else:
            row += [0.0, 0.0]
    return tuple(row)


def gap_metrics(s: dict) -> dict[str, object]:
    """Mean GAP over valid targets (fractions) from summed columns; arrays broadcast."""
    return {
        "gap": safe_div(s["gap"], s["gap_valid"]),
        "gap_rat": safe_div(s["gap_rat"], s["gap_rat_valid"]),
    }
