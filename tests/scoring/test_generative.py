"""Generative metrics at k = 10 (spec section 3)."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.scoring.swords.generative import (
    COLUMNS,
    generative_metrics,
    generative_row,
    safe_div,
)


def sums(*rows) -> dict:
    total = np.sum([r for r in rows], axis=0)
    return dict(zip(COLUMNS, total, strict=True))


def test_only_the_top_ten_count_and_recall_caps_the_gold_at_ten():
    gold = frozenset(f"g{i}" for i in range(12))
    ranked = [f"g{i}" for i in range(11)]
    r = dict(zip(COLUMNS, generative_row(ranked, gold, gold, gold), strict=True))
    assert r["top_strict"] == 10 and r["hit_strict_a"] == 10
    m = generative_metrics(sums(list(r.values())))
    assert m["strict_a_p@10"] == 1.0
    assert m["strict_a_r@10"] == 1.0  # min(12, 10) in the denominator
    assert m["strict_a_rs@10"] == pytest.approx(10 / 12)
    assert m["strict_a_fs@10"] == pytest.approx(2 * (10 / 12) / (1 + 10 / 12))


def test_pooled_not_averaged():
    a = generative_row(["x", "y"], frozenset({"x", "y"}), frozenset({"x"}), frozenset({"x"}))
    b = generative_row(["p", "q", "r", "s"], frozenset({"p"}), frozenset({"p"}), frozenset({"p"}))
    m = generative_metrics(sums(a, b))
    assert m["strict_a_p@10"] == pytest.approx(2 / 6)  # (1 + 1) / (2 + 4), not (1/2 + 1/4) / 2


def test_lenient_drops_non_candidates_before_the_cut():
    cands = frozenset({"a", "b"})
    r = dict(zip(COLUMNS, generative_row([f"n{i}" for i in range(10)] + ["a"], cands,
                                         frozenset({"a"}), cands), strict=True))
    assert r["hit_strict_a"] == 0 and r["top_lenient"] == 1 and r["hit_lenient_a"] == 1


def test_zero_denominators_give_zero():
    m = generative_metrics(sums(generative_row([], frozenset(), frozenset(), frozenset())))
    assert all(v == 0.0 for v in m.values())
    assert safe_div(np.array([1.0, 2.0]), np.array([0.0, 4.0])).tolist() == [0.0, 0.5]
