"""GAP (spec section 4)."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.scoring.swords.gap import gap_metrics, gap_numerators, gap_row
from leaderboard.scoring.swords.gold import _ideal_gap


def test_numerator_counts_non_candidates_as_rank_positions():
    weights = {"a": (3.0, 0.3), "b": (2.0, 0.2), "c": (0.0, 0.0)}
    # x = 0 (zz), 3 (a), 0 (c), 2 (b): (0+3)/2 + (0+3+0+2)/4
    num_v, num_r = gap_numerators(["zz", "a", "c", "b"], weights)
    assert num_v == pytest.approx(3 / 2 + 5 / 4)
    assert num_r == pytest.approx(0.3 / 2 + 0.5 / 4)


def test_ideal_ranking_scores_one():
    den = _ideal_gap(np.array([3.0, 2.0, 0.0]))
    assert den == pytest.approx(3 / 1 + 5 / 2)
    row = gap_row(["a", "b"], {"a": (3.0, 0.3), "b": (2.0, 0.2)}, den,
                  _ideal_gap(np.array([0.3, 0.2])))
    assert row == pytest.approx((1.0, 1.0, 1.0, 1.0))


def test_no_positive_weight_scores_minus_one_and_counts_in_the_mean():
    # the original GAP script returns -1 for such a target and np.mean includes it
    assert gap_row(["a"], {"a": (0.0, 0.0)}, 0.0, 0.0) == (-1.0, 1.0, -1.0, 1.0)
    assert gap_row([], {"a": (0.0, 0.0)}, 0.0, 0.0) == (-1.0, 1.0, -1.0, 1.0)
    # targets at 0.9, 0.5 and -1: (0.9 + 0.5 - 1) / 3
    sums = {"gap": 0.9 + 0.5 - 1.0, "gap_valid": 3.0, "gap_rat": 0.4, "gap_rat_valid": 3.0}
    assert gap_metrics(sums)["gap"] == pytest.approx(0.4 / 3)


def test_negative_mean_is_reported_as_zero_also_per_resample():
    # (0.5 - 1) / 2 < 0: the original stops on its assertion; we report 0
    sums = {"gap": np.array([-0.5, 0.5, -2.0]), "gap_valid": np.array([2.0, 2.0, 3.0]),
            "gap_rat": np.array([-0.5, 0.5, -2.0]), "gap_rat_valid": np.array([2.0, 2.0, 3.0])}
    m = gap_metrics(sums)
    assert m["gap"].tolist() == [0.0, 0.25, 0.0]
    assert m["gap_rat"].tolist() == [0.0, 0.25, 0.0]


def test_empty_list_scores_zero():
    assert gap_numerators([], {"a": (1.0, 0.1)}) == (0.0, 0.0)
