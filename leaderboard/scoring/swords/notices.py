"""Warnings for the numbers the original scorer does not give, and what we report instead.

The original stops without a number on an empty submission (it divides by zero), on a
negative mean GAP (an assertion) and, in score.pl, where no gold item has a mode. We report 0
there (spec sections 4 and 5) and say why with one of these warnings.
"""

from __future__ import annotations

import numpy as np

from leaderboard.scoring.swords.stats import COLUMN_INDEX, TargetStats


def _gap_notice(stats: TargetStats) -> list[str]:
    values = stats.rows[:, COLUMN_INDEX["gap"]]
    minus_one = values < 0
    if not minus_one.any():
        return []
    n = values.size
    clipped = [name for name in dict.fromkeys(stats.pos.tolist())
               if values[stats.pos == name].mean() < 0]
    text = (f"GAP: {int(minus_one.sum())} of {n} targets have no positive gold weight and "
            "score -1 each, as in the original GAP script, and count in the mean")
    mean = float(values.mean())
    if mean < 0:
        return [f"{text}; the mean ({100 * mean:.2f}) is negative, where the original stops "
                "on an assertion without a number: gap and gap_rat are reported as 0."]
    if clipped:
        return [f"{text}; the mean of {', '.join(clipped)} alone is negative and is reported "
                "as 0 there."]
    return [f"{text}."]


def rule_warnings(stats: TargetStats) -> list[str]:
    """Every warning about a metric reported as 0 (or lowered) by the original's own rules."""
    col = COLUMN_INDEX
    rows = stats.rows
    if rows.shape[0] and not np.any(rows[:, col["top_strict"]]):
        return ["No substitute to score (an empty submission, or only the targets themselves): "
                "the original scorer has no number here (it divides by zero); every metric "
                "is reported as 0."]
    out = _gap_notice(stats)
    no_hits = [name for name, column in (
        ("strict_a@10", "hit_strict_a"), ("strict_c@10", "hit_strict_c"),
        ("lenient_a@10", "hit_lenient_a"), ("lenient_c@10", "hit_lenient_c"),
        ("strict_c@1", "hit1_strict_c")) if not np.any(rows[:, col[column]])]
    if rows.shape[0] and no_hits:
        out.append(f"No hit at all for {', '.join(no_hits)}: the original scorer stops there "
                   "without any number (its F = 2PR / (P + R) divides by zero); we report 0 "
                   "for those metrics.")
    if rows.shape[0] and np.any(rows[:, col["se_item"]]) and not np.any(rows[:, col["se_mode"]]):
        out.append("No gold item has a mode in score.pl (the top substitutes tie): the "
                   "original has no best_mode/oot_mode numbers here; they are reported as 0.")
    return out
